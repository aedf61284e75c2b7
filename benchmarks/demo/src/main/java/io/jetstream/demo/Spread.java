package io.jetstream.demo;

import io.jetstream.harness.Median;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The median of a few rounds' values with their range: what the demo shows for every figure, so that
 * a reader sees how far one round strayed from another.
 *
 * @param median the median ({@link Median}: the mean of the middle two for an even count)
 * @param min the smallest value
 * @param max the largest value
 */
record Spread(double median, double min, double max) {
    static Spread of(List<Double> values) {
        if (values.isEmpty()) {
            return new Spread(Double.NaN, Double.NaN, Double.NaN);
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return new Spread(Median.of(sorted), sorted[0], sorted[sorted.length - 1]);
    }

    /** Whether {@code value} lies within the range (a ratio whose range holds 1.0 measured no difference). */
    boolean holds(double value) {
        return min <= value && value <= max;
    }

    /** As a ratio: {@code 0.13x (0.10-0.15)}, or "no difference measured" when the rounds' range holds 1.0. */
    String asRatio() {
        if (Double.isNaN(median)) {
            return "n/a";
        }
        if (holds(1.0)) {
            return "no difference measured";
        }
        return String.format(Locale.ROOT, "%sx (%s-%s)", ratio(median), ratio(min), ratio(max));
    }

    private static String ratio(double r) {
        return r >= 10 ? String.format(Locale.ROOT, "%.0f", r) : r >= 0.1 ? String.format(Locale.ROOT, "%.2f", r)
                : String.format(Locale.ROOT, "%.3f", r);
    }

    @Override
    public String toString() {
        return Arrays.toString(new double[] {median, min, max});
    }
}
