package io.jetstream.benchmarks.jstorm.send;

import backtype.storm.messaging.IConnection;
import backtype.storm.messaging.TaskMessage;
import backtype.storm.utils.DisruptorQueue;
import backtype.storm.utils.Utils;
import com.alibaba.jstorm.client.ConfigExtension;
import io.jetstream.harness.FreePorts;
import io.jetstream.jstorm.transport.JetStreamJStormContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import shade.storm.com.lmax.disruptor.BlockingWaitStrategy;
import shade.storm.com.lmax.disruptor.EventHandler;
import shade.storm.com.lmax.disruptor.dsl.ProducerType;

/**
 * What a JStorm worker's sending thread pays per tuple in JetStream's JStorm client
 * ({@code IConnection.send}): two JetStream JStorm contexts in this JVM, as two workers, built and
 * connected through JStorm's own messaging interface ({@code IContext.prepare}, {@code bind},
 * {@code connect}), over the shared-memory ring or TCP loopback; the receiving worker's server
 * delivers into a real JStorm receive queue, which a consumer thread drains as a task's executor
 * does. The sending thread hands in ready {@link TaskMessage}s, so the score is the client's cost
 * alone, not JStorm's serialization.
 *
 * <ul>
 *   <li>{@link #sendOne}: {@code send(TaskMessage)}, one call per tuple, the path of JStorm 2.2.1's
 *       serialize threads ({@code TaskTransfer}).
 *   <li>{@link #sendList}: {@code send(List)} of {@value #BURST} tuples, the transfer drainer's path;
 *       the score is per tuple.
 * </ul>
 *
 * <p>A send that meets back-pressure waits inside the client (as a worker's thread does), so the
 * score is the sending thread's time per accepted tuple; a tuple the client gave up on fails the
 * trial at tear-down rather than count as sent. Run with {@code -prof gc} for the bytes allocated
 * per tuple:
 *
 * <pre>
 * java -jar benchmarks/jstorm/target/jstorm-benchmarks.jar JStormSendBenchmark -prof gc
 * </pre>
 *
 * <p>State per thread; one sending thread (a JStorm worker has several, which then share the
 * connection's monitor).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "-Dio.jetstream.shaded.io.netty.leakDetection.level=disabled"})
public class JStormSendBenchmark {
    /** Tuples per {@code send(List)}. */
    public static final int BURST = 40;
    private static final int TASK = 1;
    private static final String TOPOLOGY = "jstorm-send-bench";

    @Param({"ring", "tcp"})
    public String path;

    @Param({"64"})
    public int size;

    private Path rings;
    private JetStreamJStormContext receiving;
    private JetStreamJStormContext sending;
    private IConnection server;
    private IConnection client;
    private TaskQueueConsumer consumer;
    private TaskMessage one;
    private List<TaskMessage> burst;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        rings = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of("/tmp"),
                "jstorm-send-bench-");
        int port = FreePorts.unused();
        receiving = new JetStreamJStormContext();
        receiving.prepare(workerConf(port));
        sending = new JetStreamJStormContext();
        sending.prepare(workerConf(FreePorts.unused()));

        DisruptorQueue taskQueue = DisruptorQueue.mkInstance("task-" + TASK, ProducerType.MULTI, 64 * 1024,
                new BlockingWaitStrategy(), false, 0, 0);
        server = receiving.bind(TOPOLOGY, port, new ConcurrentHashMap<>(Map.of(TASK, taskQueue)), null, true, Set.of(TASK));
        consumer = new TaskQueueConsumer(taskQueue);
        consumer.start();
        client = sending.connect(TOPOLOGY, "127.0.0.1", port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!client.available()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the JStorm client did not connect to 127.0.0.1:" + port + " within 10 s");
            }
            LockSupport.parkNanos(1_000_000);
        }

        byte[] payload = new byte[size];
        one = new TaskMessage(TASK, payload);
        burst = new ArrayList<>(BURST);
        for (int i = 0; i < BURST; i++) {
            burst.add(new TaskMessage(TASK, payload));
        }
    }

    /** One worker's configuration, as a JStorm worker has it when it creates its messaging context. */
    @SuppressWarnings("unchecked")
    private Map<String, Object> workerConf(int port) {
        Map<String, Object> conf = new HashMap<>((Map<String, Object>) Utils.readDefaultConfig());
        ConfigExtension.setLocalWorkerPort(conf, port);
        ConfigExtension.setLocalWorkerId(conf, "worker-" + port);
        conf.put("jetstream.transport.ring.enabled", path.equals("ring"));
        conf.put("jetstream.ring.directory", rings.toString());
        conf.put("jetstream.transport.bind-address", "127.0.0.1");
        // Wait out back-pressure rather than drop: a dropped tuple would be scored as a cheap send.
        conf.put("jetstream.jstorm.send-wait-ms", 60_000L);
        return conf;
    }

    @Benchmark
    public void sendOne() {
        client.send(one);
    }

    @Benchmark
    @OperationsPerInvocation(BURST)
    public void sendList() {
        client.send(burst);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        long dropped = sending.meters().dropped();
        try {
            client.close(); // the sender first: it delivers what it holds, then leaves
            sending.term();
            server.close();
            consumer.halt();
            receiving.term();
        } finally {
            try (Stream<Path> files = Files.walk(rings)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        if (dropped > 0) {
            throw new IllegalStateException(dropped + " tuples dropped by the client (the receiver pushed back for longer "
                    + "than jetstream.jstorm.send-wait-ms): the score counts them as sent; " + sending.meters());
        }
    }

    /**
     * The receiving task's executor: drains its receive queue as fast as tuples arrive.
     *
     * <p>Threading: its own thread consumes; {@link #halt} from the benchmark's thread.
     */
    private static final class TaskQueueConsumer extends Thread {
        private final DisruptorQueue queue;
        /** What the executor does with a tuple here: nothing (one instance, so draining allocates nothing). */
        private final EventHandler<Object> discard = (item, sequence, endOfBatch) -> { };
        private volatile boolean running = true;

        TaskQueueConsumer(DisruptorQueue queue) {
            super("jstorm-send-bench-consumer");
            setDaemon(true);
            this.queue = queue;
        }

        @Override
        public void run() {
            while (running) {
                if (queue.population() > 0 || queue.cacheSize() > 0) {
                    queue.consumeBatch(discard);
                } else {
                    LockSupport.parkNanos(20_000);
                }
            }
        }

        void halt() throws InterruptedException {
            running = false;
            join(10_000);
        }
    }
}
