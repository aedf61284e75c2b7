package io.jetstream.flink.ring;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.agrona.DirectBuffer;
import org.apache.flink.runtime.io.network.buffer.Buffer;

/**
 * Both sides' message handlers as a log of what the decoder handed them, one line per message (the
 * ring's bytes copied out, since they are valid only during the call). Single-threaded, as the I/O
 * thread is.
 */
final class RecordingMessages implements RingMessageDecoder.ProducerMessages, RingMessageDecoder.ConsumerMessages {
    final List<String> log = new ArrayList<>();
    /** The data of the last buffer message. */
    byte[] lastData;
    /** The serialized cause of the last error message. */
    byte[] lastError;
    /** Thrown by every handler when set (the decoder must not let it into the ring). */
    RuntimeException failWith;

    private void record(String line) {
        if (failWith != null) {
            throw failWith;
        }
        log.add(line);
    }

    @Override
    public void onHello(int fromPort) {
        record("HELLO from " + fromPort);
    }

    @Override
    public void onRequest(RingPeer peer, int handle, int initialCredit, int first, int last, byte[] partitionId) {
        record("REQUEST " + peer.port + "/" + handle + " credit " + initialCredit + " subpartitions " + first + "-" + last
                + " partition " + Arrays.toString(partitionId));
    }

    @Override
    public void onCredit(RingPeer peer, int handle, int credit) {
        record("CREDIT " + peer.port + "/" + handle + " " + credit);
    }

    @Override
    public void onResume(RingPeer peer, int handle) {
        record("RESUME " + peer.port + "/" + handle);
    }

    @Override
    public void onAckAllRecords(RingPeer peer, int handle) {
        record("ACK_ALL_RECORDS " + peer.port + "/" + handle);
    }

    @Override
    public void onBufferSize(RingPeer peer, int handle, int bufferSize) {
        record("BUFFER_SIZE " + peer.port + "/" + handle + " " + bufferSize);
    }

    @Override
    public void onSegment(RingPeer peer, int handle, int subpartitionId, int segmentId) {
        record("SEGMENT " + peer.port + "/" + handle + " " + subpartitionId + " " + segmentId);
    }

    @Override
    public void onCancel(RingPeer peer, int handle) {
        record("CANCEL " + peer.port + "/" + handle);
    }

    @Override
    public void onTaskEvent(RingPeer peer, int handle, int partitionIdLength, byte[] tail) {
        record("TASK_EVENT " + peer.port + "/" + handle + " " + partitionIdLength + " " + tail.length);
    }

    @Override
    public void onHelloAck(RingPeer peer) {
        record("HELLO_ACK " + peer.port);
    }

    @Override
    public void onBuffer(RingPeer peer, int handle, int sequenceNumber, int backlog, int subpartitionId,
            Buffer.DataType dataType, boolean compressed, DirectBuffer ring, int dataOffset, int size) {
        record("BUFFER " + peer.port + "/" + handle + " seq " + sequenceNumber + " backlog " + backlog + " subpartition "
                + subpartitionId + " " + dataType + (compressed ? " compressed" : "") + " " + size + " bytes");
        lastData = new byte[size];
        ring.getBytes(dataOffset, lastData);
    }

    @Override
    public void onBacklog(RingPeer peer, int handle, int backlog) {
        record("BACKLOG " + peer.port + "/" + handle + " " + backlog);
    }

    @Override
    public void onNotFound(RingPeer peer, int handle) {
        record("NOT_FOUND " + peer.port + "/" + handle);
    }

    @Override
    public void onError(RingPeer peer, int handle, byte[] serializedCause) {
        record("ERROR " + peer.port + "/" + handle);
        lastError = serializedCause;
    }

    @Override
    public void onRedirect(RingPeer peer, int handle, String reason) {
        record("REDIRECT " + peer.port + "/" + handle + " " + reason);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
