package io.jetstream.core.api;

import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.core.config.JetStreamConfig;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** A landing's settings ({@link LandingOptions}), validated. */
public record LandingSettings(
        int port,
        Path directory,
        TransportOptions.JournalSync sync,
        long maxStreamBytes,
        long generationBytes,
        long retentionNanos,
        long lingeringEpochTimeoutNanos,
        long headIntervalNanos,
        long metricsLogIntervalNanos,
        int metricsPort) {

    public static LandingSettings from(JetStreamConfig config) {
        String dir = config.get(LandingOptions.DIRECTORY);
        if (dir.isEmpty()) {
            throw new InvalidConfigurationException(config.keyOf(LandingOptions.DIRECTORY), "",
                    "a landing journals every landed stream: name the directory");
        }
        long maxBytes = config.get(LandingOptions.MAX_STREAM_BYTES);
        long generation = config.get(LandingOptions.GENERATION_BYTES);
        if (generation * 2 > maxBytes) {
            throw new InvalidConfigurationException(config.keyOf(LandingOptions.GENERATION_BYTES), generation,
                    "at most half of " + config.keyOf(LandingOptions.MAX_STREAM_BYTES) + " (" + maxBytes
                            + "): a stream's journal is deleted a file at a time");
        }
        return new LandingSettings(
                config.get(LandingOptions.PORT),
                Path.of(dir),
                config.get(LandingOptions.SYNC),
                maxBytes,
                generation,
                TimeUnit.MILLISECONDS.toNanos(config.get(LandingOptions.RETENTION_MS)),
                TimeUnit.MILLISECONDS.toNanos(config.get(LandingOptions.LINGERING_EPOCH_TIMEOUT_MS)),
                TimeUnit.MILLISECONDS.toNanos(config.get(LandingOptions.HEAD_INTERVAL_MS)),
                TimeUnit.MILLISECONDS.toNanos(config.get(LandingOptions.METRICS_LOG_INTERVAL_MS)),
                config.get(LandingOptions.METRICS_PORT));
    }
}
