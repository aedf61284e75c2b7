package io.jetstream.core.model;

/**
 * Least squares of y = intercept + slope·x: the one fit the monitors use. Plain, or weighted by a
 * weight per point (a point that stands for the mean of n measurements has weight n: its variance is
 * 1/n of one measurement's, and weighted least squares with inverse-variance weights is the
 * best linear unbiased fit).
 */
public record LineFit(double intercept, double slope) {
    /** The fit over the first {@code n} points, or null with fewer than two distinct x. */
    public static LineFit of(double[] x, double[] y, int n) {
        return ofRange(x, y, null, 0, n);
    }

    /** The fit over the points {@code [from, to)}, or null with fewer than two distinct x. */
    public static LineFit ofRange(double[] x, double[] y, int from, int to) {
        return ofRange(x, y, null, from, to);
    }

    /**
     * The fit over the points {@code [from, to)}, each weighted by {@code weights[i]} (all 1 when
     * {@code weights} is null; weights must be positive), or null with fewer than two distinct x.
     */
    public static LineFit ofRange(double[] x, double[] y, double[] weights, int from, int to) {
        double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (int i = from; i < to; i++) {
            double w = weights == null ? 1 : weights[i];
            sw += w;
            sx += w * x[i];
            sy += w * y[i];
            sxx += w * x[i] * x[i];
            sxy += w * x[i] * y[i];
        }
        double denominator = sw * sxx - sx * sx;
        if (to - from < 2 || denominator <= 0) {
            return null;
        }
        double slope = (sw * sxy - sx * sy) / denominator;
        return new LineFit((sy - slope * sx) / sw, slope);
    }

    /** The slope of the fit through the origin. */
    public static double slopeThroughOrigin(double[] x, double[] y, int n) {
        return slopeThroughOrigin(x, y, null, n);
    }

    /** The slope of the fit through the origin, each point weighted as in {@link #ofRange(double[], double[], double[], int, int)}. */
    public static double slopeThroughOrigin(double[] x, double[] y, double[] weights, int n) {
        double sxx = 0, sxy = 0;
        for (int i = 0; i < n; i++) {
            double w = weights == null ? 1 : weights[i];
            sxx += w * x[i] * x[i];
            sxy += w * x[i] * y[i];
        }
        return sxy / sxx;
    }
}
