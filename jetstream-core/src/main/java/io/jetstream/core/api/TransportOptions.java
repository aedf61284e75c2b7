package io.jetstream.core.api;

import io.jetstream.core.config.ConfigOption;
import io.jetstream.core.config.OptionGroup;
import java.util.List;

/** Options of the JetStream Netty transport, under {@code transport.} in every engine's JetStream prefix. */
public final class TransportOptions {
    private TransportOptions() {}

    /** What a stream promises about delivery. */
    public enum Reliability {
        /** Batches not acknowledged when a connection drops are discarded and counted (Storm's semantics). */
        BEST_EFFORT,
        /** Unacknowledged batches are kept (memory, then journal) and replayed; the receiver drops duplicates. */
        ACKNOWLEDGED,
        /**
         * As acknowledged, and every batch is written to the journal before it is sent, with the
         * stream's epoch: a sender restarted with the same peer and stream id replays what its
         * receiver has not acknowledged (needs {@code transport.journal.dir}).
         */
        DURABLE
    }

    /** When a durable journal forces what it wrote to disk (Chronicle Queue's sync modes). */
    public enum JournalSync {
        /** Never: the batch is in the page cache when it is sent; survives the process, not the host. */
        NONE,
        /** msync(MS_ASYNC) after each batch: write-back is started, not awaited. */
        ASYNC,
        /** msync(MS_SYNC) after each batch: on disk before it is sent; survives the host. */
        SYNC
    }

    /** How a receiver orders the batches of a stream that arrive over several routes. */
    public enum Ordering {
        /** Never deliver out of sequence order (an ordered buffer waits for gaps). */
        STRICT,
        /** Deliver as received; duplicates are still dropped. */
        RELAXED
    }

    /** Which Netty I/O implementation. */
    public enum Io { AUTO, EPOLL, NIO }

    public static final ConfigOption<String> BIND_ADDRESS = ConfigOption.optionalStringOption(
            "transport.bind-address",
            "Address the receiver binds to. Empty: the address this host's name resolves to (never all "
                    + "interfaces unless `0.0.0.0` is given explicitly). Without `transport.auth.secret-file` any "
                    + "peer that reaches this address may deliver records: bind to a trusted network.");

    public static final ConfigOption<Io> IO = ConfigOption.enumOption(
            "transport.io", Io.class, Io.AUTO,
            "`auto`: epoll where the native library loads, else NIO; `epoll` fails at start-up without it; `nio`.");

    public static final ConfigOption<Integer> IO_THREADS = ConfigOption.intOption(
            "transport.io-threads", 2, 1, 64,
            "Netty I/O threads per transport instance, shared by its senders and receivers (dedicated: "
                    + "network handling must not compete with the engine's task threads).");

    public static final ConfigOption<Integer> MAX_FRAME_BYTES = ConfigOption.intOption(
            "transport.max-frame-bytes", 8 << 20, 1024, 1 << 30,
            "Largest frame accepted or sent; bounds a batch and a record. A peer announcing a longer "
                    + "frame is disconnected before anything is buffered.");

    public static final ConfigOption<Integer> WINDOW_BYTES = ConfigOption.intOption(
            "transport.window-bytes", 4 << 20, 1024, 1 << 30,
            "Bytes a stream may have sent but not acknowledged (flow control). A single batch larger "
                    + "than the window still goes when nothing is in flight.");

    public static final ConfigOption<Long> MEMORY_BYTES = ConfigOption.longOption(
            "transport.memory-bytes", 64L << 20, 1024, 1L << 40,
            "Bytes of sealed batches (unsent or unacknowledged) a stream keeps in memory; beyond it "
                    + "`acknowledged` streams spill to the journal, or push back on the caller without one. In "
                    + "`adaptive` batch mode a connected stream narrows it to what its link drains within "
                    + "`batch.max-event-delay-ms` (at least 256 KiB), so overload pushes back instead of queueing.");

    public static final ConfigOption<Reliability> RELIABILITY = ConfigOption.enumOption(
            "transport.reliability", Reliability.class, Reliability.BEST_EFFORT,
            "`best-effort`: drop and count what a lost connection had not confirmed; `acknowledged`: "
                    + "keep and replay it, the receiver dropping duplicates by sequence; `durable`: as acknowledged, "
                    + "and every batch is journaled before it is sent so that a restarted sender (same peer and stream "
                    + "id) replays what its receiver has not acknowledged (needs `transport.journal.dir`).");

    public static final ConfigOption<Ordering> ORDERING = ConfigOption.enumOption(
            "transport.ordering", Ordering.class, Ordering.STRICT,
            "Initial receiver ordering of multi-route streams (`strict` or `relaxed`); switchable at run time.");

