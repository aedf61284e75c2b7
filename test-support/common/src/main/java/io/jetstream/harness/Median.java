package io.jetstream.harness;

import java.util.Collection;

/**
 * The median of a handful of per-round figures (throughputs, ratios, timings): the middle value, the
 * mean of the middle two for an even count, NaN for none. Latency samples go to {@link LatencySummary}
 * instead, whose percentiles are HdrHistogram's.
 */
public final class Median {
    private Median() {
    }

    /** The median of {@code values} (not modified). */
    public static double of(double... values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** The median of {@code values}. */
    public static double of(Collection<? extends Number> values) {
        return of(values.stream().mapToDouble(Number::doubleValue).toArray());
    }
}
