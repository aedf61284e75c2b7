package io.jetstream.core.api;

import io.jetstream.core.config.ConfigOption;
import io.jetstream.core.config.OptionGroup;
import java.util.List;

/**
 * Options of a multicast stream ({@link Transport#openMulticast}): one stream to several destinations,
 * directly or through a replicating node of a destination site (docs/cross-site.md, "One stream to
 * several sites"). Keys under {@code multicast.}.
 */
public final class MulticastOptions {
    private MulticastOptions() {}

    /** What a destination that cannot keep up does to the others (Aeron's flow-control modes, made explicit). */
    public enum SlowDestination {
        /**
         * The slowest destination sets the pace (Aeron's minimum flow control): when it trails the newest
         * record by {@code multicast.max-lag-bytes}, the stream pushes back on its producer. A destination
         * that takes nothing for {@code multicast.hold-timeout-ms} while it holds the others is dropped
         * (reason {@code slow}) and the others go on.
         */
        HOLD,
        /**
         * The others go on (Aeron's maximum flow control): a slow destination's records wait for it in its own
         * stream (memory, then its journal where the transport has one), then in the multicast's log; one that
         * trails the newest record by more than {@code multicast.max-lag-bytes} is dropped (reason {@code lagged}).
         */
        LEAVE_BEHIND
    }

    public static final ConfigOption<SlowDestination> SLOW_DESTINATION = ConfigOption.enumOption(
            "multicast.slow-destination", SlowDestination.class, SlowDestination.HOLD,
            "`hold`: the slowest destination sets the pace, up to `multicast.hold-timeout-ms`; `leave-behind`: "
                    + "the others go on and a destination that trails by more than `multicast.max-lag-bytes` is dropped.");

    public static final ConfigOption<Long> MAX_LAG_BYTES = ConfigOption.longOption(
            "multicast.max-lag-bytes", 64L << 20, 64L << 10, 1L << 40,
            "Most record bytes a destination may trail the newest record by (records offered to its stream and, for a "
                    + "replicating node, not yet confirmed by its site's destinations are kept this long, to be sent "
                    + "again if the node is lost).");

    public static final ConfigOption<Long> HOLD_TIMEOUT_MS = ConfigOption.longOption(
            "multicast.hold-timeout-ms", 10_000, 0, 3_600_000,
            "With `hold`: how long a destination may hold the others without taking a record before it is dropped; 0: "
                    + "never dropped.");

    public static final ConfigOption<Integer> BUFFER_BYTES = ConfigOption.powerOfTwoOption(
            "multicast.buffer-bytes", 4 << 20, 64 << 10, 1 << 30,
            "Bytes of the hand-over ring between the producer and the multicast's sending thread; a record may be at "
                    + "most an eighth of it.");

    public static final ConfigOption<Long> FAILOVER_TIMEOUT_MS = ConfigOption.longOption(
            "multicast.failover-timeout-ms", 3_000, 1, 600_000,
            "How long a replicating node may be unreachable before its site's destinations are sent to directly, "
                    + "from the oldest record the node had not confirmed.");

    public static final OptionGroup GROUP = new OptionGroup(
            "Multicast",
            "multicast.",
            "Read when a multicast stream opens (`Transport.openMulticast`). The choice between direct multicast and "
                    + "replication at a destination site: docs/cross-site.md.",
            List.of(SLOW_DESTINATION, MAX_LAG_BYTES, HOLD_TIMEOUT_MS, BUFFER_BYTES, FAILOVER_TIMEOUT_MS));
}
