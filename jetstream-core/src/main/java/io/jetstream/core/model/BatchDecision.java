package io.jetstream.core.model;

/**
 * What the {@link BatchOracle} chose and why.
 *
 * @param estimate the model's components at the chosen batch size and routes
 * @param queueing the estimated wait for a free route per event (seconds)
 * @param sustainable whether the choice carries the measured rate; if no choice does, the oracle
 *     chooses for throughput (the lowest latency within 95 % of the highest capacity) and this is false
 * @param maxBatchByDelay the batch size cap derived from the user's maximum event delay
 * @param evaluated how many (batch size, routes) points the search evaluated
 */
public record BatchDecision(LatencyEstimate estimate, double queueing, boolean sustainable, int maxBatchByDelay, int evaluated) {
    public int batchSize() {
        return estimate.batchSize();
    }

    public int routes() {
        return estimate.routes();
    }

    /** Predicted mean latency per event: the model's components plus queueing. */
    public double predictedLatency() {
        return estimate.total() + queueing;
    }
}
