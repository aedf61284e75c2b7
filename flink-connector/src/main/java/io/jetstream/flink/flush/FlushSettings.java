package io.jetstream.flink.flush;

import io.jetstream.core.api.BatchSettings;
import io.jetstream.core.api.FlushControlSettings;
import io.jetstream.core.api.QosSettings;
import io.jetstream.core.config.JetStreamConfig;

/**
 * Validated settings of flush control, read once at TaskManager start. Immutable.
 *
 * @param enabled false: Flink's flushing exactly
 * @param maxDelayNanos longest wait of a record for JetStream's flush
 * @param flushCostSeconds the link's fixed time per flush in the oracle's model
 * @param idleFlush flush pending records when the consumer has taken everything
 * @param drainWindowNanos busy time per drain measurement
 * @param batch the oracle's parameters (core's {@code batch.} options)
 * @param qos Nephele's output-buffer rule (core's {@code qos.} options), applied when a bound is set
 */
public record FlushSettings(boolean enabled, long maxDelayNanos, double flushCostSeconds, boolean idleFlush,
        long drainWindowNanos, BatchSettings batch, QosSettings qos) {

    public FlushSettings {
        if (maxDelayNanos <= 0 || !(flushCostSeconds > 0) || drainWindowNanos <= 0 || batch == null || qos == null) {
            throw new IllegalArgumentException("invalid flush settings: " + this);
        }
    }

    /** What core's flush control of each subpartition takes. */
    public FlushControlSettings control() {
        return new FlushControlSettings(maxDelayNanos, flushCostSeconds, idleFlush, drainWindowNanos, batch, qos);
    }

    public static FlushSettings from(JetStreamConfig config) {
        return new FlushSettings(
                config.get(FlushOptions.ENABLED),
                (long) (config.get(FlushOptions.MAX_DELAY_MS) * 1e6),
                config.get(FlushOptions.FLUSH_COST_US) / 1e6,
                config.get(FlushOptions.IDLE_FLUSH),
                config.get(FlushOptions.DRAIN_WINDOW_MS) * 1_000_000,
                BatchSettings.from(config),
                QosSettings.from(config));
    }
}
