package io.jetstream.flink.ring;

import static io.jetstream.flink.ring.RingMessageDescriptor.*;

import io.jetstream.core.ring.RecordHandler;
import java.nio.charset.StandardCharsets;
import org.agrona.DirectBuffer;
import org.apache.flink.runtime.io.network.buffer.Buffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes the records arriving in this TaskManager's ring ({@link RingMessageDescriptor}) and hands
 * each message, as typed fields, to the side that handles it: {@link ProducerMessages} (what a
 * consumer TaskManager asks of this one's partitions) or {@link ConsumerMessages} (what a producer
 * TaskManager sends this one's channels).
 *
 * <p>Malformed records are rejected before anything is looked up, allocated or copied from their
 * fields ({@link #malformed}): a record shorter than the head is dropped (logged: no sender can be
 * trusted to blame); a {@code BUFFER} record whose data type is not Flink's or whose size does not fit
 * the bytes the record holds loses its sender ({@link RingPeers#lose}, "corrupt ring record: …"), as
 * Netty fails a connection whose frame does not decode. Messages from a TaskManager that is not a
 * live peer (except its {@code HELLO}) are dropped, unknown types logged.
 *
 * <p>Threading: the ring I/O thread, as the {@link RecordHandler} of its ring's poll. Per record it
 * allocates nothing, except the tail copy of the rare messages that carry one (request, task event,
 * error, redirect). It never throws into the ring (which would deliver the record again): a handler's
 * exception is logged.
 */
final class RingMessageDecoder implements RecordHandler {
    private static final Logger LOG = LoggerFactory.getLogger(RingMessageDecoder.class);
    private static final Buffer.DataType[] DATA_TYPES = Buffer.DataType.values();

    /** Messages to this TaskManager as a producer. I/O thread. */
    interface ProducerMessages {
        /** The handshake of a consumer TaskManager not yet (or no longer) a peer. */
        void onHello(int fromPort);

        void onRequest(RingPeer peer, int handle, int initialCredit, int firstSubpartition, int lastSubpartition,
                byte[] partitionId);

        void onCredit(RingPeer peer, int handle, int credit);

        void onResume(RingPeer peer, int handle);

        void onAckAllRecords(RingPeer peer, int handle);

        void onBufferSize(RingPeer peer, int handle, int bufferSize);

        void onSegment(RingPeer peer, int handle, int subpartitionId, int segmentId);

        void onCancel(RingPeer peer, int handle);

        void onTaskEvent(RingPeer peer, int handle, int partitionIdLength, byte[] tail);
    }

    /** Messages to this TaskManager as a consumer. I/O thread. */
    interface ConsumerMessages {
        void onHelloAck(RingPeer peer);

        /**
         * A buffer, checked against its record: {@code size} bytes at {@code dataOffset} of {@code ring},
         * valid only during the call.
         */
        void onBuffer(RingPeer peer, int handle, int sequenceNumber, int backlog, int subpartitionId,
                Buffer.DataType dataType, boolean compressed, DirectBuffer ring, int dataOffset, int size);

        void onBacklog(RingPeer peer, int handle, int backlog);

        void onNotFound(RingPeer peer, int handle);

        void onError(RingPeer peer, int handle, byte[] serializedCause);

        void onRedirect(RingPeer peer, int handle, String reason);
    }

    private final RingPeers peers;
    private final ProducerMessages producer;
    private final ConsumerMessages consumer;

    RingMessageDecoder(RingPeers peers, ProducerMessages producer, ConsumerMessages consumer) {
        this.peers = peers;
        this.producer = producer;
        this.consumer = consumer;
    }

    @Override
    public void onRecord(int type, DirectBuffer buffer, int offset, int length) {
        try {
            decode(type, buffer, offset, length);
        } catch (RuntimeException e) {
            // Never rethrow into the ring: it would deliver the same record again.
            LOG.error("Handling ring message {} failed", type, e);
        }
    }

    private void decode(int type, DirectBuffer buffer, int offset, int length) {
        if (length < HEAD_LENGTH) {
            // Not even the sender can be trusted: no peer to blame, the record is dropped.
            LOG.error("Dropping a corrupt ring record: {}", malformed(type, buffer, offset, length));
            return;
        }
        int from = buffer.getInt(offset + PORT_OFFSET);
        int handle = buffer.getInt(offset + HANDLE_OFFSET);
        if (type == HELLO) {
            producer.onHello(from);
            return;
        }
        RingPeer peer = peers.live(from);
        if (peer == null) {
            LOG.debug("Dropping ring message {} from unknown TaskManager port {}", type, from);
            return;
        }
        if (type == BUFFER) {
            String corrupt = malformed(type, buffer, offset, length);
            if (corrupt != null) {
                // Its sender's ring writes are in doubt: fail every channel of it, as Netty fails a
                // connection whose frame does not decode.
                peers.lose(peer, "corrupt ring record: " + corrupt);
                return;
            }
        }
        int f1 = buffer.getInt(offset + FIELD1_OFFSET);
        int f2 = buffer.getInt(offset + FIELD2_OFFSET);
        int f3 = buffer.getInt(offset + FIELD3_OFFSET);
        switch (type) {
            case HELLO_ACK -> consumer.onHelloAck(peer);
            case REQUEST -> producer.onRequest(peer, handle, f1, f2, f3, tail(buffer, offset, length));
            case CREDIT -> producer.onCredit(peer, handle, f1);
            case RESUME -> producer.onResume(peer, handle);
            case ACK_ALL_RECORDS -> producer.onAckAllRecords(peer, handle);
            case BUFFER_SIZE -> producer.onBufferSize(peer, handle, f1);
            case SEGMENT -> producer.onSegment(peer, handle, f1, f2);
            case CANCEL -> producer.onCancel(peer, handle);
            case TASK_EVENT -> producer.onTaskEvent(peer, handle, f1, tail(buffer, offset, length));
            case BUFFER -> consumer.onBuffer(peer, handle, f1, f2, f3,
                    DATA_TYPES[buffer.getInt(offset + DATA_TYPE_OFFSET)],
                    buffer.getInt(offset + COMPRESSED_OFFSET) != 0,
                    buffer, offset + BUFFER_DATA_OFFSET, buffer.getInt(offset + SIZE_OFFSET));
            case BACKLOG -> consumer.onBacklog(peer, handle, f1);
            case NOT_FOUND -> consumer.onNotFound(peer, handle);
            case ERROR -> consumer.onError(peer, handle, tail(buffer, offset, length));
            case REDIRECT -> consumer.onRedirect(peer, handle,
                    new String(tail(buffer, offset, length), StandardCharsets.UTF_8));
            default -> LOG.warn("Unknown ring message type {} from TaskManager port {}", type, from);
        }
    }

    /**
     * Why a record of {@code type} cannot be what it says, or null: every record must hold the
     * {@value RingMessageDescriptor#HEAD_LENGTH}-byte head; a {@code BUFFER} record its own head, a
     * data type that is one of Flink's and a size that fits the bytes the record really holds. Reads
     * only within {@code length}.
     */
    static String malformed(int type, DirectBuffer buffer, int offset, int length) {
        if (length < HEAD_LENGTH) {
            return length + " bytes of type " + type + ", shorter than the " + HEAD_LENGTH + "-byte head";
        }
        if (type != BUFFER) {
            return null;
        }
        if (length < BUFFER_DATA_OFFSET) {
            return "a buffer record of " + length + " bytes, shorter than its " + BUFFER_DATA_OFFSET + "-byte head";
        }
        int dataType = buffer.getInt(offset + DATA_TYPE_OFFSET);
        if (dataType < 0 || dataType >= DATA_TYPES.length) {
            return "data type " + dataType + " (Flink has " + DATA_TYPES.length + ")";
        }
        int size = buffer.getInt(offset + SIZE_OFFSET);
        if (size < 0 || size > length - BUFFER_DATA_OFFSET) {
            return "a buffer of " + size + " bytes in a record holding " + (length - BUFFER_DATA_OFFSET);
        }
        return null;
    }

    /** A copy of the tail of a message (the rare ones that carry one). */
    private static byte[] tail(DirectBuffer buffer, int offset, int length) {
        byte[] bytes = new byte[length - HEAD_LENGTH];
        buffer.getBytes(offset + HEAD_LENGTH, bytes);
        return bytes;
    }
}
