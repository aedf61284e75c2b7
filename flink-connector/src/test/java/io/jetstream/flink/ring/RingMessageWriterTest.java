package io.jetstream.flink.ring;

import static io.jetstream.flink.ring.RingMessageDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.ring.RingConsumer;
import io.jetstream.core.ring.RingSettings;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.io.network.buffer.Buffer;
import org.apache.flink.runtime.io.network.buffer.FreeingBufferRecycler;
import org.apache.flink.runtime.io.network.buffer.NetworkBuffer;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultPartitionManager;
import org.apache.flink.runtime.io.network.partition.ResultSubpartition.BufferAndBacklog;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionIndexSet;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer and the decoder agree on the wire format: messages written into a real ring (this
 * TaskManager talking to itself: the peer's ring is the one the decoder polls) come out with their
 * fields, a buffer's bytes copied from its memory segment; a ring that fills keeps the order; a closed
 * ring loses its peer; a buffer too large for the ring fails its reader with an error naming the
 * option to raise, and an error too large for one record still arrives (its text).
 */
class RingMessageWriterTest {
    private static final int PORT = 32_001;
    private static final int MAX_RECORD = 1024;

    @TempDir
    Path temp;

    private RingConsumer ring;
    private RingPeers peers;
    private RingPeer peer;
    private RingMessageWriter writer;
    private RingMessageDecoder decoder;
    private RingPartitionServer server;
    private RingMetrics metrics;
    private final RecordingMessages handlers = new RecordingMessages();

    @BeforeEach
    void connectToSelf() {
        RingSettings settings = RingSettings.defaults(temp).withCapacity(4096, MAX_RECORD, 4096);
        ring = RingConsumer.create(settings, ringName(PORT));
        peers = new RingPeers(settings, new StaleRingReclaimer(temp));
        peer = peers.attach(PORT, InetSocketAddress.createUnresolved("localhost", PORT));
        metrics = new RingMetrics(UnregisteredMetricsGroup.createOperatorMetricGroup());
        writer = new RingMessageWriter(peers, metrics, MAX_RECORD);
        writer.senderPort(PORT);
        decoder = new RingMessageDecoder(peers, handlers, handlers);
        server = new RingPartitionServer(new ResultPartitionManager(), (id, event) -> false, peers, writer,
                new RingHandOver(), metrics);
    }

    @AfterEach
    void close() {
        peers.releaseAll();
        ring.close();
    }

    private RingSubpartitionReader reader(int handle) {
        RingSubpartitionReader reader = new RingSubpartitionReader(server, peer, handle, new ResultPartitionID(),
                new ResultSubpartitionIndexSet(0), 2);
        peer.readers.put(handle, reader);
        return reader;
    }

    private static Buffer buffer(byte[] bytes) {
        NetworkBuffer buffer = new NetworkBuffer(MemorySegmentFactory.allocateUnpooledSegment(MAX_RECORD),
                FreeingBufferRecycler.INSTANCE, Buffer.DataType.DATA_BUFFER, 0);
        buffer.writeBytes(bytes);
        return buffer;
    }

    private void pollAll() {
        for (int polls = 0; polls < 100 && ring.poll(decoder, 256) > 0; polls++) {
            // delivered into handlers.log
        }
    }

    @Test
    void controlMessagesComeOutOfTheRingAsTheyWentIn() {
        writer.sendControl(peer, REQUEST, 3, 2, 0, 4, new byte[] {7, 8, 9});
        writer.sendControl(peer, BACKLOG, 3, 12, 0, 0, null);
        writer.sendRedirect(peer, 3, "HYBRID_FULL partitions stay on Netty");
        pollAll();
        assertEquals(List.of(
                "REQUEST 32001/3 credit 2 subpartitions 0-4 partition [7, 8, 9]",
                "BACKLOG 32001/3 12",
                "REDIRECT 32001/3 HYBRID_FULL partitions stay on Netty"), handlers.log);
    }

    @Test
    void aBufferIsCopiedIntoTheRingWithItsSequenceBacklogAndSubpartitionThenRecycled() {
        Buffer buffer = buffer(new byte[] {10, 20, 30});
        assertTrue(writer.writeOrQueueBuffer(peer, reader(4), new BufferAndBacklog(buffer, 6, Buffer.DataType.NONE, 17), 0));
        assertTrue(buffer.isRecycled(), "the Flink buffer goes back once copied");
        pollAll();
        assertEquals(List.of("BUFFER 32001/4 seq 17 backlog 6 subpartition 0 DATA_BUFFER 3 bytes"), handlers.log);
        assertArrayEquals(new byte[] {10, 20, 30}, handlers.lastData);
        assertEquals(1, metrics.buffersOut.getCount());
        assertEquals(3, metrics.bytesOut.getCount());
    }

    @Test
    void aFullRingQueuesMessagesAndDeliversThemInOrderOnceThereIsRoom() {
        RingSubpartitionReader reader = reader(1);
        int messages = 200; // far more than a 4 KiB ring holds
        List<Buffer> buffers = new ArrayList<>();
        boolean queued = false;
        for (int i = 0; i < messages; i++) {
            if (i % 2 == 0) {
                writer.sendControl(peer, CREDIT, 1, i, 0, 0, null);
            } else {
                Buffer buffer = buffer(new byte[100]);
                buffers.add(buffer);
                queued |= !writer.writeOrQueueBuffer(peer, reader, new BufferAndBacklog(buffer, 0, Buffer.DataType.NONE, i), 0);
            }
        }
        assertTrue(queued && !peer.outbound.isEmpty(), "the ring filled and messages wait");
        for (int rounds = 0; rounds < 1_000 && !(peer.outbound.isEmpty() && handlers.log.size() == messages); rounds++) {
            pollAll();
            writer.flushOutbound(peer);
        }
        assertEquals(messages, handlers.log.size(), "everything arrived");
        for (int i = 0; i < messages; i++) {
            String expected = i % 2 == 0 ? "CREDIT 32001/1 " + i : "BUFFER 32001/1 seq " + i + " ";
            assertTrue(handlers.log.get(i).startsWith(expected), "message " + i + " in order: " + handlers.log.get(i));
        }
        assertTrue(buffers.stream().allMatch(Buffer::isRecycled), "every buffer recycled once written");
    }

    @Test
    void aBufferTooLargeForTheRingFailsItsReaderNamingTheOption() throws Exception {
        RingSubpartitionReader reader = reader(2);
        Buffer buffer = buffer(new byte[MAX_RECORD - BUFFER_DATA_OFFSET + 1]);
        assertTrue(writer.writeOrQueueBuffer(peer, reader, new BufferAndBacklog(buffer, 0, Buffer.DataType.NONE, 0), 0));
        assertTrue(buffer.isRecycled() && reader.released, "the buffer recycled, the reader released");
        assertFalse(peer.readers.containsKey(2), "the reader is no longer served");
        pollAll();
        assertEquals(List.of("ERROR 32001/2"), handlers.log);
        Throwable cause = InstantiationUtil.deserializeObject(handlers.lastError, getClass().getClassLoader());
        assertTrue(cause.getMessage().contains("raise taskmanager.network.jetstream.ring.max-record-bytes"), cause.getMessage());
    }

    @Test
    void anErrorTooLargeForOneRecordArrivesAsItsTextWithoutStackTraces() throws Exception {
        Exception deep = new IllegalStateException("root cause");
        for (int i = 0; i < 20; i++) {
            deep = new RuntimeException("level " + i, deep);
        }
        writer.sendError(peer, 6, deep);
        pollAll();
        assertEquals(List.of("ERROR 32001/6"), handlers.log, "sent, not thrown into the I/O loop");
        assertTrue(handlers.lastError.length <= MAX_RECORD - HEAD_LENGTH);
        Throwable cause = InstantiationUtil.deserializeObject(handlers.lastError, getClass().getClassLoader());
        assertTrue(cause.getMessage().startsWith("(stack traces dropped: the error took ")
                && cause.getMessage().contains("java.lang.RuntimeException: level 19"), cause.getMessage());
    }

    @Test
    void writingToAClosedRingLosesThePeerAndRecyclesTheBuffer() {
        ring.close();
        Buffer buffer = buffer(new byte[] {1});
        assertTrue(writer.writeOrQueueBuffer(peer, reader(5), new BufferAndBacklog(buffer, 0, Buffer.DataType.NONE, 0), 0));
        assertTrue(buffer.isRecycled());
        assertTrue(peer.lost && peer.lostCause.contains("closed by its consumer"), peer.lostCause);
        writer.sendControl(peer, CREDIT, 1, 1, 0, 0, null);
        assertTrue(peer.outbound.isEmpty(), "nothing is queued for a lost peer");
    }
}
