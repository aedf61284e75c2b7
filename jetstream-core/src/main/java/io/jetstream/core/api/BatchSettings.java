package io.jetstream.core.api;

import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.core.model.BatchController;
import io.jetstream.core.model.BatchListener;
import io.jetstream.core.model.BatchOracle;
import io.jetstream.core.model.FlushPolicy;
import io.jetstream.core.model.StreamContext;
import io.jetstream.core.model.StreamMonitor;
import io.jetstream.core.model.ThroughputCurve;
import java.util.concurrent.TimeUnit;

/**
 * Validated settings of a channel's batching, from {@link BatchOptions} or built directly; creates
 * the channel's {@link FlushPolicy} and, in adaptive mode, its {@link BatchController}. Immutable.
 *
 * @param mode adaptive or fixed
 * @param maxEventDelayNanos the user's bound on an event's wait; the flush deadline
 * @param maxBatchEvents largest batch the oracle considers
 * @param maxRoutes most routes per peer
 * @param decisionIntervalNanos oracle period
 * @param warmupEvents events sent one by one before the first decision
 * @param maxUtilisation the oracle's capacity cap
 * @param linkVariation coefficient of variation of transfer times
 * @param smoothing monitor EWMA weight
 * @param encodeSamples encode samples kept for the fit
 * @param probeMinIntervalNanos shortest probe interval
 * @param probeMaxIntervalNanos longest probe interval
 * @param fixedTargetBytes size target in fixed mode
 */
