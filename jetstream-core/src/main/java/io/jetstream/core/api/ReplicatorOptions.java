package io.jetstream.core.api;

import io.jetstream.core.config.ConfigOption;
import io.jetstream.core.config.OptionGroup;
import java.util.List;

/**
 * Options of a replicating node ({@link Replicator}): a node of a destination site that receives a
 * multicast stream once and sends it on to the site's receivers. Keys under {@code replicator.}
 * ({@code jetstream.replicator.*} in the relay process, which runs one when {@code replicator.port} is set).
 */
public final class ReplicatorOptions {
    private ReplicatorOptions() {}

    public static final ConfigOption<Integer> PORT = ConfigOption.intOption(
            "replicator.port", -1, -1, 65_535,
            "Port the replicating node receives multicast streams on (bound to `transport.bind-address`); -1: no "
                    + "replicating node, 0: any free port.");

    public static final ConfigOption<String> DESTINATIONS = ConfigOption.optionalStringOption(
            "replicator.destinations",
            "The receivers of this site every stream is sent on to, as `host:port` separated by commas. Required with "
                    + "`replicator.port`.");

    public static final ConfigOption<Long> CONFIRM_INTERVAL_MS = ConfigOption.longOption(
            "replicator.confirm-interval-ms", 50, 1, 60_000,
            "How often the node tells each sender the position every receiver of its site has acknowledged (what the "
                    + "sender may forget, and where it resumes if the node is lost).");

    public static final OptionGroup GROUP = new OptionGroup(
            "Replicating node",
            "replicator.",
            "Read when a replicating node starts (the relay process with `replicator.port`, or `Replicator.start`); its "
                    + "connections use the `transport.` options, its streams on to the site's receivers the `multicast.` "
                    + "ones. docs/cross-site.md.",
            List.of(PORT, DESTINATIONS, CONFIRM_INTERVAL_MS));
}
