package io.jetstream.core.model;

import io.jetstream.core.internal.metrics.AdaptiveControlGauges;

/**
 * Receives every decision of a {@link BatchController} and the latencies the transport measured
 * under it, for metrics and logs; engine adapters bind it to their metric systems (see
 * {@link io.jetstream.core.internal.metrics.AdaptiveControlGauges}). Called on the controller's thread; must
 * not block or allocate per call.
 */
@FunctionalInterface
public interface BatchListener {
    BatchListener NONE = decision -> {};

    /** The oracle chose a batch size and a number of routes; the decision carries every estimated component. */
    void onDecision(BatchDecision decision);

    /**
     * A transport measured the mean latency of delivered events (arrival at the sender to delivery),
     * next to what the last decision predicted ({@code NaN} during warm-up).
     */
    default void onMeasuredLatency(double predictedSeconds, double measuredSeconds) {}
}
