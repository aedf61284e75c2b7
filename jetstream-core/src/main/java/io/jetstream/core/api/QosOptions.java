package io.jetstream.core.api;

import io.jetstream.core.config.ConfigOption;
import io.jetstream.core.config.OptionGroup;
import java.util.List;

/** Options of Nephele's latency-constrained output buffers, under {@code qos.} in every engine's prefix. */
public final class QosOptions {
    private QosOptions() {}

    public static final ConfigOption<Long> LATENCY_BOUND_MS = ConfigOption.longOption(
            "qos.latency-bound-ms", 0, 0, 3_600_000,
            "Latency constraint l on every channel (Nephele §3.2), with its source task where the engine "
                    + "measures task latency: the mean latency of the items entering it within `qos.window-ms` "
                    + "must stay at or below this. In the JetStream transport a channel is one sending stream, "
                    + "its latency measured from a record's emission to its delivery (the hosts' wall clocks "
                    + "must agree: NTP). 0 disables output-buffer adaptation.");

    public static final ConfigOption<Long> WINDOW_MS = ConfigOption.longOption(
            "qos.window-ms", 2_000, 1, 3_600_000,
            "The constraint's time span t: measurements older than this are forgotten, and a channel just "
                    + "resized is left alone for this long. At least `qos.measurement-interval-ms`.");

    public static final ConfigOption<Long> MEASUREMENT_INTERVAL_MS = ConfigOption.longOption(
            "qos.measurement-interval-ms", 1_000, 1, 3_600_000,
            "How often reporters send their pre-aggregated measurements; also the tagging interval "
                    + "(one tagged item per channel per interval).");

    public static final ConfigOption<Integer> INITIAL_BUFFER_BYTES = ConfigOption.intOption(
            "qos.buffer.initial-bytes", 32 << 10, 1, 64 << 20,
            "Output buffer size of a channel before the first adaptation (Flink's and Nephele's 32 KiB). "
                    + "In the JetStream transport the size caps the adaptive batch target too, until the "
                    + "constraint changes it: set it to `qos.buffer.max-bytes` to leave adaptive batches free.");

    public static final ConfigOption<Integer> MIN_BUFFER_BYTES = ConfigOption.intOption(
            "qos.buffer.min-bytes", 200, 1, 64 << 20, "Smallest output buffer (the paper's epsilon).");

    public static final ConfigOption<Integer> MAX_BUFFER_BYTES = ConfigOption.intOption(
            "qos.buffer.max-bytes", 64 << 10, 1, 64 << 20, "Largest output buffer (the paper's omega).");

    public static final ConfigOption<Double> THRESHOLD_MS = ConfigOption.doubleOption(
            "qos.buffer.threshold-ms", 5.0, 0.0, 60_000.0,
            "Output buffer latency (half the buffer lifetime) above which a violated constraint shrinks the buffer.");

    public static final ConfigOption<Double> SHRINK_BASE = ConfigOption.doubleOption(
            "qos.buffer.shrink-base", 0.98, 0.01, 0.9999,
            "r in obs* = max(epsilon, obs x r^obl): how fast buffers shrink per millisecond of output buffer latency.");

    public static final ConfigOption<Double> GROW_FACTOR = ConfigOption.doubleOption(
            "qos.buffer.grow-factor", 1.1, 1.0001, 100.0,
            "s in obs* = min(omega, s x obs), applied when the output buffer latency is about zero.");

    public static final ConfigOption<Double> ZERO_MS = ConfigOption.doubleOption(
            "qos.buffer.zero-ms", 0.5, 0.0, 60_000.0,
            "Output buffer latency below which it counts as about zero (the buffer fills faster than it ships).");

    public static final OptionGroup GROUP = new OptionGroup(
            "Latency-constrained output buffers",
            "qos.",
            "Read by the QoS reporter and manager of a worker (Nephele's output buffer adaptation), which the "
                    + "JetStream transport runs for its sending streams when a bound is set. The same keys "
                    + "apply in Flink under `taskmanager.network.jetstream.`.",
            List.of(LATENCY_BOUND_MS, WINDOW_MS, MEASUREMENT_INTERVAL_MS, INITIAL_BUFFER_BYTES, MIN_BUFFER_BYTES,
                    MAX_BUFFER_BYTES, THRESHOLD_MS, SHRINK_BASE, GROW_FACTOR, ZERO_MS));
}