    public static final ConfigOption<String> JOURNAL_DIR = ConfigOption.optionalStringOption(
            "transport.journal.dir",
            "Directory of the Chronicle Queue journals (one sub-directory per peer and stream): the spill "
                    + "journal of `acknowledged` streams, the write-ahead journal of `durable` ones. Empty: no journal "
                    + "(a full memory budget pushes back instead); required by `durable`. The journal is the one "
                    + "feature that needs JVM flags: `" + String.join(" ", JournalRuntime.launcherFlags()) + "` "
                    + "(checked at start-up), and Chronicle Queue next to JetStream's jar.");

    public static final ConfigOption<Long> JOURNAL_MAX_BYTES = ConfigOption.longOption(
            "transport.journal.max-bytes", 1L << 30, 1L << 20, 1L << 50,
            "Bytes one stream may spill to its journal before pushing back on the caller.");

    public static final ConfigOption<JournalSync> JOURNAL_SYNC = ConfigOption.enumOption(
            "transport.journal.sync", JournalSync.class, JournalSync.NONE,
            "When a `durable` stream's journal is forced to disk: `none` (the page cache holds each batch "
                    + "before it is sent: it survives the process being killed, not the host), `async` (write-back "
                    + "started after each batch), `sync` (each batch on disk before it is sent). Measured costs: "
                    + "docs/reliability.md.");

    public static final ConfigOption<Boolean> CHECKSUM = ConfigOption.booleanOption(
            "transport.checksum", true,
            "CRC32C over every batch's records, checked by the receiver (a mismatch closes the connection).");

    public static final ConfigOption<Long> CONNECT_TIMEOUT_MS = ConfigOption.longOption(
            "transport.connect-timeout-ms", 5_000, 1, 600_000,
            "Timeout of one connection attempt including the handshake.");

    public static final ConfigOption<Long> HANDSHAKE_TIMEOUT_MS = ConfigOption.longOption(
            "transport.handshake-timeout-ms", 2_000, 1, 600_000,
            "How long a receiver keeps a connection that has not completed its handshake (HELLO "
                    + "authenticated and admitted); until then a peer may send only frames of at most 4 KiB.");

    public static final ConfigOption<Integer> MAX_CONNECTIONS = ConfigOption.intOption(
            "transport.max-connections", 1_024, 1, 1_000_000,
            "Connections a receiver keeps open at once, handshaking or not; further ones are closed at once and counted.");

    public static final ConfigOption<Integer> MAX_STREAMS = ConfigOption.intOption(
            "transport.max-streams", 65_536, 1, 10_000_000,
            "Streams (peer and stream id) a receiver tracks; a HELLO for a new one beyond that is refused.");

    public static final ConfigOption<Long> STREAM_IDLE_TIMEOUT_MS = ConfigOption.longOption(
            "transport.stream-idle-timeout-ms", 300_000, 1, 86_400_000,
            "How long a receiver keeps the state of a stream whose routes are all gone (its ordering "
                    + "buffer, for a sender that reconnects); a stream its sender closed is forgotten at once. "
                    + "The delivered watermark stays in the sequence store either way.");

    public static final ConfigOption<Long> RECONNECT_MIN_BACKOFF_MS = ConfigOption.longOption(
            "transport.reconnect.min-backoff-ms", 100, 1, 600_000,
            "Wait between connection attempts of a route that has not connected yet (its receiver may still be "
                    + "starting), and the first wait before reconnecting a lost route, doubled per failed attempt and "
                    + "reset on success.");

    public static final ConfigOption<Long> RECONNECT_MAX_BACKOFF_MS = ConfigOption.longOption(
            "transport.reconnect.max-backoff-ms", 5_000, 1, 3_600_000,
            "Longest wait between attempts to reconnect a lost route; at least the minimum.");

    public static final ConfigOption<Long> SEND_TIMEOUT_MS = ConfigOption.longOption(
            "transport.send-timeout-ms", 30_000, 0, 3_600_000,
            "How long a blocking send waits while the stream pushes back before it fails.");

    public static final ConfigOption<Long> CLOSE_TIMEOUT_MS = ConfigOption.longOption(
            "transport.close-timeout-ms", 10_000, 0, 3_600_000,
            "How long closing a stream waits for pending batches to be acknowledged; what is left is "
                    + "counted as dropped and logged.");

