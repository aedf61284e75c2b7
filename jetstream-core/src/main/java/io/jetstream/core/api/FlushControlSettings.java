package io.jetstream.core.api;

/**
 * What flush control of channels whose buffers an engine owns ({@link ChannelFlushControl}) is
 * configured with. Immutable; validated on construction.
 *
 * @param maxDelayNanos longest a record waits for flush control's flush
 * @param flushCostSeconds the link's fixed time per flush in the oracle's model
 * @param idleFlush flush pending records when the consumer has taken everything
 * @param drainWindowNanos busy time per measurement of the consumer's drain
 * @param batch the oracle's parameters (core's {@code batch.} options)
 * @param qos Nephele's output-buffer rule (core's {@code qos.} options), applied when a bound is set
 */
public record FlushControlSettings(long maxDelayNanos, double flushCostSeconds, boolean idleFlush, long drainWindowNanos,
        BatchSettings batch, QosSettings qos) {

    public FlushControlSettings {
        if (maxDelayNanos <= 0 || !(flushCostSeconds > 0) || drainWindowNanos <= 0 || batch == null || qos == null) {
            throw new IllegalArgumentException("invalid flush control settings: max delay " + maxDelayNanos + " ns, flush cost "
                    + flushCostSeconds + " s, drain window " + drainWindowNanos + " ns, batch " + batch + ", qos " + qos);
        }
    }
}
