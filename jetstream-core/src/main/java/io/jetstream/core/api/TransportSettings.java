package io.jetstream.core.api;

import io.jetstream.core.api.TransportOptions.Io;
import io.jetstream.core.api.TransportOptions.JournalSync;
import io.jetstream.core.api.TransportOptions.Ordering;
import io.jetstream.core.api.TransportOptions.Reliability;
import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.core.config.OptionGroup;
import io.jetstream.core.ring.RingOptions;
import io.jetstream.core.ring.RingSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Validated settings of a transport instance, read once at start-up from the option groups in
 * {@link #GROUPS} (transport, batching, ring, latency constraints). Files it names (secret, key and trust stores)
 * are checked here, so a wrong path fails the start, naming the key. Immutable.
 */
public record TransportSettings(
        String bindAddress,
        Io io,
        int ioThreads,
        int maxFrameBytes,
        int windowBytes,
        long memoryBytes,
        Reliability reliability,
        Ordering ordering,
        Optional<Path> journalDir,
        long journalMaxBytes,
        JournalSync journalSync,
        boolean checksum,
        Optional<RingSettings> ring,
        long connectTimeoutNanos,
        long handshakeTimeoutNanos,
        int maxConnections,
        int maxStreams,
        long streamIdleTimeoutNanos,
        long reconnectMinBackoffNanos,
        long reconnectMaxBackoffNanos,
        long sendTimeoutNanos,
        long closeTimeoutNanos,
        Optional<byte[]> secret,
        Optional<TlsSettings> tls,
        BatchSettings batch,
        QosSettings qos,
        Optional<byte[]> relaySecret,
        long routeStallTimeoutNanos,
        long relayChoiceIntervalNanos) {

    /** The option groups a transport reads: load a configuration with all of them. */
    public static final OptionGroup[] GROUPS = {
        TransportOptions.GROUP, BatchOptions.GROUP, RingOptions.GROUP, QosOptions.GROUP
    };

    /** Key and trust stores for TLS; either may be absent (a receiver needs the key store, a sender the trust store). */
    public record TlsSettings(Optional<Path> keyStore, char[] keyStorePassword, Optional<Path> trustStore,
            char[] trustStorePassword) {}

    public static TransportSettings from(JetStreamConfig config) {
        long minBackoff = config.get(TransportOptions.RECONNECT_MIN_BACKOFF_MS);
        long maxBackoff = config.get(TransportOptions.RECONNECT_MAX_BACKOFF_MS);
        if (maxBackoff < minBackoff) {
            throw new InvalidConfigurationException(config.keyOf(TransportOptions.RECONNECT_MAX_BACKOFF_MS), maxBackoff,
                    "expected at least " + config.keyOf(TransportOptions.RECONNECT_MIN_BACKOFF_MS) + " (" + minBackoff + ")");
        }
        Optional<Path> journal = optionalPath(config.get(TransportOptions.JOURNAL_DIR));
        if (config.get(TransportOptions.RELIABILITY) == Reliability.DURABLE && journal.isEmpty()) {
            throw new InvalidConfigurationException(config.keyOf(TransportOptions.RELIABILITY), "durable",
                    "a durable stream journals every batch: set " + config.keyOf(TransportOptions.JOURNAL_DIR));
        }
        if (journal.isPresent()) {
            JournalRuntime.check(config.keyOf(TransportOptions.JOURNAL_DIR), journal.get());
        }
        Optional<byte[]> secret = readSecret(config, TransportOptions.AUTH_SECRET_FILE);
        Optional<byte[]> relaySecret = readSecret(config, TransportOptions.RELAY_AUTH_SECRET_FILE);
        if (secret.isPresent() && relaySecret.isPresent() && java.util.Arrays.equals(secret.get(), relaySecret.get())) {
            throw new InvalidConfigurationException(config.keyOf(TransportOptions.RELAY_AUTH_SECRET_FILE),
                    config.get(TransportOptions.RELAY_AUTH_SECRET_FILE), "the relay secret equals the stream secret ("
                            + config.keyOf(TransportOptions.AUTH_SECRET_FILE) + "): a relay could act as the receiver");
        }
        Optional<TlsSettings> tls = Optional.empty();
        if (config.get(TransportOptions.TLS_ENABLED)) {
            Optional<Path> keyStore = existing(config, TransportOptions.TLS_KEY_STORE.key(), config.get(TransportOptions.TLS_KEY_STORE));
            Optional<Path> trustStore = existing(config, TransportOptions.TLS_TRUST_STORE.key(), config.get(TransportOptions.TLS_TRUST_STORE));
            if (keyStore.isEmpty() && trustStore.isEmpty()) {
                throw new InvalidConfigurationException(config.keyOf(TransportOptions.TLS_ENABLED), true,
                        "TLS needs " + config.keyOf(TransportOptions.TLS_KEY_STORE) + " (receivers) or "
                                + config.keyOf(TransportOptions.TLS_TRUST_STORE) + " (senders)");
            }
            tls = Optional.of(new TlsSettings(keyStore, config.get(TransportOptions.TLS_KEY_STORE_PASSWORD).toCharArray(),
                    trustStore, config.get(TransportOptions.TLS_TRUST_STORE_PASSWORD).toCharArray()));
        }
        return new TransportSettings(
                config.get(TransportOptions.BIND_ADDRESS),
                config.get(TransportOptions.IO),
                config.get(TransportOptions.IO_THREADS),
                config.get(TransportOptions.MAX_FRAME_BYTES),
                config.get(TransportOptions.WINDOW_BYTES),
                config.get(TransportOptions.MEMORY_BYTES),
                config.get(TransportOptions.RELIABILITY),
                config.get(TransportOptions.ORDERING),
                journal,
                config.get(TransportOptions.JOURNAL_MAX_BYTES),
                config.get(TransportOptions.JOURNAL_SYNC),
                config.get(TransportOptions.CHECKSUM),
                config.get(TransportOptions.RING_ENABLED) ? Optional.of(RingSettings.from(config)) : Optional.empty(),
                ms(config.get(TransportOptions.CONNECT_TIMEOUT_MS)),
                ms(config.get(TransportOptions.HANDSHAKE_TIMEOUT_MS)),
                config.get(TransportOptions.MAX_CONNECTIONS),
                config.get(TransportOptions.MAX_STREAMS),
                ms(config.get(TransportOptions.STREAM_IDLE_TIMEOUT_MS)),
                ms(minBackoff),
                ms(maxBackoff),
                ms(config.get(TransportOptions.SEND_TIMEOUT_MS)),
                ms(config.get(TransportOptions.CLOSE_TIMEOUT_MS)),
                secret,
                tls,
                BatchSettings.from(config),
                QosSettings.from(config),
                relaySecret,
                ms(config.get(TransportOptions.ROUTE_STALL_TIMEOUT_MS)),
                ms(config.get(TransportOptions.RELAY_CHOICE_INTERVAL_MS)));
    }

    private static Optional<byte[]> readSecret(JetStreamConfig config, io.jetstream.core.config.ConfigOption<String> option) {
        return optionalPath(config.get(option)).map(p -> {
            try {
                byte[] s = Files.readAllBytes(p);
                if (s.length < 16) {
                    throw new InvalidConfigurationException(config.keyOf(option), p,
                            "the secret file holds " + s.length + " bytes; at least 16 are required");
                }
                return s;
            } catch (IOException e) {
                throw new InvalidConfigurationException(config.keyOf(option), p, "cannot read the secret file: " + e);
            }
        });
    }

    /**
     * These settings with {@code secret} as the shared secret: an engine adapter hands the engine's
     * own secret to the transport when the engine's authentication is on.
     */
    public TransportSettings withSecret(byte[] secret) {
        if (relaySecret.isPresent() && java.util.Arrays.equals(secret, relaySecret.get())) {
            throw new IllegalArgumentException("the stream secret equals transport.relay.auth.secret-file's: a relay could act "
                    + "as the receiver");
        }
        return new TransportSettings(bindAddress, io, ioThreads, maxFrameBytes, windowBytes, memoryBytes, reliability, ordering,
                journalDir, journalMaxBytes, journalSync, checksum, ring, connectTimeoutNanos, handshakeTimeoutNanos, maxConnections,
                maxStreams, streamIdleTimeoutNanos, reconnectMinBackoffNanos, reconnectMaxBackoffNanos, sendTimeoutNanos,
                closeTimeoutNanos, Optional.of(secret.clone()), tls, batch, qos, relaySecret, routeStallTimeoutNanos, relayChoiceIntervalNanos);
    }

    /** These settings with streams closing within {@code nanos} (an engine's own flush timeout). */
    public TransportSettings withCloseTimeout(long nanos) {
        return new TransportSettings(bindAddress, io, ioThreads, maxFrameBytes, windowBytes, memoryBytes, reliability, ordering,
                journalDir, journalMaxBytes, journalSync, checksum, ring, connectTimeoutNanos, handshakeTimeoutNanos, maxConnections,
                maxStreams, streamIdleTimeoutNanos, reconnectMinBackoffNanos, reconnectMaxBackoffNanos, sendTimeoutNanos, nanos,
                secret, tls, batch, qos, relaySecret, routeStallTimeoutNanos, relayChoiceIntervalNanos);
    }

    private static Optional<Path> existing(JetStreamConfig config, String relativeKey, String value) {
        Optional<Path> p = optionalPath(value);
        p.ifPresent(path -> {
            if (!Files.isReadable(path)) {
                throw new InvalidConfigurationException(config.keyOf(TransportOptions.TLS_ENABLED).replace(
                        TransportOptions.TLS_ENABLED.key(), relativeKey), path, "no readable file there");
            }
        });
        return p;
    }

    private static Optional<Path> optionalPath(String value) {
        return value.isEmpty() ? Optional.empty() : Optional.of(Path.of(value));
    }

    private static long ms(long millis) {
        return TimeUnit.MILLISECONDS.toNanos(millis);
    }
}
