package io.jetstream.core.api;

import java.util.List;
import java.util.Objects;

/**
 * A destination site of a planned multicast ({@link Transport#openPlannedMulticast}): its receivers, and its
 * replicating node ({@link Replicator}), through which the multicast reaches them when its plan says so.
 *
 * @param name names the site in metrics and logs (its destinations are named {@code name} through the node,
 *     {@code name/0}, {@code name/1}... directly)
 * @param target the target id the receivers accept
 * @param replicator how the multicast reaches the site's replicating node
 * @param receivers how it reaches each receiver directly
 */
public record MulticastSite(String name, int target, StreamRoutes replicator, List<StreamRoutes> receivers) {
    public MulticastSite {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(replicator, "replicator");
        receivers = List.copyOf(receivers);
        if (name.isBlank() || name.contains("/") || receivers.isEmpty()) {
            throw new IllegalArgumentException("multicast site '" + name + "' with " + receivers.size()
                    + " receivers: a name without '/' and at least one receiver");
        }
    }
}
