package io.jetstream.core.api;

import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.core.config.JetStreamConfig;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Validated settings of a replicating node, read once from {@link ReplicatorOptions#GROUP} (and the
 * {@code multicast.} options of its streams). Immutable.
 *
 * @param port where it receives; -1: no node
 * @param destinations the site's receivers
 */
public record ReplicatorSettings(int port, List<InetSocketAddress> destinations, long confirmIntervalNanos,
        MulticastSettings multicast) {
    public ReplicatorSettings {
        destinations = List.copyOf(destinations);
    }

    public static ReplicatorSettings from(JetStreamConfig config) {
        int port = config.get(ReplicatorOptions.PORT);
        String list = config.get(ReplicatorOptions.DESTINATIONS);
        List<InetSocketAddress> destinations = new ArrayList<>();
        for (String item : list.split(",")) {
            String s = item.trim();
            if (s.isEmpty()) {
                continue;
            }
            int colon = s.lastIndexOf(':');
            int p;
            try {
                p = colon > 0 ? Integer.parseInt(s.substring(colon + 1)) : -1;
            } catch (NumberFormatException e) {
                p = -1;
            }
            if (p < 1 || p > 65_535) {
                throw new InvalidConfigurationException(config.keyOf(ReplicatorOptions.DESTINATIONS), list,
                        "'" + s + "' is not host:port");
            }
            destinations.add(new InetSocketAddress(s.substring(0, colon), p));
        }
        if (port >= 0 && destinations.isEmpty()) {
            throw new InvalidConfigurationException(config.keyOf(ReplicatorOptions.DESTINATIONS), list,
                    "a replicating node needs the receivers of its site");
        }
        if (destinations.stream().distinct().count() != destinations.size()) {
            throw new InvalidConfigurationException(config.keyOf(ReplicatorOptions.DESTINATIONS), list, "a receiver is listed twice");
        }
        return new ReplicatorSettings(port, destinations,
                TimeUnit.MILLISECONDS.toNanos(config.get(ReplicatorOptions.CONFIRM_INTERVAL_MS)), MulticastSettings.from(config));
    }

    /** Whether a node is configured. */
    public boolean enabled() {
        return port >= 0;
    }
}
