package io.jetstream.core.api;

import io.jetstream.core.api.MulticastOptions.SlowDestination;
import io.jetstream.core.config.JetStreamConfig;
import java.util.concurrent.TimeUnit;

/**
 * Validated settings of a multicast stream, read once from {@link MulticastOptions#GROUP}. Immutable.
 *
 * @param plan how a planned multicast chooses between direct multicast and replication
 */
public record MulticastSettings(
        SlowDestination slowDestination,
        long maxLagBytes,
        long holdTimeoutNanos,
        int bufferBytes,
        long failoverTimeoutNanos,
        PlanSettings plan) {

    /**
     * The goal and the model's inputs of a planned multicast ({@code multicast.plan.*}).
     *
     * @param spendLimitPerHour infinite: no limit
     * @param latencyBoundSeconds infinite: no bound
     */
    public record PlanSettings(long intervalNanos, double pricePerGb, double spendLimitPerHour, double latencyBoundSeconds,
            double outboundQuotaBytesPerSecond, double cpuTarget, double intraSiteBytesPerSecond, double intraSiteLatencySeconds,
            double hysteresis) {}

    public MulticastSettings {
        if (slowDestination == null || maxLagBytes < 1 || holdTimeoutNanos < 0 || Integer.bitCount(bufferBytes) != 1
                || failoverTimeoutNanos < 1 || plan == null) {
            throw new IllegalArgumentException("multicast settings " + slowDestination + ", " + maxLagBytes + ", "
                    + holdTimeoutNanos + ", " + bufferBytes + ", " + failoverTimeoutNanos);
        }
    }

    /** These settings with another slow-destination policy, lag bound, hold timeout and failover timeout. */
    public MulticastSettings with(SlowDestination policy, long maxLag, long holdTimeout, long failoverTimeout) {
        return new MulticastSettings(policy, maxLag, holdTimeout, bufferBytes, failoverTimeout, plan);
    }

    public static MulticastSettings from(JetStreamConfig config) {
        return new MulticastSettings(
                config.get(MulticastOptions.SLOW_DESTINATION),
                config.get(MulticastOptions.MAX_LAG_BYTES),
                TimeUnit.MILLISECONDS.toNanos(config.get(MulticastOptions.HOLD_TIMEOUT_MS)),
                config.get(MulticastOptions.BUFFER_BYTES),
                TimeUnit.MILLISECONDS.toNanos(config.get(MulticastOptions.FAILOVER_TIMEOUT_MS)),
                new PlanSettings(
                        TimeUnit.MILLISECONDS.toNanos(config.get(MulticastOptions.PLAN_INTERVAL_MS)),
                        config.get(MulticastOptions.PLAN_PRICE_PER_GB),
                        positiveOrInfinite(config.get(MulticastOptions.PLAN_SPEND_LIMIT_PER_HOUR)),
                        positiveOrInfinite(config.get(MulticastOptions.PLAN_LATENCY_BOUND_MS) / 1e3),
                        config.get(MulticastOptions.PLAN_OUTBOUND_QUOTA_MBIT) * 1e6 / 8,
                        config.get(MulticastOptions.PLAN_CPU_TARGET),
                        config.get(MulticastOptions.PLAN_INTRA_SITE_MBIT) * 1e6 / 8,
                        config.get(MulticastOptions.PLAN_INTRA_SITE_LATENCY_MS) / 1e3,
                        config.get(MulticastOptions.PLAN_HYSTERESIS)));
    }

    private static double positiveOrInfinite(double v) {
        return v > 0 ? v : Double.POSITIVE_INFINITY;
    }

    /** The defaults of every option. */
    public static MulticastSettings defaults() {
        return from(JetStreamConfig.load(io.jetstream.core.config.ConfigScope.STANDALONE, java.util.Map.of(),
                MulticastOptions.GROUP));
    }

    /** Largest record the hand-over ring takes, header included. */
    public int maxRecordBytes() {
        return bufferBytes / 8;
    }
}
