package io.jetstream.core.batch;

/** Ordinary least squares of y = intercept + slope·x: the one fit the monitors use. */
public record LineFit(double intercept, double slope) {
    /** The fit over the first {@code n} points, or null with fewer than two distinct x. */
    public static LineFit of(double[] x, double[] y, int n) {
        return ofRange(x, y, 0, n);
    }

    /** The fit over the points {@code [from, to)}, or null with fewer than two distinct x. */
    public static LineFit ofRange(double[] x, double[] y, int from, int to) {
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        int n = to - from;
        for (int i = from; i < to; i++) {
            sx += x[i];
            sy += y[i];
            sxx += x[i] * x[i];
            sxy += x[i] * y[i];
        }
        double denominator = n * sxx - sx * sx;
        if (n < 2 || denominator <= 0) {
            return null;
        }
        double slope = (n * sxy - sx * sy) / denominator;
        return new LineFit((sy - slope * sx) / n, slope);
    }

    /** The slope of the fit through the origin. */
    public static double slopeThroughOrigin(double[] x, double[] y, int n) {
        double sxx = 0, sxy = 0;
        for (int i = 0; i < n; i++) {
            sxx += x[i] * x[i];
            sxy += x[i] * y[i];
        }
        return sxy / sxx;
    }
}
