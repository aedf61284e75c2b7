package io.jetstream.core.internal.qos;

import io.jetstream.core.model.LatencyConstraint;

/**
 * Every decision of a {@link QosManager}, for metrics and logs; engine adapters bind it to their
 * metric systems. Called on the manager's thread.
 */
public interface QosListener {
    QosListener NONE = new QosListener() {};

    /** The constraint's estimated mean sequence latency exceeds its bound. */
    default void onViolation(LatencyConstraint constraint, double estimateMillis) {}

    /** A channel's output buffer changed (and the proposal won). */
    default void onResize(String channel, int fromBytes, int toBytes, double outputBufferLatencyMillis) {}

    /** The constraint is violated and no countermeasure is left (Nephele §3.5: report to the user). */
    default void onFailed(LatencyConstraint constraint, double estimateMillis) {}
}
