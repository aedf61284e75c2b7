package io.jetstream.core.api;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;

/**
 * The ways one stream reaches its receiver (JetStream §3.2, Fig. 2): the direct route, and one route
 * through each relay, an intermediate node of the sender's site with its own share of the
 * inter-site bandwidth. Route 0 is the direct one; route {@code i ≥ 1} goes through
 * {@code relays.get(i - 1)}, which forwards the stream's frames unchanged to {@code receiver}.
 *
 * <p>How many routes carry batches at a time is the batch oracle's decision (adaptive batch mode;
 * all of them in fixed mode); which relays those are is {@code choice}'s.
 *
 * @param receiver the receiver's address as the relays and the sender reach it
 * @param relays relays of the sender's site, each at most once (empty: the direct route only)
 * @param choice which relays carry the stream when the oracle uses fewer routes than there are
 */
public record StreamRoutes(InetSocketAddress receiver, List<InetSocketAddress> relays, RelayChoice choice) {
    /** Which relays carry a stream when not all of them are needed. */
    public enum RelayChoice {
        /** The relays in the order given: route 1 first, then route 2... */
        IN_ORDER,
        /**
         * JetStream's ant colony (§3.5, Algorithm 1) orders the relays by their measured read rates,
         * re-evaluated while the stream runs; a relay that does not answer is left out.
         */
        ANT_COLONY,
        /**
         * Algorithm 1's greedy first solution alone, re-evaluated on the same measurements as the colony:
         * relays by falling read rate, each added while it raises the goodput.
         */
        GREEDY,
        /**
         * As many answering relays as the oracle allows, drawn at random once and kept while they answer:
         * the baseline the colony is measured against.
         */
        RANDOM
    }

    public StreamRoutes {
        Objects.requireNonNull(receiver, "receiver");
        relays = List.copyOf(relays);
        Objects.requireNonNull(choice, "choice");
        if (relays.contains(receiver)) {
            throw new IllegalArgumentException("the receiver " + receiver + " is listed as a relay");
        }
        if (relays.stream().distinct().count() != relays.size()) {
            throw new IllegalArgumentException("a relay is listed twice: " + relays);
        }
    }

    /** The direct route only. */
    public static StreamRoutes direct(InetSocketAddress receiver) {
        return new StreamRoutes(receiver, List.of(), RelayChoice.IN_ORDER);
    }

    /** The direct route and one route through each of {@code relays}. */
    public static StreamRoutes via(InetSocketAddress receiver, List<InetSocketAddress> relays, RelayChoice choice) {
        return new StreamRoutes(receiver, relays, choice);
    }

    /** Routes of the stream: the direct one and one per relay. */
    public int routeCount() {
        return 1 + relays.size();
    }

    /** The relay route {@code route} goes through, or null for the direct route 0. */
    public InetSocketAddress relayOf(int route) {
        return route == 0 ? null : relays.get(route - 1);
    }
}
