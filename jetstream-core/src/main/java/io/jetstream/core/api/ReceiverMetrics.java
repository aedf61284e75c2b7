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
    /** Acknowledgements sent to senders. */
    long acknowledgementsSent();

    /** HELLOs refused by the admission rules (flags, gaps, epochs, the stream limit). */
    long hellosRefused();

    /** Connections refused at once: {@code transport.max-connections} were open. */
    long connectionsRefused();

    /** Batches that arrived through the shared-memory ring. */
    long ringBatches();

    /** Times the receiver's ring stopped and its senders went back to TCP. */
    long ringFailures();

    /** Connections accepted. */
    long connectionsAccepted();

    /** Connections closed for breaking the protocol (bad frames, lengths, checksums, targets, handshakes). */
    long protocolErrors();

    /** BATCHes whose CRC32C did not match their records (corrupted in transit, by a relay say): each closed its connection. */
    long checksumFailures();

    /** HELLOs whose authentication failed. */
    long authenticationFailures();

    /** Batches received, duplicates included. */
    long batchesReceived();

    /** Batches handed to the delivery handler. */
    long batchesDelivered();

    /** Records handed to the delivery handler. */
    long recordsDelivered();

    /** Batches dropped as duplicates (already delivered or held). */
    long duplicatesDropped();

    /** Batches that arrived ahead of a gap and waited in the ordered buffer (strict ordering). */
    long batchesHeld();

    /** Every counter by its name (dashed, as engines' gauges show them), read now: a snapshot. */
    Map<String, Long> snapshot();
}
