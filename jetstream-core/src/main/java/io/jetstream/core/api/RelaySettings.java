package io.jetstream.core.api;

import io.jetstream.core.api.TransportSettings.TlsSettings;
import io.jetstream.core.config.ConfigOption;
import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.core.config.JetStreamConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Validated settings of a relay, read once from {@link RelayOptions#GROUP}: the secret file and the
 * TLS stores are read or checked here, so a relay that could not run safely fails at start, naming
 * the key. Immutable.
 */
public record RelaySettings(
        String bindAddress,
        int port,
        byte[] secret,
        long streamMemoryBytes,
        int maxStreams,
        int maxFrameBytes,
        long connectTimeoutNanos,
        long handshakeTimeoutNanos,
        Optional<TlsSettings> tls,
        int ioThreads,
        long metricsLogIntervalNanos,
        int metricsPort) {

    public static RelaySettings from(JetStreamConfig config) {
        String secretFile = config.get(RelayOptions.AUTH_SECRET_FILE);
        if (secretFile.isEmpty()) {
            throw new InvalidConfigurationException(config.keyOf(RelayOptions.AUTH_SECRET_FILE), "",
                    "a relay needs a secret: without one it would forward anyone's traffic to another site");
        }
        byte[] secret;
        try {
            secret = Files.readAllBytes(Path.of(secretFile));
        } catch (IOException e) {
            throw new InvalidConfigurationException(config.keyOf(RelayOptions.AUTH_SECRET_FILE), secretFile,
                    "cannot read the secret file: " + e);
        }
        if (secret.length < 16) {
            throw new InvalidConfigurationException(config.keyOf(RelayOptions.AUTH_SECRET_FILE), secretFile,
                    "the secret file holds " + secret.length + " bytes; at least 16 are required");
        }
        Optional<TlsSettings> tls = Optional.empty();
        if (config.get(RelayOptions.TLS_ENABLED)) {
            Path keyStore = requiredFile(config, RelayOptions.TLS_KEY_STORE, "senders verify the relay's certificate");
            Path trustStore = requiredFile(config, RelayOptions.TLS_TRUST_STORE, "the relay verifies the receivers' certificates");
            tls = Optional.of(new TlsSettings(Optional.of(keyStore), config.get(RelayOptions.TLS_KEY_STORE_PASSWORD).toCharArray(),
                    Optional.of(trustStore), config.get(RelayOptions.TLS_TRUST_STORE_PASSWORD).toCharArray()));
        }
        return new RelaySettings(
                config.get(RelayOptions.BIND_ADDRESS),
                config.get(RelayOptions.PORT),
                secret,
                config.get(RelayOptions.STREAM_MEMORY_BYTES),
                config.get(RelayOptions.MAX_STREAMS),
                config.get(RelayOptions.MAX_FRAME_BYTES),
                TimeUnit.MILLISECONDS.toNanos(config.get(RelayOptions.CONNECT_TIMEOUT_MS)),
                TimeUnit.MILLISECONDS.toNanos(config.get(RelayOptions.HANDSHAKE_TIMEOUT_MS)),
                tls,
                config.get(RelayOptions.IO_THREADS),
                TimeUnit.MILLISECONDS.toNanos(config.get(RelayOptions.METRICS_LOG_INTERVAL_MS)),
                config.get(RelayOptions.METRICS_PORT));
    }

    /** These settings listening on {@code port} (0: any), e.g. a relay restarted on the port it had. */
    public RelaySettings withPort(int port) {
        return new RelaySettings(bindAddress, port, secret, streamMemoryBytes, maxStreams, maxFrameBytes, connectTimeoutNanos,
                handshakeTimeoutNanos, tls, ioThreads, metricsLogIntervalNanos, metricsPort);
    }

    private static Path requiredFile(JetStreamConfig config, ConfigOption<String> option, String why) {
        String value = config.get(option);
        if (value.isEmpty()) {
            throw new InvalidConfigurationException(config.keyOf(option), "",
                    "required with " + config.keyOf(RelayOptions.TLS_ENABLED) + ": " + why);
        }
        Path p = Path.of(value);
        if (!Files.isReadable(p)) {
            throw new InvalidConfigurationException(config.keyOf(option), p, "no readable file there");
        }
        return p;
    }
}
