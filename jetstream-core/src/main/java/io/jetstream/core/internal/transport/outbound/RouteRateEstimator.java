package io.jetstream.core.internal.transport.outbound;

import java.util.Arrays;

/**
 * Each route's read rate: bytes acknowledged per second of the time that route held the stream back.
 *
 * <p>Acknowledgements are cumulative (the receiver's in-order watermark), so the time from writing a
 * batch to its acknowledgement includes waiting for earlier batches on other routes: with batches
 * handed round-robin, every busy route would show the same rate, the slowest one's. Instead, each
 * span during which the watermark waits for a batch in flight is charged to the route of the
 * <em>oldest</em> batch in flight (the one the watermark waits for), from when that batch was
 * written or the watermark last moved, whichever is later; the bytes each acknowledgement frees are
 * credited to the routes that carried them. Per interval, a route's rate is
 *
 * <pre>min(its bytes / the time it held the line, all routes' bytes / the interval)</pre>
 *
 * so a route that holds the line is measured at its own pace, and one that never holds it reads as
 * fast as the whole stream went (it kept up with it; how much faster it could go, cumulative
 * acknowledgements cannot tell). A route that carried nothing in an interval keeps its last rate;
 * one charged time and credited nothing reads 0 (it does not answer). Each interval's rate is
 * smoothed (weight {@value #SMOOTHING}), except that a measurement below {@value #DROP_SHARE} of the
 * average (a 0 among them) replaces it at once: a route that slows down is noticed within one interval.
 *
 * <p>Not thread-safe: under the outbox lock. Allocates nothing after construction.
 */
final class RouteRateEstimator {
    /** Weight of an interval's measurement in the moving average. */
    static final double SMOOTHING = 0.5;
    /** A measurement below this share of the average replaces it at once: a route that slows down is left within one interval. */
    static final double DROP_SHARE = 0.5;

    private final long[] bytes;
    private final long[] heldNanos;
    private final double[] rates;
    /** When the watermark last moved (or the interval began). */
    private long lastAdvanceNanos;
    private long intervalStartNanos;

    RouteRateEstimator(int routes, long nowNanos) {
        bytes = new long[routes];
        heldNanos = new long[routes];
        rates = new double[routes];
        Arrays.fill(rates, Double.NaN);
        lastAdvanceNanos = nowNanos;
        intervalStartNanos = nowNanos;
    }

    /**
     * The watermark is about to move (or the interval ends): the time since it last moved is charged
     * to {@code headRoute}, which carries the oldest batch in flight, written at {@code headSentNanos}
     * ({@code headRoute} −1: none in flight, nobody is charged).
     */
    void onWatermark(int headRoute, long headSentNanos, long nowNanos) {
        if (headRoute >= 0 && headRoute < heldNanos.length) {
            long from = Math.max(lastAdvanceNanos, headSentNanos);
            if (nowNanos > from) {
                heldNanos[headRoute] += nowNanos - from;
            }
        }
        lastAdvanceNanos = nowNanos;
    }

    /** {@code batchBytes} that {@code route} carried were acknowledged. */
    void onAcknowledged(int route, int batchBytes) {
        if (route >= 0 && route < bytes.length) {
            bytes[route] += batchBytes;
        }
    }

    /** Ends an interval: each route that carried or held something gets a new measurement. */
    void endInterval(long nowNanos) {
        long interval = Math.max(1, nowNanos - intervalStartNanos);
        long total = 0;
        for (long b : bytes) {
            total += b;
        }
        double stream = total * 1e9 / interval;
        for (int r = 0; r < rates.length; r++) {
            if (bytes[r] == 0 && heldNanos[r] == 0) {
                continue;
            }
            double sample = heldNanos[r] == 0 ? stream : Math.min(stream, bytes[r] * 1e9 / heldNanos[r]);
            boolean dropped = sample < rates[r] * DROP_SHARE; // false while NaN
            rates[r] = Double.isNaN(rates[r]) || dropped ? sample : rates[r] + SMOOTHING * (sample - rates[r]);
            bytes[r] = 0;
            heldNanos[r] = 0;
        }
        intervalStartNanos = nowNanos;
    }

    /** Route {@code route}'s read rate in bytes per second; NaN until measured, 0 if it holds the line and delivers nothing. */
    double rate(int route) {
        return rates[route];
    }

    /** Forgets route {@code route}'s rate (it was lost: a new connection may take another path). */
    void forget(int route) {
        rates[route] = Double.NaN;
        bytes[route] = 0;
        heldNanos[route] = 0;
    }
}
