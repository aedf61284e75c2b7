package io.jetstream.core.model;

/**
 * The per-event latency JetStream's model predicts for one (batch size, routes) choice, by
 * component (seconds), with the quantities the oracle's conditions use.
 *
 * @param batchSize events per batch
 * @param routes parallel routes (channels)
 * @param batching time an event waits for its batch, on average
 * @param encoding encoding cost per event
 * @param decoding decoding cost per event
 * @param transfer time to transfer the event's batch over {@code routes}
 * @param reordering reordering penalty of multi-route streaming
 * @param cpuRatio share of CPU-intensive time (Ratio_CPU)
 * @param transferOneRoute transfer time over a single route (Algorithm 2 line 8)
 * @param capacityEventsPerSecond events per second these batches and routes can carry
 */
public record LatencyEstimate(
        int batchSize,
        int routes,
        double batching,
        double encoding,
        double decoding,
        double transfer,
        double reordering,
        double cpuRatio,
        double transferOneRoute,
        double capacityEventsPerSecond) {

    /** The model's per-event latency: the sum of the components. */
    public double total() {
        return batching + encoding + decoding + transfer + reordering;
    }
}
