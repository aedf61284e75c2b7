package io.jetstream.core.internal.transport.outbound;

import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.BATCH_FRAME_OVERHEAD;

import io.jetstream.core.model.FlushPolicy;

/**
 * The adaptive bound of an {@link Outbox}: measures the rate at which its routes drain batches
 * while a backlog exists (the link as it is now) and bounds the outbox to what that rate drains
 * within the user's maximum event delay, so that under overload the producer is pushed back instead
 * of queueing seconds of data. Each sample also goes to the stream's controller
 * ({@link Outbox.DrainListener}). In fixed batch mode the bound is {@code transport.memory-bytes}.
 *
 * <p>A control law: it reads no clock, the outbox passes the time of each event.
 *
 * <p>Threading contract: not thread-safe; the outbox calls it under its lock.
 */
final class DrainRateBound {
    /** Lowest bound of the adaptive outbox, per route in use. */
    static final long MIN_ADAPTIVE_OUTBOX = 256 << 10;
    /** Shortest span of one drain sample. */
    static final long SAMPLE_NANOS = 100_000_000;
    /** Weight of a new sample in the smoothed drain rate. */
    private static final double SMOOTHING = 0.3;

    private final boolean adaptive;
    private final long configuredBytes;
    private final long maxEventDelayNanos;
    private final FlushPolicy policy;
    private final RouteTable routes;
    private Outbox.DrainListener listener = Outbox.DrainListener.NONE;

    private boolean spanStarted;
    private long backlogStartNanos;
    private long backlogAckedBytes;
    private double capacityBytesPerSecond = Double.NaN;

    /**
     * @param adaptive whether the bound adapts (adaptive batch mode); if not it stays {@code configuredBytes}
     * @param configuredBytes {@code transport.memory-bytes}: the bound's maximum
     */
    DrainRateBound(boolean adaptive, long configuredBytes, long maxEventDelayNanos, FlushPolicy policy, RouteTable routes) {
        this.adaptive = adaptive;
        this.configuredBytes = configuredBytes;
        this.maxEventDelayNanos = maxEventDelayNanos;
        this.policy = policy;
        this.routes = routes;
    }

    void setListener(Outbox.DrainListener listener) {
        this.listener = listener;
    }

    /**
     * The outbox bound. Adaptive, while connected and once the drain rate under backlog is known, it
     * is what the link drains within the user's maximum event delay (at least
     * {@value #MIN_ADAPTIVE_OUTBOX} bytes and two batches per route in use, per route; at most
     * {@code transport.memory-bytes}).
     */
    long limit() {
        if (!adaptive || Double.isNaN(capacityBytesPerSecond) || !routes.anyReady()) {
            return configuredBytes;
        }
        double drainable = capacityBytesPerSecond * maxEventDelayNanos / 1e9;
        // Per route in use, room for two batches and at least MIN_ADAPTIVE_OUTBOX: every route has
        // its next batch while it sends one and stays busy enough that TCP keeps its window open.
        // Otherwise a bound learnt while one route was busy keeps the others idle, and the drain
        // measured under it confirms it (measured: 4 routes stuck at one link's throughput).
        long floor = Math.max(1, routes.inUse()) * Math.max(MIN_ADAPTIVE_OUTBOX, 2L * (policy.targetBytes() + BATCH_FRAME_OVERHEAD));
        return (long) Math.min(configuredBytes, Math.max(floor, drainable));
    }

    /**
     * {@code freedBytes} left the outbox delivered at {@code now}; {@code backlog}: batches wait to be
     * written, half the window or half the outbox is in use, or acknowledgements are overdue. Samples
     * the drain rate from what is freed under backlog over spans of at least {@value #SAMPLE_NANOS} ns;
     * without a backlog the span starts over.
     */
    void onFreed(long freedBytes, long now, boolean backlog) {
        if (!spanStarted) {
            // The first event starts the first span: measured from time 0 of the clock, it would read
            // as a drain of almost nothing over the clock's whole age, and hand the controller that.
            spanStarted = true;
            backlogStartNanos = now;
            backlogAckedBytes = 0;
            return;
        }
        if (!backlog) {
            backlogStartNanos = now;
            backlogAckedBytes = 0;
            return;
        }
        backlogAckedBytes += freedBytes;
        long span = now - backlogStartNanos;
        if (span >= SAMPLE_NANOS) {
            double sample = backlogAckedBytes * 1e9 / span;
            // Under backlog the acknowledged bytes are the routes' service: the link as it is now,
            // which probes sent into an idle token bucket's burst overstate. Per route in use.
            listener.onDrainSample(backlogAckedBytes / Math.max(1, routes.inUse()), span);
            capacityBytesPerSecond = Double.isNaN(capacityBytesPerSecond) ? sample
                    : capacityBytesPerSecond + SMOOTHING * (sample - capacityBytesPerSecond);
            backlogStartNanos = now;
            backlogAckedBytes = 0;
        }
    }

    /** The smoothed drain rate under backlog, bytes per second; NaN until measured. */
    double drainBytesPerSecond() {
        return capacityBytesPerSecond;
    }
}
