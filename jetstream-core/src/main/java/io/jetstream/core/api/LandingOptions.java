package io.jetstream.core.api;

import io.jetstream.core.config.ConfigOption;
import io.jetstream.core.config.OptionGroup;
import java.util.List;

/**
 * Options of a landing (docs/cross-site.md, "Landing a stream"): keys under {@code landing.}
 * ({@code jetstream.landing.*} in {@code bin/jetstream-landing}). Its transport (secret, TLS, bind
 * address, frame size) is configured with the {@code transport.*} options.
 */
public final class LandingOptions {
    private LandingOptions() {}

    public static final ConfigOption<Integer> PORT = ConfigOption.intOption(
            "landing.port", 7_500, 0, 65_535,
            "Port the landing accepts senders, committers and readers on (0: any free port).");

    public static final ConfigOption<String> DIRECTORY = ConfigOption.optionalStringOption(
            "landing.directory",
            "Directory of the landing's journals, one per landed stream. Required. What is written there survives "
                    + "the landing being killed; on a persistent volume it survives the loss of the machine, as far as "
                    + "`landing.sync` says.");

    public static final ConfigOption<TransportOptions.JournalSync> SYNC = ConfigOption.enumOption(
            "landing.sync", TransportOptions.JournalSync.class, TransportOptions.JournalSync.NONE,
            "When a batch counts as landed (and is acknowledged): `none`, once in the journal's memory-mapped file "
                    + "(survives the process being killed); `async`, write-back started; `sync`, on disk (survives the "
                    + "host, at the cost of a disk flush per batch).");

    public static final ConfigOption<Long> MAX_STREAM_BYTES = ConfigOption.longOption(
            "landing.max-stream-bytes", 1L << 30, 1L << 20, 1L << 44,
            "Journal bytes a landed stream may hold (landed and not yet deleted after its readers released it); "
                    + "beyond them the landing pushes back on the stream's sender until readers release more. This bounds "
                    + "the disk used while the receiving application is down.");

    public static final ConfigOption<Long> GENERATION_BYTES = ConfigOption.longOption(
            "landing.generation-bytes", 64L << 20, 1L << 20, 1L << 34,
            "A landed stream's journal is a sequence of files of about this size; a file is deleted whole once "
                    + "every record in it is released by its readers (and `landing.retention-ms` has passed).");

    public static final ConfigOption<Long> RETENTION_MS = ConfigOption.longOption(
            "landing.retention-ms", 600_000, 0, 30L * 86_400_000,
            "How long records stay after the readers released them (their application's checkpoint covering them "
                    + "completed): a receiving application restored from an older checkpoint or savepoint within this "
                    + "time resumes where it was; an older position is refused with a message naming it.");

    public static final ConfigOption<Long> LINGERING_EPOCH_TIMEOUT_MS = ConfigOption.longOption(
            "landing.lingering-epoch-timeout-ms", 900_000, 1_000, 7L * 86_400_000,
            "Exactly once: how long epochs of a superseded attempt (its sender restarted from a snapshot) wait "
                    + "for their commit before they are discarded (counted and logged), so that the records after them "
                    + "are released. Keep it above the sending application's restart time plus a few checkpoint "
                    + "intervals: a commit that comes later finds its records gone.");

    public static final ConfigOption<Long> HEAD_INTERVAL_MS = ConfigOption.longOption(
            "landing.head-interval-ms", 1_000, 10, 600_000,
            "Period of the landing's report of each subscribed stream's position (records landed, released, "
                    + "oldest unreleased) to its readers, from which they compute their lag metrics.");

    public static final ConfigOption<Long> METRICS_LOG_INTERVAL_MS = ConfigOption.longOption(
            "landing.metrics-log-interval-ms", 10_000, 0, 86_400_000,
            "Period of the landing's per-stream log line (INFO); 0: never.");

    public static final ConfigOption<Integer> METRICS_PORT = ConfigOption.intOption(
            "landing.metrics-port", -1, -1, 65_535,
            "Port of the landing process's HTTP `/metrics` (JSON per landed stream); -1: off, 0: any free port.");

    public static final OptionGroup GROUP = new OptionGroup(
            "Landing",
            "landing.",
            "Read when a landing starts (`bin/jetstream-landing`, or `Landing.start`): the receiving end of streams "
                    + "from other sites, which journals them and releases them to readers.",
            List.of(PORT, DIRECTORY, SYNC, MAX_STREAM_BYTES, GENERATION_BYTES, RETENTION_MS, LINGERING_EPOCH_TIMEOUT_MS,
                    HEAD_INTERVAL_MS, METRICS_LOG_INTERVAL_MS, METRICS_PORT));
}
