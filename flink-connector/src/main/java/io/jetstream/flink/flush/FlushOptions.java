package io.jetstream.flink.flush;

import io.jetstream.core.config.ConfigOption;
import io.jetstream.core.config.OptionGroup;
import java.util.List;

/**
 * Options of flush control in Flink's result partitions, under {@code taskmanager.network.jetstream.flush.}.
 * The oracle's own parameters (decision interval, warm-up, utilisation cap, link variation, smoothing,
 * largest batch) are core's {@code batch.} options under the same prefix; {@code batch.max-event-delay-ms}
 * and the {@code batch.fixed.*} / {@code batch.mode} keys do not apply here ({@link #MAX_DELAY_MS} bounds
 * the wait).
 */
public final class FlushOptions {
    private FlushOptions() {}

    public static final ConfigOption<Boolean> ENABLED = ConfigOption.booleanOption(
            "flush.enabled", true,
            "JetStream decides when each subpartition of a pipelined result partition flushes (JetStream's "
                    + "batch oracle on the measured record rate and consumer drain, a latency bound, Nephele's "
                    + "output-buffer rule under `qos.latency-bound-ms`). Flink's own flushes (buffer timeout, "
                    + "events, barriers, end of data) still happen. false: Flink's flushing exactly.");

    public static final ConfigOption<Double> MAX_DELAY_MS = ConfigOption.doubleOption(
            "flush.max-delay-ms", 1.0, 0.05, 60_000.0,
            "Longest a record waits in its output buffer for JetStream's flush: the oracle's batches are "
                    + "sized within it, and pending data older than this leaves. Flink's "
                    + "`execution.buffer-timeout.interval` stays an upper bound too (Flink still flushes "
                    + "on its timer).");

    public static final ConfigOption<Double> FLUSH_COST_US = ConfigOption.doubleOption(
            "flush.flush-cost-us", 50.0, 0.1, 1_000_000.0,
            "What one flush costs the channel before its bytes count (the link's fixed time per send in "
                    + "JetStream's model): the wake-up of the network thread, its write, the consumer's "
                    + "handling of one more buffer. Flush control cannot time it from the producer, so it is "
                    + "given; the per-byte part is measured from the consumer's drain.");

    public static final ConfigOption<Boolean> IDLE_FLUSH = ConfigOption.booleanOption(
            "flush.idle.enabled", true,
            "When the flusher thread finds a subpartition whose consumer has taken everything flushed so "
                    + "far, its pending records leave at once instead of waiting for the size target or the "
                    + "deadline (a batch only pays off while the channel is busy), at most once per 10 flush costs "
                    + "(`flush.flush-cost-us`) per subpartition, so that at high rates buffers fill rather than leave "
                    + "with a few records each.");

    public static final ConfigOption<Long> DRAIN_WINDOW_MS = ConfigOption.longOption(
            "flush.drain.window-ms", 20, 1, 60_000,
            "Busy time (data waiting for the consumer) one measurement of a subpartition's drain rate spans.");

    public static final OptionGroup GROUP = new OptionGroup(
            "Flink flush control",
            "flush.",
            "Read at TaskManager start by `io.jetstream.flink.shuffle.JetStreamShuffleServiceFactory`; applies "
                    + "to pipelined result partitions (streaming jobs, pipelined batch exchanges). Blocking and "
                    + "hybrid partitions keep Flink's flushing.",
            List.of(ENABLED, MAX_DELAY_MS, FLUSH_COST_US, IDLE_FLUSH, DRAIN_WINDOW_MS));
}
