package io.jetstream.jstorm.transport;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import backtype.storm.messaging.IConnection;
import backtype.storm.messaging.TaskMessage;
import backtype.storm.utils.DisruptorQueue;
import backtype.storm.utils.Utils;
import com.alibaba.jstorm.client.ConfigExtension;
import com.alibaba.jstorm.daemon.worker.Flusher;
import com.alibaba.jstorm.daemon.worker.FlusherPool;
import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.harness.FreePorts;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import shade.storm.com.lmax.disruptor.BlockingWaitStrategy;
import shade.storm.com.lmax.disruptor.dsl.ProducerType;

/**
 * JetStream's JStorm context on loopback: two contexts in this JVM, as two workers — one binds with
 * its (still empty) per-task queue map and control queue, the other connects — exchanging tuples over
 * JetStream's own data path (the shared-memory ring, or TCP with the ring off), from several producer
 * threads at once as JStorm's serialize threads send; and over JStorm's own Netty context with the
 * {@code jstorm-netty} fallback. (JStorm's local mode runs all tasks in one worker and never uses the
 * transport, so this is the in-JVM way to drive it.)
 */
class JetStreamJStormContextTest {
    private static final int TASK = 1;
    private static final int OTHER_TASK = 2;

    @TempDir
    Path ringDirectory;

    @SuppressWarnings("unchecked")
    private static Map<String, Object> workerConf(int port) {
        Map<String, Object> conf = new HashMap<>((Map<String, Object>) Utils.readDefaultConfig());
        // A JStorm worker puts its own identity into its configuration before creating the context.
        ConfigExtension.setLocalWorkerPort(conf, port);
        ConfigExtension.setLocalWorkerId(conf, "worker-" + port);
        return conf;
    }

    private Map<String, Object> jetstreamConf(int port, boolean ring) {
        Map<String, Object> conf = workerConf(port);
        conf.put("jetstream.transport.ring.enabled", ring);
        conf.put("jetstream.ring.directory", ringDirectory.toString());
        conf.put("jetstream.transport.bind-address", "127.0.0.1");
        return conf;
    }

    private static DisruptorQueue queue(String name, int size) {
        return DisruptorQueue.mkInstance(name, ProducerType.MULTI, size, new BlockingWaitStrategy(), false, 0, 0);
    }

