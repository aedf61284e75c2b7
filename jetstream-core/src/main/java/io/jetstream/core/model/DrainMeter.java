package io.jetstream.core.model;

/**
 * How fast a consumer drains a sender's queue, for transports that do not move the data themselves
 * and so cannot time transfers (an engine's output queue read by the engine's network threads): from
 * periodic samples of the bytes the consumer has taken so far and the bytes that were ready for it and
 * not yet taken, it measures the drain rate over the time the consumer had data waiting the whole
 * time — busy time, when the drain is what the consumer can do, not what the sender gave it. Like
 * Flink's own {@code ThroughputCalculator}, but on the sender's side and per channel.
 *
 * <p>An interval between two samples counts as busy when data was waiting at both ends and the
 * consumer took something or nothing at all (a stalled consumer drains at 0 B/s: back-pressure is a
 * slow link). Busy intervals are added up until they span {@code windowNanos}; each full window is one
 * measurement, smoothed by an exponentially weighted moving average ({@code smoothing}; the plain mean
 * of the first measurements). Idle intervals are skipped: an idle consumer says nothing about its
 * speed.
 *
 * <p>Not thread-safe: owned by the one sampling thread. No allocation.
 */
public final class DrainMeter {
    /** Lowest rate reported (bytes per second): a stalled consumer is a very slow link, not a broken one. */
    public static final double MIN_BYTES_PER_SECOND = 1_000;

    private final long windowNanos;
    private final double smoothing;

    private boolean sampled;
    private long lastNanos;
    private long lastTaken;
    private long lastWaiting;

    private long busyNanos;
    private long busyBytes;
    private long windows;
    private double bytesPerSecond = Double.NaN;

    /**
     * @param windowNanos busy time one measurement spans
     * @param smoothing weight of a new measurement in the moving average, (0, 1]
     */
    public DrainMeter(long windowNanos, double smoothing) {
        if (windowNanos <= 0 || !(smoothing > 0 && smoothing <= 1)) {
            throw new IllegalArgumentException("window " + windowNanos + " ns, smoothing " + smoothing);
        }
        this.windowNanos = windowNanos;
        this.smoothing = smoothing;
    }

    /**
     * One sample; returns true when it completed a measurement ({@link #bytesPerSecond} changed).
     *
     * @param takenBytes bytes the consumer has taken since the channel opened (monotonic)
     * @param waitingBytes bytes ready for the consumer and not taken yet
     */
    public boolean sample(long nowNanos, long takenBytes, long waitingBytes) {
        boolean measured = false;
        if (sampled) {
            long span = nowNanos - lastNanos;
            long taken = takenBytes - lastTaken;
            if (span > 0 && taken >= 0 && lastWaiting > 0 && waitingBytes > 0) {
                busyNanos += span;
                busyBytes += taken;
                if (busyNanos >= windowNanos) {
                    double rate = Math.max(MIN_BYTES_PER_SECOND, busyBytes / (busyNanos / 1e9));
                    double w = Math.max(smoothing, 1.0 / ++windows);
                    bytesPerSecond = Double.isNaN(bytesPerSecond) ? rate : bytesPerSecond + w * (rate - bytesPerSecond);
                    busyNanos = 0;
                    busyBytes = 0;
                    measured = true;
                }
            }
        }
        sampled = true;
        lastNanos = nowNanos;
        lastTaken = takenBytes;
        lastWaiting = waitingBytes;
        return measured;
    }

    /** The smoothed drain rate while busy, NaN before the first full window. */
    public double bytesPerSecond() {
        return bytesPerSecond;
    }

    /** Completed measurements so far. */
    public long measurements() {
        return windows;
    }
}
