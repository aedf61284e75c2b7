package io.jetstream.flink.crosssite;

import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.config.ConfigOption;
import io.jetstream.core.config.OptionGroup;
import java.util.List;

/**
 * Options of {@link CrossSiteSink} and {@link CrossSiteSource}: keys under {@code crosssite.}
 * ({@code jetstream.crosssite.*} in their builders' properties, next to {@code jetstream.transport.*}
 * and {@code jetstream.batch.*}). Validated when the builder builds and again when a writer, committer,
 * enumerator or reader opens.
 */
public final class CrossSiteOptions {
    private CrossSiteOptions() {}

    public static final ConfigOption<String> LANDING = ConfigOption.optionalStringOption(
            "crosssite.landing",
            "The landing at the destination site, `host:port` (`bin/jetstream-landing`, or `Landing.start`). Required, "
                    + "except for a sink given `crosssite.landings`.");

    public static final ConfigOption<String> LANDINGS = ConfigOption.optionalStringOption(
            "crosssite.landings",
            "Sink only, instead of `crosssite.landing`: the landings of several destination sites, `site=host:port` "
                    + "separated by commas. Each writer sends its stream to all of them through one multicast stream (each "
                    + "record copied once into its log, a stream per site under one flow control; `jetstream.multicast.*`, "
                    + "whose defaults differ here: `hold-timeout-ms` 0, a site that takes nothing holds the writer until "
                    + "`crosssite.send-timeout-ms`; `max-lag-bytes` 256 KiB and `buffer-bytes` 1 MiB, little queued in front "
                    + "of the sites' streams, records up to 128 KiB); a checkpoint completes once every site's landing "
                    + "journaled its records, and the committer commits each epoch at every landing.");

    public static final ConfigOption<String> RELAYS = ConfigOption.optionalStringOption(
            "crosssite.relays",
            "Sink only: relays of the sending site, `host:port` separated by commas; each adds a route to the landing "
                    + "(needs `transport.relay.auth.secret-file`). Empty: the direct route only.");

    public static final ConfigOption<StreamRoutes.RelayChoice> RELAY_CHOICE = ConfigOption.enumOption(
            "crosssite.relay-choice", StreamRoutes.RelayChoice.class, StreamRoutes.RelayChoice.IN_ORDER,
            "Sink only: which relays carry the stream when fewer than all are needed.");

    public static final ConfigOption<String> STREAM_NAME = ConfigOption.optionalStringOption(
            "crosssite.stream-name",
            "The stream's name at the landing. Sink subtask i lands `<stream-name>/i`; the source reads every landed "
                    + "stream whose name starts with `<stream-name>/`. Required: 1 to 190 characters of A-Z a-z 0-9 . _ : @ -.");

    public static final ConfigOption<String> SITE = ConfigOption.optionalStringOption(
            "crosssite.site",
            "A name for the other site, used in every log line and error message (empty: the landing's address).");

    public static final ConfigOption<Long> SEND_TIMEOUT_MS = ConfigOption.longOption(
            "crosssite.send-timeout-ms", 600_000, 1, 7L * 86_400_000,
            "Sink: how long a writer waits while the landing pushes back (down, unreachable, refusing this sender, or "
                    + "its stream full because the receiving job is down) before it fails the job with a message naming "
                    + "the site and the landing. While it waits it logs every 10 s and its `waitingForLanding` gauge is 1.");

    public static final ConfigOption<Long> COMMIT_TIMEOUT_MS = ConfigOption.longOption(
            "crosssite.commit-timeout-ms", 30_000, 1, 86_400_000,
            "Sink, exactly once: how long a commit waits for the landing to journal it before Flink retries it later.");

    public static final ConfigOption<Integer> READER_QUEUE_RECORDS = ConfigOption.intOption(
            "crosssite.reader-queue-records", 10_000, 1, 10_000_000,
            "Source: records a reader holds between the landing and the job; when full, the landing's push waits "
                    + "(back-pressure across sites, bounded memory).");

    public static final OptionGroup GROUP = new OptionGroup(
            "Flink cross-site sink and source",
            "crosssite.",
            "Read by `CrossSiteSink` and `CrossSiteSource` (their builders' `setProperty`, keys `jetstream.crosssite.*`), "
                    + "validated by `build()` and again when their writers and readers open. Their transport reads "
                    + "`jetstream.transport.*` and `jetstream.batch.*` from the same properties (a sink to several sites also "
                    + "`jetstream.multicast.*`); "
                    + "`transport.reliability` defaults to `acknowledged` there (best-effort is refused), `transport.io-threads` to 1 "
                    + "and `transport.close-timeout-ms` to 1000.",
            List.of(LANDING, LANDINGS, RELAYS, RELAY_CHOICE, STREAM_NAME, SITE, SEND_TIMEOUT_MS, COMMIT_TIMEOUT_MS,
                    READER_QUEUE_RECORDS));
}
