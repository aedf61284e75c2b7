package io.jetstream.core.api;

import io.jetstream.core.api.MulticastOptions.SlowDestination;
import io.jetstream.core.config.JetStreamConfig;
import java.util.concurrent.TimeUnit;

/** Validated settings of a multicast stream, read once from {@link MulticastOptions#GROUP}. Immutable. */
public record MulticastSettings(
        SlowDestination slowDestination,
        long maxLagBytes,
        long holdTimeoutNanos,
        int bufferBytes,
        long failoverTimeoutNanos) {

    public MulticastSettings {
        if (slowDestination == null || maxLagBytes < 1 || holdTimeoutNanos < 0 || Integer.bitCount(bufferBytes) != 1
                || failoverTimeoutNanos < 1) {
            throw new IllegalArgumentException("multicast settings " + slowDestination + ", " + maxLagBytes + ", "
                    + holdTimeoutNanos + ", " + bufferBytes + ", " + failoverTimeoutNanos);
        }
    }

    public static MulticastSettings from(JetStreamConfig config) {
        return new MulticastSettings(
                config.get(MulticastOptions.SLOW_DESTINATION),
                config.get(MulticastOptions.MAX_LAG_BYTES),
                TimeUnit.MILLISECONDS.toNanos(config.get(MulticastOptions.HOLD_TIMEOUT_MS)),
                config.get(MulticastOptions.BUFFER_BYTES),
                TimeUnit.MILLISECONDS.toNanos(config.get(MulticastOptions.FAILOVER_TIMEOUT_MS)));
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