    private static void awaitAvailable(IConnection client) {
        await("client available").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(2))
                .until(client::available);
    }

    /** Consumes as a JStorm executor does (consumeBatchWhenAvailable, which also drains the overflow cache first). */
    private static List<Object> drain(DisruptorQueue queue, int count, long seconds) {
        List<Object> received = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (received.size() < count && System.nanoTime() < deadline) {
            if (queue.population() > 0 || queue.cacheSize() > 0) {
                queue.consumeBatchWhenAvailable((item, sequence, endOfBatch) -> received.add(item));
            } else {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
        }
        return received;
    }

    private static byte[] payload(int producer, int i) {
        return ByteBuffer.allocate(8).putInt(producer).putInt(i).array();
    }

    private static Set<String> jetstreamThreads() {
        Set<String> names = new HashSet<>();
        Thread.getAllStackTraces().keySet().forEach(t -> {
            if (t.isAlive() && t.getName().toLowerCase().contains("jetstream")) {
                names.add(t.getName());
            }
        });
        return names;
    }

    @ParameterizedTest(name = "ring {0}")
    @ValueSource(booleans = {true, false})
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void tuplesFromManyProducerThreadsCrossWorkersOverJetStream(boolean ring) throws Exception {
        Set<String> threadsBefore = jetstreamThreads();
        int port = FreePorts.unused();
        JetStreamJStormContext receiving = new JetStreamJStormContext();
        receiving.prepare(jetstreamConf(port, ring));
        JetStreamJStormContext sending = new JetStreamJStormContext();
        sending.prepare(jetstreamConf(FreePorts.unused(), ring));
        DisruptorQueue taskQueue = queue("task-" + TASK, 1024);
        DisruptorQueue controlQueue = queue("control", 256);
        // As a JStorm worker does: bind with the worker's (still empty) map, then each task puts its
        // queue there when it starts; the server delivers once every task of the worker has one.
        ConcurrentHashMap<Integer, DisruptorQueue> queues = new ConcurrentHashMap<>();
        IConnection server = receiving.bind("topo-1", port, queues, controlQueue, false, Set.of(TASK));
        IConnection client = sending.connect("topo-1", "127.0.0.1", port);
        try {
            awaitAvailable(client);
            int producers = 4;
            int perProducer = 5_000;
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                int producer = p;
                Thread t = new Thread(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < perProducer; i++) {
                        if (i % 10 == 9) { // the transfer drainer's path: a list
                            client.send(List.of(new TaskMessage(TASK, payload(producer, i))));
                        } else { // a serialize thread's path: one message
                            client.send(new TaskMessage(TASK, payload(producer, i)));
                        }
                    }
                }, "producer-" + p);
                t.start();
                threads.add(t);
            }
            start.countDown();
            // The control drainer's path: a CONTROL message, which must reach the control queue as such.
            client.send(new TaskMessage(TaskMessage.CONTROL_MESSAGE, OTHER_TASK, "ctl".getBytes(StandardCharsets.UTF_8)));
            // The task registers its queue only once batches have reached the server: it holds them until then.
            JetStreamJStormServer jsServer = (JetStreamJStormServer) server;
            await("batches at the server before the task's queue is registered").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(2)).until(() -> jsServer.receiver().metrics().batchesReceived() > 0);
            assertEquals(0, receiving.meters().received().records(), "nothing delivered while the task has no queue");
            queues.put(TASK, taskQueue);

            List<Object> received = drain(taskQueue, producers * perProducer, 60);
            for (Thread t : threads) {
                t.join(10_000);
            }
            assertEquals(producers * perProducer, received.size(), () -> "received " + received.size() + "; " + receiving.meters());
            int[] next = new int[producers];
            for (Object item : received) {
                ByteBuffer b = ByteBuffer.wrap((byte[]) item);
                int producer = b.getInt();
                int i = b.getInt();
                assertEquals(next[producer]++, i, "producer " + producer + "'s tuples in the order it sent them");
            }
            List<Object> control = drain(controlQueue, 1, 10);
            assertEquals(1, control.size(), "the control message");
            TaskMessage ctl = assertInstanceOf(TaskMessage.class, control.get(0));
            assertEquals(TaskMessage.CONTROL_MESSAGE, ctl.get_type());
            assertEquals(OTHER_TASK, ctl.task());
            assertArrayEquals("ctl".getBytes(StandardCharsets.UTF_8), ctl.message());

            long total = producers * perProducer + 1L;
            assertEquals(total, sending.meters().sent().records());
            assertEquals(total, receiving.meters().received().records());
            assertEquals(sending.meters().sent().bytes(), receiving.meters().received().bytes());
            assertEquals(0, sending.meters().dropped());
            assertEquals(0, receiving.meters().overflowed());
            JetStreamJStormClient jsClient = (JetStreamJStormClient) client;
            long[] routes = jsServer.routeBatches();
            assertEquals(ring, jsClient.stream().metrics().ringBatches() > 0, "same-host workers over the ring: " + ring);
            assertEquals(ring ? 0 : jsClient.stream().metrics().batchesSent(), routes[1], "TCP batches the receiver saw");
            assertEquals(ring ? jsClient.stream().metrics().ringBatches() : 0, routes[0], "ring batches the receiver saw");
            assertTrue(jsClient.stream().metrics().batchesSealed() < total, "tuples travelled in batches: "
                    + jsClient.stream().metrics());
            JetStreamJStormContext.ProcessTotals totals = JetStreamJStormContext.processTotals();
            assertTrue(totals.receivedRecords() >= total && (ring ? totals.ringBatches() : totals.tcpBatches()) > 0, totals::toString);
        } finally {
            client.close();
            server.close();
            sending.term();
            receiving.term();
        }
        assertTrue(client.isClosed() && server.isClosed());
        // term() leaves no thread, socket or shared-memory file behind.
        // Polled in this thread: Awaitility's own thread would be named after the alias.
        await("no JetStream thread left after term()").pollInSameThread().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> leftOver(jetstreamThreads(), threadsBefore), Set::isEmpty);
        try (Stream<Path> files = Files.exists(ringDirectory) ? Files.walk(ringDirectory).filter(Files::isRegularFile) : Stream.empty()) {
            assertEquals(List.of(), files.toList(), "ring files left after term()");
        }
        try (java.net.ServerSocket again = new java.net.ServerSocket(port)) {
            assertEquals(port, again.getLocalPort(), "the server's port is free again");
        }
    }

    private static Set<String> leftOver(Set<String> now, Set<String> before) {
        Set<String> left = new HashSet<>(now);
        left.removeAll(before);
        return left;
    }

    @ParameterizedTest(name = "deliver-wait-ms {0}")
    @ValueSource(longs = {60_000, 0})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aFullTaskQueuePushesBackOrOverflowsWithoutLosingTuples(long deliverWaitMs) throws Exception {
        int port = FreePorts.unused();
        Map<String, Object> conf = jetstreamConf(port, false);
        conf.put("jetstream.jstorm.deliver-wait-ms", deliverWaitMs);
        conf.put("jetstream.transport.memory-bytes", 64 * 1024);
        conf.put("jetstream.transport.window-bytes", 16 * 1024);
        JetStreamJStormContext receiving = new JetStreamJStormContext();
        receiving.prepare(conf);
        JetStreamJStormContext sending = new JetStreamJStormContext();
        Map<String, Object> senderConf = jetstreamConf(FreePorts.unused(), false);
        // The sender waits in send() for as long as the test may take: a send that gave up would drop (counted)
        // what JStorm's acking replays, which this test does not run.
        senderConf.putAll(Map.of("jetstream.transport.memory-bytes", 64 * 1024, "jetstream.transport.window-bytes", 16 * 1024,
                "jetstream.jstorm.send-wait-ms", 60_000L));
        sending.prepare(senderConf);
        DisruptorQueue taskQueue = queue("task-" + TASK, 16);
        ConcurrentHashMap<Integer, DisruptorQueue> queues = new ConcurrentHashMap<>(Map.of(TASK, taskQueue));
        IConnection server = receiving.bind("topo-1", port, queues, queue("control", 16), true, Set.of(TASK));
        IConnection client = sending.connect("topo-1", "127.0.0.1", port);
        try {
            awaitAvailable(client);
            int count = 20_000;
            AtomicBoolean sawPushBack = new AtomicBoolean();
            Thread producer = new Thread(() -> {
                for (int i = 0; i < count; i++) {
                    client.send(new TaskMessage(TASK, payload(0, i)));
                }
            });
            producer.start();
            // The task is busy (nothing drains its queue of 16) until the queue is full and the transport
            // has had to act on it: pushed the sender back (the producer waits in send() and the connection
            // is not available), or (deliver-wait-ms 0) overflowed.
            await(deliverWaitMs > 0 ? "a full task queue and the sender pushed back" : "a full task queue overflowing")
                    .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(2))
                    .until(() -> taskQueue.population() == 16 && (deliverWaitMs > 0
                            ? pushedBack(client, sawPushBack) : receiving.meters().overflowed() > 0));
            List<Object> received = drain(taskQueue, count, 40);
            producer.join(10_000);
            assertEquals(count, received.size(), () -> receiving.meters() + " / " + sending.meters());
            Set<Integer> distinct = new HashSet<>();
            received.forEach(item -> distinct.add(ByteBuffer.wrap((byte[]) item).getInt(4)));
            assertEquals(count, distinct.size(), "every tuple once");
            assertEquals(0, sending.meters().dropped());
            if (deliverWaitMs > 0) {
                assertTrue(sawPushBack.get(), "the sender was pushed back (available() false) while the task queue was full");
                assertEquals(0, receiving.meters().overflowed(), "nothing overflowed while the receiver may wait");
                for (int i = 0; i < count; i++) {
                    assertEquals(i, ByteBuffer.wrap((byte[]) received.get(i)).getInt(4), "order kept");
                }
            } else {
                assertTrue(receiving.meters().overflowed() > 0, "with deliver-wait-ms 0 a full queue overflows at once");
            }
        } finally {
            client.close();
            server.close();
            sending.term();
            receiving.term();
        }
    }

    private static boolean pushedBack(IConnection client, AtomicBoolean sawPushBack) {
        if (!client.available()) {
            sawPushBack.set(true);
        }
        return sawPushBack.get();
    }

    @ParameterizedTest(name = "ring {0}")
    @ValueSource(booleans = {true, false})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void closeDeliversWhatWasHandedOverAndLaterSendsAreCountedAsDropped(boolean ring) throws Exception {
        // Fixed batches of 1 MiB or 10 s, and the policy decides at the end of a burst: nothing leaves on its own.
        try (Connected c = new Connected(ring, Map.of("jetstream.batch.max-event-delay-ms", 10_000L,
                "jetstream.batch.fixed.target-bytes", 1 << 20, "jetstream.jstorm.send-flush", "batch-policy"))) {
            awaitAvailable(c.client);
            int count = 1_000;
            for (int i = 0; i < count; i++) {
                c.client.send(new TaskMessage(TASK, payload(0, i)));
            }
            assertEquals(0, c.taskQueue.population(), "held by the batch policy until close()");
            c.client.close();
            assertTrue(c.client.isClosed());
            assertEquals(count, drain(c.taskQueue, count, 10).size(), "close() delivered what was handed over");
            c.client.send(new TaskMessage(TASK, payload(0, count)));
            assertEquals(1, c.sending.meters().dropped(), "a send() after close() is dropped and counted");
            assertFalse(c.client.available());
        }
    }

    /**
     * The default {@code send-flush} (each-send-on-ring): over the ring a burst leaves at its end; over
     * TCP the fixed policy (a JStorm worker's default mode) holds it for its deadline (30 s here, so only
     * close() sends it).
     */
    @ParameterizedTest(name = "ring {0}")
    @ValueSource(booleans = {true, false})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void byDefaultABurstLeavesAtItsEndOnTheRingAndWaitsForTheBatchPolicyOverTcp(boolean ring) throws Exception {
        try (Connected c = new Connected(ring, Map.of("jetstream.batch.max-event-delay-ms", 30_000L,
                "jetstream.batch.fixed.target-bytes", 1 << 20))) {
            awaitAvailable(c.client);
            c.client.send(List.of(new TaskMessage(TASK, payload(0, 0)), new TaskMessage(TASK, payload(0, 1))));
            if (ring) {
                assertEquals(2, drain(c.taskQueue, 2, 5).size(), "the burst left at its end over the ring, not at the 30 s deadline");
            } else {
                assertEquals(0, drain(c.taskQueue, 1, 1).size(), "over TCP the burst waits for the batch policy's 30 s deadline");
                c.client.close();
                assertEquals(2, drain(c.taskQueue, 2, 10).size(), "close() sent it");
            }
        }
    }

    /** A receiving and a sending context on loopback, the sender's configuration amended, one connection and task queue between them. */
    private final class Connected implements AutoCloseable {
        final JetStreamJStormContext receiving = new JetStreamJStormContext();
        final JetStreamJStormContext sending = new JetStreamJStormContext();
        final DisruptorQueue taskQueue = queue("task-" + TASK, 4096);
        final IConnection server;
        final IConnection client;

        Connected(boolean ring, Map<String, Object> senderSettings) {
            int port = FreePorts.unused();
            receiving.prepare(jetstreamConf(port, ring));
            Map<String, Object> senderConf = jetstreamConf(FreePorts.unused(), ring);
            senderConf.putAll(senderSettings);
            sending.prepare(senderConf);
            server = receiving.bind("topo-1", port, new ConcurrentHashMap<>(Map.of(TASK, taskQueue)), queue("control", 16), true,
                    Set.of(TASK));
            client = sending.connect("topo-1", "127.0.0.1", port);
        }

        @Override
        public void close() {
            client.close();
            server.close();
            sending.term();
            receiving.term();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void jstormNettyFallbackMovesTuplesThroughJStormsOwnContextAndCountsThem() throws Exception {
        // A JStorm worker installs the process-wide flusher pool its Netty clients schedule on.
        FlusherPool flushers = new FlusherPool(1, 2, 30, TimeUnit.SECONDS);
        Flusher.setFlusherPool(flushers);
        int port = FreePorts.unused();
        Map<String, Object> conf = workerConf(6800);
        conf.put("jetstream.jstorm.data-path", "jstorm-netty");
        JetStreamJStormContext context = new JetStreamJStormContext();
        context.prepare(conf);
        DisruptorQueue taskQueue = queue("task-" + TASK, 4096);
        ConcurrentHashMap<Integer, DisruptorQueue> queues = new ConcurrentHashMap<>();
        IConnection server = context.bind("topo-1", port, queues, queue("control", 256), true, Set.of(TASK));
        queues.put(TASK, taskQueue);
        IConnection client = context.connect("topo-1", "127.0.0.1", port);
        try {
            assertInstanceOf(JetStreamJStormConnection.class, client, "JStorm's Netty client, counted");
            // JStorm's client may drop what it is given before it is available.
            awaitAvailable(client);
            int count = 2_000;
            List<TaskMessage> batch = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                batch.add(new TaskMessage(TASK, ("m" + i).getBytes(StandardCharsets.UTF_8)));
                if (batch.size() == 100) {
                    client.send(batch);
                    batch = new ArrayList<>();
                }
            }
            List<Object> received = drain(taskQueue, count, 30);
            assertEquals(count, received.size(), () -> "received " + received.size() + "; JetStream counted " + context.meters());
            for (int i = 0; i < count; i++) {
                assertArrayEquals(("m" + i).getBytes(StandardCharsets.UTF_8), (byte[]) received.get(i), "message " + i);
            }
            assertEquals(count, context.sent().records());
            assertEquals(count, context.received().records());
            assertEquals(context.sent().bytes(), context.received().bytes());
            assertEquals(0, context.meters().ringBatches() + context.meters().tcpBatches(), "JetStream's own path carried nothing");
        } finally {
            client.close();
            server.close();
            context.term();
            flushers.shutdown();
        }
    }

    @Test
    void unknownDataPathIsRefusedWithTheKeyNamed() {
        Map<String, Object> conf = workerConf(6800);
        conf.put("jetstream.jstorm.data-path", "zmq");
        InvalidConfigurationException e = assertThrows(
                InvalidConfigurationException.class, () -> new JetStreamJStormContext().prepare(conf));
        assertEquals("jetstream.jstorm.data-path", e.key());
        assertTrue(e.getMessage().contains("zmq"), e.getMessage());
        assertFalse(e.getMessage().isEmpty());
    }

    @Test
    void taskAndTypeShareTheRecordTarget() {
        for (short type : new short[] {TaskMessage.NORMAL_MESSAGE, TaskMessage.CONTROL_MESSAGE, TaskMessage.BACK_PRESSURE_REQUEST}) {
            for (int task : new int[] {0, 1, 65_535, JStormMessages.MAX_TASK}) {
                int target = JStormMessages.target(type, task);
                assertTrue(target >= 0);
                assertEquals(type, JStormMessages.type(target));
                assertEquals(task, JStormMessages.task(target));
            }
        }
        assertEquals(7, JStormMessages.target(TaskMessage.NORMAL_MESSAGE, 7), "a normal tuple's target is its task");
        assertThrows(IllegalArgumentException.class, () -> JStormMessages.target((short) 0, -1));
        assertThrows(IllegalArgumentException.class, () -> JStormMessages.target((short) 0, 1 << 24));
    }
}
