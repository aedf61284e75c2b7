package io.jetstream.benchmarks.ipc;

import io.jetstream.core.ring.RecordHandler;
import io.jetstream.core.ring.RingConsumer;
import io.jetstream.core.ring.RingProducer;
import io.jetstream.core.ring.RingSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * The ring's own code path without a second process: one thread writes a record into a ring
 * (claim, copy, commit) and polls it back (read, hand to the handler, free), in a file under
 * {@code /dev/shm} as between JVMs. With no other process and no wake-up to wait for, what is left
 * is the ring's memory accesses (the buffer library's ordered and volatile stores and loads, and
 * copies): the part a change of that library can move, measured without the cross-process placement
 * noise of {@link IpcRoundTripBenchmark} and {@link IpcThroughputBenchmark}.
 *
 * <p>State is per thread; one thread per fork.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
public class RingCodePathBenchmark {
    @Param({"64", "1024", "16384"})
    public int size;

    private Path dir;
    private RingConsumer consumer;
    private RingProducer producer;
    private UnsafeBuffer payload;
    private Blackhole sink;
    private final RecordHandler handler = this::onRecord;

    @Setup(Level.Trial)
    public void setUp(Blackhole blackhole) throws IOException {
        Path shm = Path.of("/dev/shm");
        dir = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")), "ring-code-path-");
        RingSettings settings = IpcPeerMain.settings(dir, 1 << 22, 1 << 16);
        try {
            consumer = RingConsumer.create(settings, "bench");
            producer = RingProducer.attach(settings, "bench");
        } catch (RuntimeException | Error e) { // JMH runs no tear-down after a failed set-up: leave nothing in /dev/shm
            tearDown();
            throw e;
        }
        payload = new UnsafeBuffer(new byte[size]);
        sink = blackhole;
    }

    @Benchmark
    public int writeThenRead() {
        if (!producer.offer(7, payload, 0, size)) {
            throw new IllegalStateException("the ring refused a record although it was drained");
        }
        return consumer.poll(handler, 1);
    }

    private void onRecord(int target, DirectBuffer buffer, int offset, int length) {
        sink.consume(buffer.getLong(offset + length - 8));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        if (producer != null) {
            producer.close();
        }
        if (consumer != null) {
            consumer.close();
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
