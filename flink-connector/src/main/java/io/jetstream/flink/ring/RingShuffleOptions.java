package io.jetstream.flink.ring;

import io.jetstream.core.config.ConfigOption;
import io.jetstream.core.config.OptionGroup;
import java.util.List;

/**
 * Options of the same-host ring path between Flink TaskManagers, under
 * {@code taskmanager.network.jetstream.ring.}. The ring itself (capacity, largest record, idle
 * strategy, liveness interval) is configured by core's {@code ring.*} options under the same prefix
 * ({@link io.jetstream.core.ring.RingOptions}).
 */
public final class RingShuffleOptions {
    private RingShuffleOptions() {}

    public static final ConfigOption<Boolean> ENABLED = ConfigOption.booleanOption(
            "ring.enabled", true,
            "Buffers between TaskManagers on one host (same address, same user, a usable ring directory) move "
                    + "through JetStream's shared-memory ring instead of Flink's Netty over TCP loopback; every other "
                    + "connection, and any connection whose ring cannot be opened, stays on Netty. false: Flink's "
                    + "own connection manager exactly.");

    public static final ConfigOption<Long> CONNECT_TIMEOUT_MS = ConfigOption.longOption(
            "ring.connect-timeout-ms", 5_000, 1, 600_000,
            "How long a TaskManager waits for a same-host peer to answer its ring handshake before it uses "
                    + "Netty for that connection (logged with the cause).");

    public static final OptionGroup GROUP = new OptionGroup(
            "Flink same-host ring",
            "ring.",
            "Read at TaskManager start by `io.jetstream.flink.shuffle.JetStreamShuffleServiceFactory`. The ring's "
                    + "own keys (`ring.capacity-bytes`, `ring.max-record-bytes`, `ring.idle.*`, "
                    + "`ring.liveness-check-interval-ms`, `ring.directory`) are core's, listed above, under the same "
                    + "prefix; `ring.max-record-bytes` must hold one network buffer (`taskmanager.memory.segment-size`) "
                    + "plus 32 bytes.",
            List.of(ENABLED, CONNECT_TIMEOUT_MS));
}
