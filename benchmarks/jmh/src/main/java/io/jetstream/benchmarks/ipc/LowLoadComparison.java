package io.jetstream.benchmarks.ipc;

import io.jetstream.benchmarks.PeerProcess;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Low load, default settings: one 64-byte message per millisecond to an echo JVM, over the ring
 * (the echo consumer idling with the default back-off strategy of {@code ring.idle.*}) and over
 * Netty epoll, in one run. Reports round-trip percentiles and the CPU the echo JVM used, as a
 * fraction of one core. Not a JMH benchmark because the pacing is the point.
 *
 * <pre>java -cp benchmarks/jmh/target/benchmarks.jar --add-exports java.base/jdk.internal.misc=ALL-UNNAMED \
 *   io.jetstream.benchmarks.ipc.LowLoadComparison [seconds]</pre>
 */
public final class LowLoadComparison {
    private LowLoadComparison() {}

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int size = 64;
        System.out.printf(Locale.ROOT, "Low load: %d-byte messages, 1 per ms, %d s per transport%n", size, seconds);
        System.out.printf(Locale.ROOT, "%-8s %10s %10s %10s %14s%n", "path", "p50 us", "p99 us", "p99.9 us", "echo CPU %core");
        double[] ring = run(IpcEndpoints.ring(size, false), seconds);
        double[] netty = run(IpcEndpoints.netty(size), seconds);
        print("ring", ring);
        print("netty", netty);
        System.out.printf(Locale.ROOT, "ring/netty p50 ratio: %.3f%n", ring[0] / netty[0]);
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
            Arrays.sort(rtt);
            return new double[] {
                rtt[count / 2] / 1e3, rtt[(int) (count * 0.99)] / 1e3, rtt[(int) (count * 0.999)] / 1e3, 100 * cpu / wall
            };
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