    public static final ConfigOption<Long> RELAY_CHOICE_INTERVAL_MS = ConfigOption.longOption(
            "transport.relay.choice-interval-ms", 2_000, 10, 3_600_000,
            "How often a stream whose relays are chosen by the ant colony (`StreamRoutes.RelayChoice.ANT_COLONY`) "
                    + "measures its routes' read rates and chooses again which relays carry it (docs/cross-site.md#choosing-relays-the-ant-colony).");

    public static final ConfigOption<Boolean> RING_ENABLED = ConfigOption.booleanOption(
            "transport.ring.enabled", true,
            "Move a stream's batches onto the receiver's shared-memory ring (`ring.` options) when the "
                    + "handshake shows both ends on one host; acknowledgements and control stay on TCP. Turn "
                    + "off to force TCP (e.g. to measure it, or where /dev/shm is not shared).");

    public static final ConfigOption<String> AUTH_SECRET_FILE = ConfigOption.optionalStringOption(
            "transport.auth.secret-file",
            "File holding a shared secret (at least 16 bytes): senders and receivers prove to each other "
                    + "that they know it (HMAC-SHA256 over every handshake field and both sides' nonces). Empty: no "
                    + "authentication, any peer that reaches the port may deliver. Engine adapters use the engine's "
                    + "own secret when its authentication is on. Read at start-up.");

    public static final ConfigOption<String> RELAY_AUTH_SECRET_FILE = ConfigOption.optionalStringOption(
            "transport.relay.auth.secret-file",
            "File holding the relay secret (at least 16 bytes) a sender proves to the relays of its site, and "
                    + "they to it, before a relay forwards a route (docs/cross-site.md). Required to open a stream "
                    + "through relays; must differ from `transport.auth.secret-file`, so a relay cannot act as the "
                    + "receiver. Read at start-up.");

    public static final ConfigOption<Long> ROUTE_STALL_TIMEOUT_MS = ConfigOption.longOption(
            "transport.route-stall-timeout-ms", 5_000, 0, 3_600_000,
            "A route through a relay that has sent a batch and received no frame for this long is closed as lost "
                    + "(a hung relay keeps its TCP connections open): its unacknowledged batches go to the other routes. "
                    + "Direct routes are not checked (a receiver blocked in delivery by its engine is not hung). 0: off.");

    public static final ConfigOption<Boolean> TLS_ENABLED = ConfigOption.booleanOption(
            "transport.tls.enabled", false,
            "TLS on every connection (Netty SslHandler, JDK provider).");

    public static final ConfigOption<String> TLS_KEY_STORE = ConfigOption.optionalStringOption(
            "transport.tls.key-store", "PKCS#12 key store with the receiver's key and certificate; required "
                    + "with TLS for receivers.");

    public static final ConfigOption<String> TLS_KEY_STORE_PASSWORD = ConfigOption.sensitiveStringOption(
            "transport.tls.key-store-password", "Password of the key store.");

    public static final ConfigOption<String> TLS_TRUST_STORE = ConfigOption.optionalStringOption(
            "transport.tls.trust-store", "PKCS#12 trust store senders verify receivers against; required "
                    + "with TLS for senders.");

    public static final ConfigOption<String> TLS_TRUST_STORE_PASSWORD = ConfigOption.sensitiveStringOption(
            "transport.tls.trust-store-password", "Password of the trust store.");

    public static final OptionGroup GROUP = new OptionGroup(
            "Netty transport",
            "transport.",
            "Read when a JetStream transport instance starts (its senders' batching comes from the "
                    + "`batch.` options). Wire protocol: docs/protocol.md.",
            List.of(BIND_ADDRESS, IO, IO_THREADS, MAX_FRAME_BYTES, WINDOW_BYTES, MEMORY_BYTES, RELIABILITY, ORDERING,
                    JOURNAL_DIR, JOURNAL_MAX_BYTES, JOURNAL_SYNC, CHECKSUM, RING_ENABLED, CONNECT_TIMEOUT_MS,
                    HANDSHAKE_TIMEOUT_MS, MAX_CONNECTIONS, MAX_STREAMS, STREAM_IDLE_TIMEOUT_MS, RECONNECT_MIN_BACKOFF_MS,
                    RECONNECT_MAX_BACKOFF_MS, SEND_TIMEOUT_MS, CLOSE_TIMEOUT_MS, AUTH_SECRET_FILE, RELAY_AUTH_SECRET_FILE,
                    ROUTE_STALL_TIMEOUT_MS, RELAY_CHOICE_INTERVAL_MS, TLS_ENABLED,
                    TLS_KEY_STORE, TLS_KEY_STORE_PASSWORD, TLS_TRUST_STORE, TLS_TRUST_STORE_PASSWORD));
}
