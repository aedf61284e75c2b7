package io.jetstream.flink.shuffle;

import io.jetstream.flink.flush.FlushScheduler;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Watches the flusher threads of flush control (one per TaskManager, {@link FlushScheduler}) while a
 * job runs in the test's MiniCluster: how many were alive at most, and the CPU time each used, sampled
 * every 20 ms by a thread of its own until closed. A thread's CPU time is kept at its last sample, so a
 * thread that ended between two samples loses at most 20 ms of it.
 */
final class FlusherThreads implements AutoCloseable {
    private static final String PREFIX = "jetstream-flusher-" + FlushScheduler.THREAD_NAME_PART;

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "flusher-thread-sampler");
        t.setDaemon(true);
        return t;
    });
    private final Map<Long, Long> cpuNanosByThread = new ConcurrentHashMap<>();
    private final AtomicInteger mostAlive = new AtomicInteger();
    private final long startNanos = System.nanoTime();
    private volatile long wallNanos = -1;

    private FlusherThreads() {}

    /** Starts sampling now. */
    static FlusherThreads watch() {
        FlusherThreads watch = new FlusherThreads();
        watch.sampler.scheduleAtFixedRate(watch::sample, 0, 20, TimeUnit.MILLISECONDS);
        return watch;
    }

    /** The flusher threads alive now. */
    static List<Thread> alive() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith(PREFIX) && t.isAlive())
                .toList();
    }

    private void sample() {
        List<Thread> alive = alive();
        mostAlive.accumulateAndGet(alive.size(), Math::max);
        for (Thread t : alive) {
            long cpu = threads.getThreadCpuTime(t.getId());
            if (cpu >= 0) {
                cpuNanosByThread.put(t.getId(), cpu);
            }
        }
    }

    /** The most flusher threads seen alive at once. */
    int mostAlive() {
        return mostAlive.get();
    }

    /** CPU time the flusher threads used together over the wall time watched (1.0 = one core all along). */
    double cpuShareOfOneCore() {
        long wall = wallNanos > 0 ? wallNanos : System.nanoTime() - startNanos;
        return cpuNanosByThread.values().stream().mapToLong(Long::longValue).sum() / (double) wall;
    }

    /** Takes a last sample and stops watching. */
    @Override
    public void close() throws InterruptedException {
        sampler.shutdown();
        if (!sampler.awaitTermination(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the flusher thread sampler did not stop within 10 s");
        }
        sample();
        wallNanos = System.nanoTime() - startNanos;
    }
}
