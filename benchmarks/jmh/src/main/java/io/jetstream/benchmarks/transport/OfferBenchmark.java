package io.jetstream.benchmarks.transport;

import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.Transport;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a producer pays per record in {@link OutboundStream#offer} (an engine's per-tuple call):
 * one stream to a receiver in this JVM, over the shared-memory ring or TCP loopback, records offered
 * back to back by one thread, each {@code endOfSend} after {@code perSend} records as Storm's
 * transfer thread does. A refused offer (the stream's memory is full) is retried and counted in the
 * same operation, so the score is the producer's time per accepted record. Run with
 * {@code -prof gc} for the bytes allocated per record.
 *
 * <pre>
 * java -jar benchmarks/jmh/target/benchmarks.jar OfferBenchmark -prof gc -f 2
 * </pre>
 *
 * <p>State per thread; one producer thread (the stream's contract).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled", "-Xmx1g"})
public class OfferBenchmark {
    @Param({"ring", "tcp"})
    public String path;

    @Param({"64"})
    public int size;

    @Param({"40"})
    public int perSend;

    private Path rings;
    private Transport receiving;
    private Transport sending;
    private OutboundStream stream;
    private byte[] record;
    private int inSend;
    private final AtomicLong delivered = new AtomicLong();

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        rings = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of("/tmp"), "offer-bench-");
        Map<String, Object> raw = new HashMap<>();
        raw.put("jetstream.transport.ring.enabled", path.equals("ring"));
        raw.put("jetstream.ring.directory", rings.toString());
        TransportSettings settings = TransportSettings.from(JetStreamConfig.load(ConfigScope.STORM, raw, TransportSettings.GROUPS));
        receiving = Transport.start(settings, "bench-receiver");
        int port = receiving.bind(0, (key, sequence, batch) -> delivered.addAndGet(batch.count()), target -> true,
                SequenceStore.inMemory()).localAddress().getPort();
        sending = Transport.start(settings, "bench-sender");
        stream = sending.openSender("offer", new InetSocketAddress("127.0.0.1", port), ControlListener.NONE);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!stream.isReady()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the stream did not connect within 10 s");
            }
            LockSupport.parkNanos(1_000_000);
        }
        record = new byte[size];
    }

    @Benchmark
    public int offer() {
        int result;
        while ((result = stream.offer(7, record, 0, record.length)) == OutboundStream.BACK_PRESSURED) {
            Thread.onSpinWait();
        }
        if (++inSend == perSend) {
            inSend = 0;
            stream.endOfSend();
        }
        return result;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        stream.close();
        sending.close();
        receiving.close();
        try (var files = Files.walk(rings)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
