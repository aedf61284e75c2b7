package io.jetstream.harness;

import org.HdrHistogram.Histogram;

/**
 * Percentiles of a set of latency samples (nanoseconds), reported in microseconds, by one definition
 * for every test and benchmark of JetStream's: HdrHistogram's.
 *
 * <p>The samples are recorded into an HdrHistogram {@link Histogram} at {@value #SIGNIFICANT_DIGITS}
 * significant decimal digits (each value kept within 0.1 %: values up to 2,048 ns exactly, larger ones
 * in buckets at most 1/1,024 of their value wide; the range grows as needed). A percentile q is
 * {@link Histogram#getValueAtPercentile}: the sample at rank ⌈q·n⌉ of the sorted samples (no
 * interpolation), reported as the highest value of its bucket, so at most 0.1 % above that sample. The
 * maximum is {@link Histogram#getMaxValue}, the highest value of the largest sample's bucket, so no
 * percentile exceeds it.
 *
 * @param count samples
 * @param p50Micros median
 * @param p99Micros 99th percentile
 * @param p999Micros 99.9th percentile
 * @param maxMicros largest sample
 */
public record LatencySummary(int count, double p50Micros, double p99Micros, double p999Micros, double maxMicros) {
    /** The precision samples are recorded at: significant decimal digits of HdrHistogram's. */
    public static final int SIGNIFICANT_DIGITS = 3;

    /**
     * The summary of {@code nanos} (not modified); NaN percentiles without samples.
     *
     * @throws IllegalArgumentException for a negative sample (a latency is a duration)
     */
    public static LatencySummary of(long[] nanos) {
        Histogram histogram = new Histogram(SIGNIFICANT_DIGITS);
        record(histogram, nanos);
        return of(histogram);
    }

    /** Several runs' samples taken together. */
    public static LatencySummary ofAll(Iterable<long[]> runs) {
        Histogram histogram = new Histogram(SIGNIFICANT_DIGITS);
        for (long[] run : runs) {
            record(histogram, run);
        }
        return of(histogram);
    }

    private static void record(Histogram histogram, long[] nanos) {
        for (long sample : nanos) {
            if (sample < 0) {
                throw new IllegalArgumentException("negative latency sample: " + sample + " ns");
            }
            histogram.recordValue(sample);
        }
    }

    private static LatencySummary of(Histogram histogram) {
        long count = histogram.getTotalCount();
        if (count == 0) {
            return new LatencySummary(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        }
        return new LatencySummary(Math.toIntExact(count), micros(histogram.getValueAtPercentile(50)),
                micros(histogram.getValueAtPercentile(99)), micros(histogram.getValueAtPercentile(99.9)),
                micros(histogram.getMaxValue()));
    }

    private static double micros(long nanos) {
        return nanos / 1e3;
    }
}
