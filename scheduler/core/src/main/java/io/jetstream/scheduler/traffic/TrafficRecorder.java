package io.jetstream.scheduler.traffic;

import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.agrona.collections.Int2IntCounterMap;

/**
 * The online monitor of one task (TurboStream §V-D): counts tuples per target task and, every
 * monitoring window T, turns the counts and the CPU time of the task's thread into rates, smooths them
 * with the earlier windows (newest window weighs {@code smoothing}) and hands a {@link TaskTraffic}
 * to the sink.
 *
 * <p>Threading: every method is called from the task's executor thread. Counting allocates nothing;
 * the window roll-over (once per T) allocates the record. CPU time is read from the thread's clock and
 * attributed to whichever task of the executor rolls a window over, so an executor's tasks together
 * account for its thread's CPU once.
 */
public final class TrafficRecorder {
    /** Receives each window's record; called on the executor thread, so it should hand the I/O off. */
    public interface Sink {
        void accept(TaskTraffic traffic);
    }

    /** Smoothed rates below this (tuples per second) are dropped: the pair has stopped talking. */
    static final double NEGLIGIBLE_RATE = 1e-3;

    private final int taskId;
    private final long windowNanos;
    private final double smoothing;
    private final LongSupplier nanoClock;
    private final LongSupplier wallClockMillis;
    private final ThreadCpuClock cpuClock;
    private final Sink sink;
    private final Int2IntCounterMap counts = new Int2IntCounterMap(0);
    private final Map<Integer, Double> smoothed = new HashMap<>();
    private double smoothedCpu;
    private long windowStart;
    private boolean first = true;
    private boolean cpuStarted;

    /** The CPU clock of the calling thread, shared by the tasks of one executor. */
    public interface ThreadCpuClock {
        /** CPU nanoseconds the calling thread used since its previous call (by any task); 0 the first time. */
        long cpuNanosSinceLastCall();
    }

    public TrafficRecorder(int taskId, long windowNanos, double smoothing, LongSupplier nanoClock,
                           LongSupplier wallClockMillis, ThreadCpuClock cpuClock, Sink sink) {
        if (windowNanos <= 0) {
            throw new IllegalArgumentException("window must be > 0 ns: " + windowNanos);
        }
        if (!(smoothing > 0 && smoothing <= 1)) {
            throw new IllegalArgumentException("smoothing must be in (0, 1]: " + smoothing);
        }
        this.taskId = taskId;
        this.windowNanos = windowNanos;
        this.smoothing = smoothing;
        this.nanoClock = nanoClock;
        this.wallClockMillis = wallClockMillis;
        this.cpuClock = cpuClock;
        this.sink = sink;
        this.windowStart = nanoClock.getAsLong();
    }

    /** Counts one tuple to each of {@code targets}; then {@link #tick()}. */
    public void recordEmit(List<Integer> targets) {
        for (int i = 0, n = targets.size(); i < n; i++) {
            counts.incrementAndGet(targets.get(i));
        }
        tick();
    }

    /** Counts one tuple to {@code target}; then {@link #tick()}. */
    public void recordEmit(int target) {
        counts.incrementAndGet(target);
        tick();
    }

    /** Rolls the window over when it has ended; cheap otherwise (one clock read). */
    public void tick() {
        if (!cpuStarted) {
            // Constructed off the executor thread: the thread's CPU clock starts at the first call here.
            cpuClock.cpuNanosSinceLastCall();
            cpuStarted = true;
        }
        long now = nanoClock.getAsLong();
        long elapsed = now - windowStart;
        if (elapsed < windowNanos) {
            return;
        }
        double seconds = elapsed / 1e9;
        double alpha = first ? 1.0 : smoothing;
        for (Map.Entry<Integer, Double> e : smoothed.entrySet()) {
            e.setValue((1 - alpha) * e.getValue());
        }
        counts.forEach((target, count) -> smoothed.merge(target, alpha * count / seconds, Double::sum));
        counts.clear();
        for (Iterator<Map.Entry<Integer, Double>> it = smoothed.entrySet().iterator(); it.hasNext(); ) {
            if (it.next().getValue() < NEGLIGIBLE_RATE) {
                it.remove();
            }
        }
        double cpuRate = cpuClock.cpuNanosSinceLastCall() / seconds;
        smoothedCpu = first ? cpuRate : smoothing * cpuRate + (1 - smoothing) * smoothedCpu;
        first = false;
        windowStart = now;
        sink.accept(new TaskTraffic(taskId, wallClockMillis.getAsLong(), smoothedCpu, smoothed));
    }
}
