package io.jetstream.core.api;

import io.jetstream.core.config.ConfigOption;
import io.jetstream.core.config.OptionGroup;
import io.jetstream.core.model.BatchOracle;
import io.jetstream.core.model.StreamMonitor;
import java.util.List;

/** Options of adaptive batching (JetStream's model and oracle), under {@code batch.} in every engine's prefix. */
public final class BatchOptions {
    private BatchOptions() {}

    /** How a channel decides when its pending records leave. */
    public enum Mode {
        /** JetStream's oracle sizes batches from measured rate, event size, encoding cost and link. */
        ADAPTIVE,
        /** A fixed size target and flush timeout, as the engines' own settings do. */
        FIXED
    }

    public static final ConfigOption<Mode> MODE = ConfigOption.enumOption(
            "batch.mode", Mode.class, Mode.ADAPTIVE,
            "`adaptive`: batch size chosen by JetStream's latency model from measurements; `fixed`: "
                    + "`batch.fixed.target-bytes` and `batch.max-event-delay-ms` as given.");

    public static final ConfigOption<Long> MAX_EVENT_DELAY_MS = ConfigOption.longOption(
            "batch.max-event-delay-ms", 100, 1, 3_600_000,
            "The longest an event may wait for its batch: caps the batch size (JetStream Algorithm 2, "
                    + "line 3) and is the deadline after which pending records leave in either mode.");

    public static final ConfigOption<Integer> MAX_BATCH_EVENTS = ConfigOption.intOption(
            "batch.max-batch-events", 100_000, 1, 10_000_000,
            "Largest batch the oracle considers, in events.");

    public static final ConfigOption<Integer> MAX_ROUTES = ConfigOption.intOption(
            "batch.max-routes", 1, 1, 64,
            "Most parallel routes (connections) per peer the oracle may choose (JetStream's "
                    + "MaxNodesConsidered); 1 disables multi-route streaming.");

    public static final ConfigOption<Long> DECISION_INTERVAL_MS = ConfigOption.longOption(
            "batch.decision-interval-ms", 50, 1, 60_000,
            "How often the oracle re-decides; a measured rate outside [1/2, 2]x the decided one triggers "
                    + "a decision at once.");

    public static final ConfigOption<Integer> WARMUP_EVENTS = ConfigOption.intOption(
            "batch.warmup-events", 20, 2, 1_000_000,
            "Events sent one by one before the first decision (no batch is sized for an unmeasured rate).");

    public static final ConfigOption<Double> MAX_UTILISATION = ConfigOption.doubleOption(
            "batch.max-utilisation", BatchOracle.DEFAULT_MAX_UTILISATION, 0.1, 1.0,
            "Highest share of the modelled capacity of the link a batch size may use: a margin for the "
                    + "error of the rate and link estimates (near saturation a small error means an unbounded "
                    + "queue). Burstiness of the load and jitter of the link are priced separately, by the "
                    + "queueing term.");

    public static final ConfigOption<Double> LINK_VARIATION = ConfigOption.doubleOption(
            "batch.link-variation", 0.10, 0.0, 10.0,
            "Coefficient of variation of a batch's transfer time, used to price waiting for the link "
                    + "(Kingman's approximation).");

    public static final ConfigOption<Double> SMOOTHING = ConfigOption.doubleOption(
            "batch.monitor.smoothing", 0.05, 0.001, 1.0,
            "Weight of a new sample in the monitor's moving averages: the event size, each link size bucket's "
                    + "mean size, and the deviation from the fitted link that sets the probe interval. (A size's "
                    + "transfer time is not averaged this way but trimmed: the mean of its last "
                    + StreamMonitor.SERVICE_SAMPLES + " transfers without the slowest and fastest "
                    + (int) (StreamMonitor.SERVICE_SAMPLES * StreamMonitor.TRIMMED_SHARE) + ".)");

    public static final ConfigOption<Integer> ENCODE_SAMPLES = ConfigOption.intOption(
            "batch.monitor.encode-samples", 64, 2, 65_536,
            "Batch encodings the encode-cost fit (tHe + tDe x bytes) keeps.");

    public static final ConfigOption<Long> PROBE_MIN_INTERVAL_MS = ConfigOption.longOption(
            "batch.probe.min-interval-ms", 500, 1, 3_600_000,
            "Shortest interval between link probes, used while measurements stray from the fitted curve.");

    public static final ConfigOption<Long> PROBE_MAX_INTERVAL_MS = ConfigOption.longOption(
            "batch.probe.max-interval-ms", 10_000, 1, 3_600_000,
            "Longest interval between link probes, reached while the link behaves as fitted "
                    + "(JetStream's intrusiveness control); at least the minimum.");

    public static final ConfigOption<Integer> FIXED_TARGET_BYTES = ConfigOption.intOption(
            "batch.fixed.target-bytes", 32 << 10, 1, 64 << 20,
            "In `fixed` mode, the pending bytes at which a batch leaves.");

    public static final OptionGroup GROUP = new OptionGroup(
            "Adaptive batching",
            "batch.",
            "Read by every JetStream sender channel (Netty transport, ring, Storm connections) when it is "
                    + "created. The same keys apply in Flink under `taskmanager.network.jetstream.`.",
            List.of(MODE, MAX_EVENT_DELAY_MS, MAX_BATCH_EVENTS, MAX_ROUTES, DECISION_INTERVAL_MS, WARMUP_EVENTS,
                    MAX_UTILISATION, LINK_VARIATION, SMOOTHING, ENCODE_SAMPLES, PROBE_MIN_INTERVAL_MS,
                    PROBE_MAX_INTERVAL_MS, FIXED_TARGET_BYTES));
}
