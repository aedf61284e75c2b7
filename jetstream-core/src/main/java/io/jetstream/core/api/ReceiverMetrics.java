package io.jetstream.core.api;

import java.util.Map;

/**
 * What one receiver has done so far: read-only, each counter read as it is now. Adapters bind
 * {@link #snapshot()} entries to the engine's gauges.
 *
 * <p>Threading contract: any thread reads; the counters are updated per batch or per connection
 * on I/O threads.
 */
public interface ReceiverMetrics {
    long acknowledgementsSent();

    long hellosRefused();

    long connectionsRefused();

    long ringBatches();

    long ringFailures();

    long connectionsAccepted();

    /** Connections closed for breaking the protocol (bad frames, lengths, checksums, targets, handshakes). */
    long protocolErrors();

    long authenticationFailures();

    long batchesReceived();

    long batchesDelivered();

    long recordsDelivered();

    long duplicatesDropped();

    /** Batches that arrived ahead of a gap and waited in the ordered buffer (strict ordering). */
    long batchesHeld();

    /** Every counter by its name (dashed, as engines' gauges show them), read now: a snapshot. */
    Map<String, Long> snapshot();
}
