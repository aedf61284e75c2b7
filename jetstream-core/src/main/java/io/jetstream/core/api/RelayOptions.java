package io.jetstream.core.api;

import io.jetstream.core.config.ConfigOption;
import io.jetstream.core.config.OptionGroup;
import java.util.List;

/**
 * Options of a relay (docs/cross-site.md, "The relay"): an intermediate node of the sender's site
 * that forwards routes of streams, unchanged, to receivers of another site. Keys under {@code relay.}
 * ({@code jetstream.relay.*} in a standalone process, {@link io.jetstream.core.config.ConfigScope#STANDALONE}).
 */
public final class RelayOptions {
    private RelayOptions() {}

    public static final ConfigOption<String> BIND_ADDRESS = ConfigOption.stringOption(
            "relay.bind-address", "0.0.0.0",
            "Address the relay accepts senders on.");

    public static final ConfigOption<Integer> PORT = ConfigOption.intOption(
            "relay.port", 7_400, 0, 65_535,
            "Port the relay accepts senders on (0: any free port).");

    public static final ConfigOption<String> AUTH_SECRET_FILE = ConfigOption.optionalStringOption(
            "relay.auth.secret-file",
            "File holding the relay secret (at least 16 bytes), the one senders hold in "
                    + "`transport.relay.auth.secret-file`. Required: a relay without one would forward anyone's traffic "
                    + "to another site, so it refuses to start.");

    public static final ConfigOption<Long> STREAM_MEMORY_BYTES = ConfigOption.longOption(
            "relay.stream-memory-bytes", 4L << 20, 64L << 10, 1L << 34,
            "Bytes a relayed route may queue per direction before the relay stops reading its other side (the "
                    + "write buffer's high-water mark): TCP then pushes back on the sender.");

    public static final ConfigOption<Integer> MAX_STREAMS = ConfigOption.intOption(
            "relay.max-streams", 1_024, 1, 1_000_000,
            "Routes the relay carries at once, handshaking or not; further connections are closed at once.");

    public static final ConfigOption<Integer> MAX_FRAME_BYTES = ConfigOption.intOption(
            "relay.max-frame-bytes", TransportOptions.MAX_FRAME_BYTES.defaultValue(), 1 << 16, 1 << 30,
            "Largest frame the relay forwards after the relay handshake; before it, 4 KiB. Must be at least the "
                    + "senders' `transport.max-frame-bytes` (the same default): adaptive batches grow to that size at "
                    + "full speed, and a larger frame ends its route (the relay tells the sender why).");

    public static final ConfigOption<Long> CONNECT_TIMEOUT_MS = ConfigOption.longOption(
            "relay.connect-timeout-ms", 5_000, 1, 600_000,
            "Timeout of the relay's connection to a route's destination.");

    public static final ConfigOption<Long> HANDSHAKE_TIMEOUT_MS = ConfigOption.longOption(
            "relay.handshake-timeout-ms", 2_000, 1, 600_000,
            "How long the relay keeps a sender's connection that has not sent an authenticated RELAY_REQUEST.");

    public static final ConfigOption<Boolean> TLS_ENABLED = ConfigOption.booleanOption(
            "relay.tls.enabled", false,
            "TLS on both legs: senders verify the relay's certificate, the relay verifies the receiver's.");

    public static final ConfigOption<String> TLS_KEY_STORE = ConfigOption.optionalStringOption(
            "relay.tls.key-store", "PKCS#12 key store with the relay's key and certificate (the leg from the senders).");

    public static final ConfigOption<String> TLS_KEY_STORE_PASSWORD = ConfigOption.sensitiveStringOption(
            "relay.tls.key-store-password", "Password of the key store.");

    public static final ConfigOption<String> TLS_TRUST_STORE = ConfigOption.optionalStringOption(
            "relay.tls.trust-store", "PKCS#12 trust store the relay verifies receivers against (the leg that leaves the site).");

    public static final ConfigOption<String> TLS_TRUST_STORE_PASSWORD = ConfigOption.sensitiveStringOption(
            "relay.tls.trust-store-password", "Password of the trust store.");

    public static final ConfigOption<Integer> IO_THREADS = ConfigOption.intOption(
            "relay.io-threads", 2, 1, 256,
            "Netty I/O threads of the relay (epoll where available); a route's two connections share one.");

    public static final ConfigOption<Long> METRICS_LOG_INTERVAL_MS = ConfigOption.longOption(
            "relay.metrics-log-interval-ms", 10_000, 0, 86_400_000,
            "Period of the relay's per-stream log line (INFO); 0: only when a stream ends.");

    public static final ConfigOption<Integer> METRICS_PORT = ConfigOption.intOption(
            "relay.metrics-port", -1, -1, 65_535,
            "Port of the relay process's HTTP `/metrics` (JSON per stream); -1: off, 0: any free port.");

    public static final OptionGroup GROUP = new OptionGroup(
            "Relay",
            "relay.",
            "Read when a relay starts (`bin/jetstream-relay`, or `Relay.start`). What a relay can and cannot do: "
                    + "docs/cross-site.md.",
            List.of(BIND_ADDRESS, PORT, AUTH_SECRET_FILE, STREAM_MEMORY_BYTES, MAX_STREAMS, MAX_FRAME_BYTES, CONNECT_TIMEOUT_MS,
                    HANDSHAKE_TIMEOUT_MS, TLS_ENABLED, TLS_KEY_STORE, TLS_KEY_STORE_PASSWORD, TLS_TRUST_STORE,
                    TLS_TRUST_STORE_PASSWORD, IO_THREADS, METRICS_LOG_INTERVAL_MS, METRICS_PORT));
}
