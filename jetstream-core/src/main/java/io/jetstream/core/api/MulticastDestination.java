package io.jetstream.core.api;

import java.util.List;
import java.util.Objects;

/**
 * One destination of a multicast stream: a receiver reached directly, or a destination site reached
 * through its replicating node ({@link Replicator}), which forwards every record to the site's
 * receivers ({@code members}). If the replicating node stays unreachable for
 * {@code multicast.failover-timeout-ms}, the multicast sends to the members directly, from the oldest
 * record the node had not confirmed; receivers drop what they already had ({@link MulticastReceiver}).
 *
 * @param name names the destination in metrics, logs and {@link MulticastStream#leave}; unique per stream
 * @param target the target id the destination's receiver accepts
 * @param routes how the multicast reaches it (the receiver, or the replicating node, and relays of this site)
 * @param members for a replicating node, the routes to its site's receivers; empty for a receiver
 */
public record MulticastDestination(String name, int target, StreamRoutes routes, List<StreamRoutes> members) {
    public MulticastDestination {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(routes, "routes");
        members = List.copyOf(members);
        if (name.isBlank()) {
            throw new IllegalArgumentException("a multicast destination needs a name");
        }
    }

    /** A receiver the multicast sends to itself. */
    public static MulticastDestination direct(String name, int target, StreamRoutes routes) {
        return new MulticastDestination(name, target, routes, List.of());
    }

    /** A destination site reached through its replicating node at {@code replicator}, serving {@code members}. */
    public static MulticastDestination replicated(String name, int target, StreamRoutes replicator, List<StreamRoutes> members) {
        if (members.isEmpty()) {
            throw new IllegalArgumentException("the replicated destination " + name + " lists no member receivers");
        }
        return new MulticastDestination(name, target, replicator, members);
    }

    /** Whether the multicast reaches it through a replicating node. */
    public boolean replicated() {
        return !members.isEmpty();
    }
}
