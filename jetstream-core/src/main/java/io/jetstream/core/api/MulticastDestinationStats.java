package io.jetstream.core.api;

/**
 * One destination of a multicast stream as it stands.
 *
 * @param name the destination's name
 * @param state what the multicast does with it now
 * @param offeredPosition position of the last record handed to its stream (0: none)
 * @param confirmedPosition position up to which it confirmed every record (acknowledged by the receiver, or, for
 *     a replicating node, by every receiver of its site)
 * @param lagBytes record bytes it trails the newest record by
 * @param reason why it was dropped or switched ("" otherwise)
 * @param bytesSent bytes of the batches its stream sealed, frame headers included (what left for it; replays not counted)
 * @param batchesSent batches its stream sealed
 * @param connected whether its stream has a route ready now
 * @param ackLatencyMicros its stream's recent acknowledgement round trip (see {@link SenderMetrics#ackLatencyMicros})
 * @param routesInUse routes its stream used recently (see {@link SenderMetrics#routesInUse})
 * @param lastRefusal why its receiver (or a relay) last refused its stream's connection ("" if never)
 */
public record MulticastDestinationStats(String name, State state, long offeredPosition, long confirmedPosition,
        long lagBytes, String reason, long bytesSent, long batchesSent, boolean connected, long ackLatencyMicros,
        int routesInUse, String lastRefusal) {
    /** What the multicast does with a destination. */
    public enum State {
        /** Sends to the receiver itself. */
        DIRECT,
        /** Sends to the site's replicating node. */
        REPLICATED,
        /** The replicating node was lost: this destination was replaced by direct streams to its members. */
        FAILED_OVER,
        /** Dropped by the slow-destination policy, or failed; no longer sent to. */
        DROPPED,
        /** A planned multicast moved its site to the other strategy: replaced by the other path's destinations. */
        SWITCHED
    }
}
