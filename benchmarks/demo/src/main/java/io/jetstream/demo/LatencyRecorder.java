package io.jetstream.demo;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Latencies of one run, in nanoseconds, kept in a preallocated array (the demo's jobs run in this
 * JVM, so sinks write here directly). Samples beyond the capacity are counted but not kept.
 *
 * <p>Thread-safe for concurrent {@link #record}; read after the run.
 */
final class LatencyRecorder {
    private final long[] samples;
    private final AtomicInteger next = new AtomicInteger();

    LatencyRecorder(int capacity) {
        samples = new long[capacity];
    }

    void record(long nanos) {
        int i = next.getAndIncrement();
        if (i < samples.length) {
            samples[i] = nanos;
        }
    }

    int count() {
        return Math.min(next.get(), samples.length);
    }

    /** The q-quantile (0..1) in milliseconds, or NaN without samples. */
    double quantileMillis(double q) {
        int n = count();
        if (n == 0) {
            return Double.NaN;
        }
        long[] sorted = Arrays.copyOf(samples, n);
        Arrays.sort(sorted);
        int index = (int) Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1));
        return sorted[index] / 1e6;
    }
}
