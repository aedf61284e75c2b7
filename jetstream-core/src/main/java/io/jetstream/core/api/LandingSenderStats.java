package io.jetstream.core.api;

/**
 * One landing a {@link LandingSender} sends to, as it stands. For gauges and messages.
 *
 * @param landing the landing's name: the site's, for a sender to several sites; its address otherwise
 * @param connected whether the stream to it has a route ready now
 * @param bytesNotLanded bytes offered and not yet acknowledged by the landing (journaled there)
 * @param batchesSent batches the stream to it sealed
 * @param ackLatencyMicros the stream's recent acknowledgement round trip
 * @param routesInUse routes the stream used recently
 * @param lastRefusal why the landing (or a relay) last refused the stream's connection ("" if never)
 * @param dropped why the sender stopped sending to it ("" while it sends): the landing took nothing for the
 *     hold timeout, or its stream failed; what was offered after that does not reach it
 */
public record LandingSenderStats(String landing, boolean connected, long bytesNotLanded, long batchesSent,
        long ackLatencyMicros,
        int routesInUse, String lastRefusal, String dropped) {
}
