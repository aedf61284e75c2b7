package io.jetstream.core.internal.qos;

/**
 * The running average of the measurements fresher than a window (Nephele §3.3: "keep all latency
 * measurement data fresher than t time units"), over a bounded ring of samples.
 *
 * <p>Not thread-safe: owned by the QoS manager's thread.
 */
final class WindowedMean {
    private final long[] times;
    private final double[] values;
    private int next;
    private int size;

    WindowedMean(int capacity) {
        times = new long[capacity];
        values = new double[capacity];
    }

    void add(long nowNanos, double value) {
        times[next] = nowNanos;
        values[next] = value;
        next = (next + 1) % times.length;
        size = Math.min(size + 1, times.length);
    }

    /** Mean of samples taken after {@code sinceNanos}; NaN if none. */
    double meanSince(long sinceNanos) {
        double sum = 0;
        int n = 0;
        for (int i = 0; i < size; i++) {
            if (times[i] - sinceNanos > 0) {
                sum += values[i];
                n++;
            }
        }
        return n == 0 ? Double.NaN : sum / n;
    }
}
