package io.jetstream.flink.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.ring.RingSettings;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.flink.util.concurrent.ScheduledExecutorServiceAdapter;
import org.apache.flink.runtime.io.network.partition.ChannelStateHolder;
import java.util.concurrent.TimeUnit;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.CheckpointType;
import org.apache.flink.runtime.clusterframework.types.ResourceID;
import org.apache.flink.runtime.io.network.ConnectionID;
import org.apache.flink.runtime.io.network.ConnectionManager;
import org.apache.flink.runtime.io.network.PartitionRequestClient;
import org.apache.flink.runtime.io.network.api.CheckpointBarrier;
import org.apache.flink.runtime.io.network.api.EndOfPartitionEvent;
import org.apache.flink.runtime.io.network.buffer.NetworkBufferPool;
import org.apache.flink.runtime.io.network.partition.BufferWritingResultPartition;
import org.apache.flink.runtime.io.network.partition.ResultPartition;
import org.apache.flink.runtime.io.network.partition.ResultPartitionBuilder;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultPartitionManager;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.io.network.partition.consumer.BufferOrEvent;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionIndexSet;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.checkpoint.channel.ChannelStateWriter;
import org.apache.flink.runtime.io.network.partition.consumer.RemoteInputChannel;
import org.apache.flink.runtime.io.network.partition.consumer.SingleInputGate;
import org.apache.flink.runtime.io.network.partition.consumer.SingleInputGateBuilder;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two ring services in this JVM, standing for a producer and a consumer TaskManager on one host,
 * with Flink's own pipelined result partition on one side and Flink's own input gate and
 * {@link RemoteInputChannel} on the other (built with Flink's test builders): the ring path must keep
 * Netty's rules. Small network buffers (64 bytes) and few consumer buffers make credit matter.
 * Every wait is bounded.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class RingServiceProtocolTest {
    private static final int SEGMENT = 64;
    private static final long WAIT_MS = 20_000;

    @TempDir
    Path temp;

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private RingSettings settings;
    private RingService producerTm;
    private RingService consumerTm;
    private ResultPartitionManager producerPartitions;
    private int producerPort;
    private int consumerPort;
    private final CompletableFuture<ResultPartitionID> producerStateRequested = new CompletableFuture<>();
    private ScheduledExecutorService timeouts;

    @BeforeEach
    void startServices() {
        settings = RingSettings.defaults(temp.resolve("rings"))
                .withCapacity(1 << 20, 64 << 10, 64 << 10)
                .withClock(System::nanoTime, TimeUnit.MILLISECONDS.toNanos(20));
        producerPort = 20_000 + ThreadLocalRandom.current().nextInt(20_000);
        consumerPort = producerPort + 1;
        timeouts = Executors.newSingleThreadScheduledExecutor();
        // Requests for a partition that does not appear time out after 200 ms (Flink's default: 10 s).
        producerPartitions = new ResultPartitionManager(200, new ScheduledExecutorServiceAdapter(timeouts));
        producerTm = service(producerPartitions, producerPort);
        consumerTm = service(new ResultPartitionManager(), consumerPort);
    }

    private RingService service(ResultPartitionManager partitions, int port) {
        RingService service = new RingService(settings, 5_000, partitions, (id, event) -> false,
                new RingMetrics(UnregisteredMetricsGroup.createOperatorMetricGroup()));
        service.start(port);
        toClose.add(service);
        return service;
    }

    @AfterEach
    void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        timeouts.shutdownNow();
        assertTrue(producerTm.isTerminated() && consumerTm.isTerminated(), "I/O threads ended");
    }

    @Test
    void everyByteArrivesInOrderUnderCredit() throws Exception {
        ResultPartitionID id = new ResultPartitionID();
        BufferWritingResultPartition partition = producePartition(id, 40);
        SingleInputGate gate = consume(id, 12);
        int records = 5_000;
        // The producer blocks on its buffer pool while the consumer's credit is out: produce in the background.
        CompletableFuture<Void> produced = CompletableFuture.runAsync(() -> {
            try {
                for (long i = 0; i < records; i++) {
                    partition.emitRecord(ByteBuffer.allocate(8).putLong(0, i), 0);
                    if (i % 97 == 0) {
                        partition.flushAll();
                    }
                }
                partition.finish();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        ByteBuffer received = ByteBuffer.wrap(readUntilEnd(gate).toByteArray());
        produced.get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertEquals(records * 8, received.remaining(), "bytes received");
        for (long i = 0; i < records; i++) {
            assertEquals(i, received.getLong(), "record " + i + " in order");
        }
    }

    @Test
    void aPartitionRequestedBeforeItExistsIsServedOnceItIsRegistered() throws Exception {
        ResultPartitionID id = new ResultPartitionID();
        SingleInputGate gate = consume(id, 12);
        BufferWritingResultPartition partition = producePartition(id, 50);
        partition.emitRecord(ByteBuffer.allocate(8).putLong(0, 42), 0);
        partition.finish();
        assertEquals(8, readUntilEnd(gate).size());
    }

    @Test
    void anAlignedBarrierBlocksTheSubpartitionUntilResumeConsumption() throws Exception {
        ResultPartitionID id = new ResultPartitionID();
        BufferWritingResultPartition partition = producePartition(id, 50);
        SingleInputGate gate = consume(id, 12);
        partition.emitRecord(ByteBuffer.allocate(8).putLong(0, 1), 0);
        partition.broadcastEvent(new CheckpointBarrier(1, 1, CheckpointOptions.forCheckpointWithDefaultLocation()), false);
        partition.emitRecord(ByteBuffer.allocate(8).putLong(0, 2), 0);
        partition.finish();
        List<Object> seen = new ArrayList<>();
        BufferOrEvent next;
        do {
            next = nextOf(gate);
            seen.add(next.isBuffer() ? "data" : next.getEvent().getClass().getSimpleName());
            if (next.isBuffer()) {
                next.getBuffer().recycleBuffer();
            }
        } while (!(next.isEvent() && next.getEvent() instanceof CheckpointBarrier));
        assertEquals(List.of("data", "CheckpointBarrier"), seen);
        // Blocked: what follows the barrier comes only after resumeConsumption.
        gate.resumeConsumption(next.getChannelInfo());
        assertEquals(8, readUntilEnd(gate).size(), "the record after the barrier, then the end of the partition");
    }

    @Test
    void aPriorityBarrierOvertakesDataHeldBackByCredit() throws Exception {
        ResultPartitionID id = new ResultPartitionID();
        BufferWritingResultPartition partition = producePartition(id, 400);
        // Few consumer buffers: most of the producer's buffers wait for credit.
        SingleInputGate gate = consume(id, 6);
        for (long i = 0; i < 1_000; i++) {
            partition.emitRecord(ByteBuffer.allocate(8).putLong(0, i), 0);
        }
        partition.flushAll();
        CheckpointBarrier barrier = new CheckpointBarrier(7, 7, CheckpointOptions.unaligned(
                CheckpointType.CHECKPOINT, CheckpointStorageLocationReference.getDefault()));
        partition.broadcastEvent(barrier, true);
        gate.getPriorityEventAvailableFuture().get(WAIT_MS, TimeUnit.MILLISECONDS);
        BufferOrEvent first = nextOf(gate);
        assertTrue(first.isEvent() && first.getEvent() instanceof CheckpointBarrier,
                "the unaligned barrier comes first, ahead of data already received: " + first);
        partition.finish();
        assertEquals(1_000 * 8, readUntilEnd(gate).size(), "then all data, in full");
    }

    @Test
    void aPartitionThatNeverAppearsIsReportedNotFoundAndFlinkChecksItsProducer() throws Exception {
        ResultPartitionID id = new ResultPartitionID();
        consume(id, 12);
        // The producer's listener times out (200 ms), the consumer gets partition-not-found and, as with
        // Netty, its gate asks for the producer's state (which decides between retrying and failing).
        assertEquals(id, producerStateRequested.get(WAIT_MS, TimeUnit.MILLISECONDS));
    }

    @Test
    void aCorruptBufferRecordFailsTheChannelsOfItsSenderAndAllocatesNothingFromItsSize() throws Exception {
        ResultPartitionID id = new ResultPartitionID();
        SingleInputGate gate = consume(id, 12); // connected to the producer TaskManager; no partition yet
        // A record in the consumer's ring that claims to come from the producer: a buffer of 1 GiB in 32 bytes.
        try (io.jetstream.core.ring.RingProducer forged = io.jetstream.core.ring.RingProducer.attach(settings,
                RingMessageDescriptor.ringName(consumerPort))) {
            int at = forged.claim(RingMessageDescriptor.BUFFER, RingMessageDescriptor.BUFFER_DATA_OFFSET);
            org.agrona.MutableDirectBuffer record = forged.buffer();
            record.putInt(at + RingMessageDescriptor.PORT_OFFSET, producerPort);
            record.putInt(at + RingMessageDescriptor.HANDLE_OFFSET, 0);
            record.putInt(at + RingMessageDescriptor.DATA_TYPE_OFFSET, 0);
            record.putInt(at + RingMessageDescriptor.SIZE_OFFSET, 1 << 30);
            forged.commit();
        }
        IOException error = assertThrows(IOException.class, () -> readUntilEnd(gate));
        String trace = ExceptionUtils.stringifyException(error);
        assertTrue(trace.contains("Lost the same-host ring connection")
                && trace.contains("corrupt ring record: a buffer of 1073741824 bytes in a record holding 0"), trace);
    }

    @Test
    void aPeerProcessKilledMidStreamFailsTheChannelAsALostConnection() throws Exception {
        int port = consumerPort + 1;
        Process peer = startJava(RingPeerProcessMain.class, settings.directory().toString(), Integer.toString(port));
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
            awaitLine(out, "READY");
            SingleInputGate gate = consume(new ResultPartitionID(), port, 12);
            awaitLine(out, "CONNECTED");
            peer.destroyForcibly();
            assertTrue(peer.waitFor(30, TimeUnit.SECONDS), "peer process ended");
            IOException error = assertThrows(IOException.class, () -> readUntilEnd(gate));
            String trace = ExceptionUtils.stringifyException(error);
            assertTrue(trace.contains("Lost the same-host ring connection") && trace.contains("is gone"), trace);
        } finally {
            peer.destroyForcibly();
        }
    }

    // ---- helpers ----

    private BufferWritingResultPartition producePartition(ResultPartitionID id, int buffers) throws IOException {
        NetworkBufferPool pool = new NetworkBufferPool(buffers, SEGMENT);
        toClose.add(pool::destroy);
        ResultPartition partition = new ResultPartitionBuilder()
                .setResultPartitionId(id)
                .setResultPartitionType(ResultPartitionType.PIPELINED)
                .setNumberOfSubpartitions(1)
                .setResultPartitionManager(producerPartitions)
                .setNetworkBufferPool(pool)
                .setNetworkBuffersPerChannel(buffers / 2)
                .setFloatingNetworkBuffersPerGate(buffers / 2)
                .build();
        ((ChannelStateHolder) partition).setChannelStateWriter(ChannelStateWriter.NO_OP);
        producerTm.registerPartition(id, ResultPartitionType.PIPELINED);
        partition.setup();
        toClose.add(partition::release);
        return (BufferWritingResultPartition) partition;
    }

    private SingleInputGate consume(ResultPartitionID id, int buffers) throws Exception {
        return consume(id, producerPort, buffers);
    }

    private SingleInputGate consume(ResultPartitionID id, int port, int buffers) throws Exception {
        NetworkBufferPool pool = new NetworkBufferPool(buffers, SEGMENT);
        toClose.add(pool::destroy);
        SingleInputGate gate = new SingleInputGateBuilder()
                .setNumberOfChannels(1)
                .setSegmentProvider(pool)
                .setBufferPoolFactory(pool.createBufferPool(1, buffers - 2))
                .setPartitionProducerStateProvider((dataSet, partition, response) -> producerStateRequested.complete(partition))
                .build();
        InetSocketAddress address = new InetSocketAddress("localhost", port);
        ConnectionID connection = new ConnectionID(ResourceID.generate(), address, 0);
        RingPeer peer = consumerTm.connect(port, address);
        RingPartitionRequestClient client = new RingPartitionRequestClient(consumerTm, peer, connection, null, Runnable::run);
        // Flink's own channel, through its public constructor (its test builder needs Mockito).
        RemoteInputChannel channel = new RemoteInputChannel(gate, 0, id, new ResultSubpartitionIndexSet(0), connection,
                new SingleClient(client), 0, 100, 10_000, 2, new SimpleCounter(), new SimpleCounter(),
                ChannelStateWriter.NO_OP, new java.util.ArrayDeque<>());
        gate.setInputChannels(channel);
        gate.setup();
        gate.requestPartitions();
        toClose.add(gate::close);
        return gate;
    }

    /** The next buffer or event of the gate, waiting at most {@link #WAIT_MS}. */
    private static BufferOrEvent nextOf(SingleInputGate gate) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (true) {
            Optional<BufferOrEvent> next = gate.pollNext();
            if (next.isPresent()) {
                return next.get();
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("nothing arrived within " + WAIT_MS + " ms");
            }
            try {
                gate.getAvailableFuture().get(left, TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("nothing arrived within " + WAIT_MS + " ms");
            }
        }
    }

    /** All data bytes until the end of the partition (buffers recycled as they are read). */
    private static ByteArrayOutputStream readUntilEnd(SingleInputGate gate) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int items = 0; items < 1_000_000; items++) {
            BufferOrEvent next = nextOf(gate);
            if (next.isBuffer()) {
                ByteBuffer data = next.getBuffer().getNioBufferReadable();
                byte[] chunk = new byte[data.remaining()];
                data.get(chunk);
                bytes.write(chunk);
                next.getBuffer().recycleBuffer();
            } else if (next.getEvent() instanceof EndOfPartitionEvent) {
                return bytes;
            }
        }
        throw new AssertionError("no end of partition after a million items");
    }

    /** Reads the child's output (log lines included) until {@code expected}; bounded by lines and by the child's end. */
    private static void awaitLine(BufferedReader out, String expected) throws IOException {
        for (int lines = 0; lines < 1_000; lines++) {
            String line = out.readLine();
            if (line == null) {
                throw new AssertionError("peer process ended before printing " + expected);
            }
            if (line.equals(expected)) {
                return;
            }
        }
        throw new AssertionError("no " + expected + " in 1000 lines");
    }

    private static Process startJava(Class<?> main, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx64m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /** Hands every channel the one ring client (the test builds no connection manager of its own). */
    private record SingleClient(PartitionRequestClient client) implements ConnectionManager {
        @Override
        public int start() {
            return -1;
        }

        @Override
        public PartitionRequestClient createPartitionRequestClient(ConnectionID connectionId) {
            return client;
        }

        @Override
        public void closeOpenChannelConnections(ConnectionID connectionId) {}

        @Override
        public int getNumberOfActiveConnections() {
            return 1;
        }

        @Override
        public void shutdown() {}
    }
}
