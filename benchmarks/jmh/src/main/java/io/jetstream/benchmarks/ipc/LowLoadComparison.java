package io.jetstream.benchmarks.ipc;

import io.jetstream.benchmarks.PeerProcess;
import io.jetstream.harness.LatencySummary;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * Low load, default settings: one 64-byte message per millisecond to an echo JVM, over the ring
 * (the echo consumer idling with the default back-off strategy of {@code ring.idle.*}) and over
 * Netty epoll, in one run. Reports round-trip percentiles and the CPU the echo JVM used, as a
 * fraction of one core. Not a JMH benchmark because the pacing is the point.
 *
 * <pre>java -cp benchmarks/jmh/target/benchmarks.jar --add-exports java.base/jdk.internal.misc=ALL-UNNAMED \
 *   io.jetstream.benchmarks.ipc.LowLoadComparison [seconds]</pre>
 */
@Command(name = "LowLoadComparison", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Round trips at one 64-byte message per millisecond: the ring against Netty epoll, and the echo JVM's CPU.")
public final class LowLoadComparison implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", paramLabel = "SECONDS", description = "Seconds per transport.")
    private int seconds = 10;

    public static void main(String[] args) {
        System.exit(new CommandLine(new LowLoadComparison()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        int size = 64;
        System.out.printf(Locale.ROOT, "Low load: %d-byte messages, 1 per ms, %d s per transport%n", size, seconds);
        System.out.printf(Locale.ROOT, "%-8s %10s %10s %10s %14s%n", "path", "p50 us", "p99 us", "p99.9 us", "echo CPU %core");
        double[] ring = run(IpcEndpoints.ring(size, false), seconds);
        double[] netty = run(IpcEndpoints.netty(size), seconds);
        print("ring", ring);
        print("netty", netty);
        System.out.printf(Locale.ROOT, "ring/netty p50 ratio: %.3f%n", ring[0] / netty[0]);
        return 0;
    }

    private static void print(String name, double[] r) {
        System.out.printf(Locale.ROOT, "%-8s %10.1f %10.1f %10.1f %14.2f%n", name, r[0], r[1], r[2], r[3]);
    }

    private static double[] run(IpcEndpoints endpoints, int seconds) {
        try (endpoints) {
            PeerProcess peer = endpoints instanceof IpcEndpoints.Ring r ? r.peer() : ((IpcEndpoints.Netty) endpoints).peer();
            for (int i = 0; i < 2_000; i++) {
                endpoints.roundTrip(); // warm up
            }
            int count = seconds * 1000;
            long[] rtt = new long[count];
            Duration cpuBefore = peer.cpu();
            long wallBefore = System.nanoTime();
            long next = System.nanoTime();
            for (int i = 0; i < count; i++) {
                next += TimeUnit.MILLISECONDS.toNanos(1);
                long wait;
                while ((wait = next - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(wait);
                }
                long start = System.nanoTime();
                endpoints.roundTrip();
                rtt[i] = System.nanoTime() - start;
            }
            double wall = System.nanoTime() - wallBefore;
            double cpu = peer.cpu().minus(cpuBefore).toNanos();
            LatencySummary latency = LatencySummary.of(rtt);
            return new double[] {latency.p50Micros(), latency.p99Micros(), latency.p999Micros(), 100 * cpu / wall};
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