public record BatchSettings(
        BatchOptions.Mode mode,
        long maxEventDelayNanos,
        int maxBatchEvents,
        int maxRoutes,
        long decisionIntervalNanos,
        int warmupEvents,
        double maxUtilisation,
        double linkVariation,
        double smoothing,
        int encodeSamples,
        long probeMinIntervalNanos,
        long probeMaxIntervalNanos,
        int fixedTargetBytes) {

    /**
     * What a controller assumes before measuring (replaced by measurements after warm-up): 1,000
     * events/s of 500 B, 50 µs + 1 ns/B encoding, free decoding, 66 B of TCP/IP and Ethernet headers per
     * 1,448-byte segment, 5 ms + 10 MB/s link. Deliberately pessimistic about the link so the first decisions batch.
     */
    static final double PRIOR_RATE = 1_000;
    static final double PRIOR_EVENT_BYTES = 500;
    static final double PRIOR_ENCODE_HEADER = 50e-6;
    static final double PRIOR_ENCODE_PER_BYTE = 1e-9;
    static final double TRANSPORT_OVERHEAD_BYTES = 66;
    /** TCP payload per segment behind an Ethernet MTU of 1,500 with timestamps: the overhead is per segment. */
    static final double TCP_SEGMENT_BYTES = 1_448;
    static final ThroughputCurve PRIOR_LINK = new ThroughputCurve(0.005, 10_000_000);

    public BatchSettings {
        if (mode == null || maxEventDelayNanos <= 0 || maxBatchEvents < 1 || maxRoutes < 1 || decisionIntervalNanos <= 0
                || warmupEvents < 2 || !(maxUtilisation > 0 && maxUtilisation <= 1) || !(linkVariation >= 0)
                || !(smoothing > 0 && smoothing <= 1) || encodeSamples < 2 || probeMinIntervalNanos <= 0
                || probeMaxIntervalNanos < probeMinIntervalNanos || fixedTargetBytes < 1) {
            throw new IllegalArgumentException("invalid batch settings: " + this);
        }
    }

    public static BatchSettings defaults() {
        return new BatchSettings(BatchOptions.MODE.defaultValue(),
                TimeUnit.MILLISECONDS.toNanos(BatchOptions.MAX_EVENT_DELAY_MS.defaultValue()),
                BatchOptions.MAX_BATCH_EVENTS.defaultValue(),
                BatchOptions.MAX_ROUTES.defaultValue(),
                TimeUnit.MILLISECONDS.toNanos(BatchOptions.DECISION_INTERVAL_MS.defaultValue()),
                BatchOptions.WARMUP_EVENTS.defaultValue(),
                BatchOptions.MAX_UTILISATION.defaultValue(),
                BatchOptions.LINK_VARIATION.defaultValue(),
                BatchOptions.SMOOTHING.defaultValue(),
                BatchOptions.ENCODE_SAMPLES.defaultValue(),
                TimeUnit.MILLISECONDS.toNanos(BatchOptions.PROBE_MIN_INTERVAL_MS.defaultValue()),
                TimeUnit.MILLISECONDS.toNanos(BatchOptions.PROBE_MAX_INTERVAL_MS.defaultValue()),
                BatchOptions.FIXED_TARGET_BYTES.defaultValue());
    }

    /**
     * Reads {@link BatchOptions#GROUP} from a loaded configuration; cross-option constraints are
     * reported against the key that breaks them.
     */
    public static BatchSettings from(JetStreamConfig config) {
        long probeMin = config.get(BatchOptions.PROBE_MIN_INTERVAL_MS);
        long probeMax = config.get(BatchOptions.PROBE_MAX_INTERVAL_MS);
        if (probeMax < probeMin) {
            throw new InvalidConfigurationException(config.keyOf(BatchOptions.PROBE_MAX_INTERVAL_MS), probeMax,
                    "expected at least " + config.keyOf(BatchOptions.PROBE_MIN_INTERVAL_MS) + " (" + probeMin + ")");
        }
        return new BatchSettings(config.get(BatchOptions.MODE),
                TimeUnit.MILLISECONDS.toNanos(config.get(BatchOptions.MAX_EVENT_DELAY_MS)),
                config.get(BatchOptions.MAX_BATCH_EVENTS),
                config.get(BatchOptions.MAX_ROUTES),
                TimeUnit.MILLISECONDS.toNanos(config.get(BatchOptions.DECISION_INTERVAL_MS)),
                config.get(BatchOptions.WARMUP_EVENTS),
                config.get(BatchOptions.MAX_UTILISATION),
                config.get(BatchOptions.LINK_VARIATION),
                config.get(BatchOptions.SMOOTHING),
                config.get(BatchOptions.ENCODE_SAMPLES),
                TimeUnit.MILLISECONDS.toNanos(probeMin),
                TimeUnit.MILLISECONDS.toNanos(probeMax),
                config.get(BatchOptions.FIXED_TARGET_BYTES));
    }

    /** The prior a controller starts from, with this machine's cores and the configured delay bound. */
    public StreamContext prior(int cores) {
        return new StreamContext(PRIOR_RATE, PRIOR_EVENT_BYTES, PRIOR_ENCODE_HEADER, PRIOR_ENCODE_PER_BYTE, 0, 0,
                TRANSPORT_OVERHEAD_BYTES, 0, PRIOR_LINK, cores, maxEventDelayNanos / 1e9, TCP_SEGMENT_BYTES, 0);
    }

    /** A channel's flush policy: the fixed targets, or (adaptive) one event until the first decision. */
    public FlushPolicy newFlushPolicy() {
        return new FlushPolicy(mode == BatchOptions.Mode.FIXED ? fixedTargetBytes : 1, maxEventDelayNanos);
    }

    /**
     * The adaptive loop driving {@code flush}, on a monitor and oracle built from these settings.
     *
     * @throws IllegalStateException in fixed mode (there is nothing to control)
     */
    public BatchController newController(FlushPolicy flush, int cores, BatchListener listener) {
        if (mode != BatchOptions.Mode.ADAPTIVE) {
            throw new IllegalStateException("batch.mode is " + mode + "; no controller in fixed mode");
        }
        return new BatchController(
                new StreamMonitor(smoothing, encodeSamples, probeMinIntervalNanos, probeMaxIntervalNanos),
                new BatchOracle(maxBatchEvents, maxRoutes, linkVariation, maxUtilisation),
                flush, prior(cores), decisionIntervalNanos, warmupEvents, listener);
    }
}
