package io.jetstream.core.batch;

/**
 * Link throughput as a function of the bytes sent at once, thr(B) (JetStream §3.3): small sends
 * cannot reach the link's stable throughput. JetStream models it as the stable throughput (the
 * amplitude) times a curve fitted from measured samples. We fit the curve from the transfer time,
 * which is affine in the size, {@code T(B) = latency + B / stable}, so that
 * {@code thr(B) = B / T(B)} rises monotonically and saturates at the stable throughput — a shape
 * that, unlike a free polynomial, never extrapolates above the link or below zero.
 *
 * <p>Immutable.
 *
 * @param latencySeconds fixed cost of one send (α): round trip, syscalls, protocol handshakes
 * @param stableBytesPerSecond the throughput large sends reach (β, the amplitude)
 */
public record ThroughputCurve(double latencySeconds, double stableBytesPerSecond) {
    public ThroughputCurve {
        if (!(latencySeconds >= 0) || !(stableBytesPerSecond > 0) || Double.isInfinite(stableBytesPerSecond)) {
            throw new IllegalArgumentException("invalid curve: latency " + latencySeconds + " s, stable " + stableBytesPerSecond + " B/s");
        }
    }

    /** Seconds to send {@code bytes} at once. */
    public double transferSeconds(double bytes) {
        return latencySeconds + bytes / stableBytesPerSecond;
    }

    /** Throughput reached when sending {@code bytes} at once. */
    public double bytesPerSecond(double bytes) {
        return bytes <= 0 ? 0 : bytes / transferSeconds(bytes);
    }

    /**
     * Least-squares fit of {@code T(B) = α + B / β} to measured (bytes, seconds) samples. Needs two
     * distinct sizes; a negative intercept (noise) is clamped to 0 and the slope refitted through
     * the origin; a time that does not grow with size gives the mean time as latency and the
     * fastest observed throughput as the stable one.
     */
    public static ThroughputCurve fit(double[] bytes, double[] seconds, int count) {
        if (count < 2) {
            throw new IllegalArgumentException("need at least 2 samples, got " + count);
        }
        LineFit line = LineFit.of(bytes, seconds, count);
        if (line == null) {
            throw new IllegalArgumentException("samples need at least two distinct sizes");
        }
        double intercept = line.intercept();
        double slope = line.slope();
        if (intercept < 0) {
            intercept = 0;
            slope = LineFit.slopeThroughOrigin(bytes, seconds, count);
        }
        if (!(slope > 0)) {
            // Within the noise, time does not grow with size (a link much faster than the sizes
            // probed, such as loopback): the mean time is the per-send latency, and the fastest
            // throughput observed is a lower bound of the stable one.
            double sum = 0;
            double fastest = 0;
            for (int i = 0; i < count; i++) {
                sum += seconds[i];
                fastest = Math.max(fastest, bytes[i] / seconds[i]);
            }
            return new ThroughputCurve(sum / count, fastest);
        }
        return new ThroughputCurve(intercept, 1 / slope);
    }
}
