package io.jetstream.harness;

import java.util.Arrays;

/**
 * Percentiles of a set of latency samples (nanoseconds), reported in microseconds: the sample at
 * rank ⌈q·n⌉ of the sorted set (no interpolation), as HdrHistogram and JMH report them.
 *
 * @param count samples
 * @param p50Micros median
 * @param p99Micros 99th percentile
 * @param p999Micros 99.9th percentile
 * @param maxMicros largest sample
 */
public record LatencySummary(int count, double p50Micros, double p99Micros, double p999Micros, double maxMicros) {
    /** The summary of {@code nanos} (not modified); NaN percentiles without samples. */
    public static LatencySummary of(long[] nanos) {
        if (nanos.length == 0) {
            return new LatencySummary(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        }
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return new LatencySummary(sorted.length, quantile(sorted, 0.5), quantile(sorted, 0.99), quantile(sorted, 0.999),
                sorted[sorted.length - 1] / 1e3);
    }

    /** Several runs' samples taken together. */
    public static LatencySummary ofAll(Iterable<long[]> runs) {
        int total = 0;
        for (long[] run : runs) {
            total += run.length;
        }
        long[] all = new long[total];
        int at = 0;
        for (long[] run : runs) {
            System.arraycopy(run, 0, all, at, run.length);
            at += run.length;
        }
        return of(all);
    }

    private static double quantile(long[] sorted, double q) {
        int index = (int) Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
        return sorted[index] / 1e3;
    }
}
