package io.jetstream.core.internal.metrics;

import io.jetstream.core.api.ReceiverMetrics;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The counters behind a receiver's {@link ReceiverMetrics}: the transport's update methods, called
 * per batch or per connection on I/O threads.
 *
 * <p>Threading contract: lock-free; updates from any thread (atomic), reads from any thread.
 */
public final class ReceiverCounters implements ReceiverMetrics {
    private final AtomicLong connectionsAccepted = new AtomicLong();
    private final AtomicLong protocolErrors = new AtomicLong();
    private final AtomicLong checksumFailures = new AtomicLong();
    private final AtomicLong authenticationFailures = new AtomicLong();
    private final AtomicLong batchesReceived = new AtomicLong();
    private final AtomicLong batchesDelivered = new AtomicLong();
    private final AtomicLong recordsDelivered = new AtomicLong();
    private final AtomicLong bytesReceived = new AtomicLong();
    private final AtomicLong duplicatesDropped = new AtomicLong();
    private final AtomicLong batchesHeld = new AtomicLong();
    private final AtomicLong hellosRefused = new AtomicLong();
    private final AtomicLong connectionsRefused = new AtomicLong();
    private final AtomicLong ringBatches = new AtomicLong();
    private final AtomicLong ringFailures = new AtomicLong();
    private final AtomicLong acknowledgementsSent = new AtomicLong();

    public void onConnection() {
        connectionsAccepted.incrementAndGet();
    }

    public void onChecksumFailure() {
        checksumFailures.incrementAndGet();
    }

    @Override
    public long checksumFailures() {
        return checksumFailures.get();
    }

    public void onProtocolError() {
        protocolErrors.incrementAndGet();
    }

    public void onAuthenticationFailure() {
        authenticationFailures.incrementAndGet();
    }

    public void onReceived(long bytes) {
        batchesReceived.incrementAndGet();
        bytesReceived.addAndGet(bytes);
    }

    public void onDelivered(int records) {
        batchesDelivered.incrementAndGet();
        recordsDelivered.addAndGet(records);
    }

    public void onDuplicate() {
        duplicatesDropped.incrementAndGet();
    }

    public void onHeld() {
        batchesHeld.incrementAndGet();
    }

    /** A HELLO broke an admission rule (an unauthenticated skip or takeover, inconsistent flags, too many streams). */
    public void onHelloRefused() {
        hellosRefused.incrementAndGet();
    }

    /** A connection was closed at accept: {@code transport.max-connections} were open. */
    public void onConnectionRefused() {
        connectionsRefused.incrementAndGet();
    }

    /** A batch arrived through the shared-memory ring (also counted in {@link #batchesReceived()}). */
    public void onRingBatch() {
        ringBatches.incrementAndGet();
    }

    /** An acknowledgement went to a sender (one per read burst or ring poll, covering every batch in it). */
    public void onAcknowledgementSent() {
        acknowledgementsSent.incrementAndGet();
    }

    @Override
    public long acknowledgementsSent() {
        return acknowledgementsSent.get();
    }

    /** The ring's consumer thread failed and the ring was closed to producers. */
    public void onRingFailure() {
        ringFailures.incrementAndGet();
    }

    @Override
    public long hellosRefused() {
        return hellosRefused.get();
    }

    @Override
    public long connectionsRefused() {
        return connectionsRefused.get();
    }

    @Override
    public long ringBatches() {
        return ringBatches.get();
    }

    @Override
    public long ringFailures() {
        return ringFailures.get();
    }

    @Override
    public long connectionsAccepted() {
        return connectionsAccepted.get();
    }

    /** Connections closed for breaking the protocol (bad frames, lengths, checksums, targets, handshakes). */
    @Override
    public long protocolErrors() {
        return protocolErrors.get();
    }

    @Override
    public long authenticationFailures() {
        return authenticationFailures.get();
    }

    @Override
    public long batchesReceived() {
        return batchesReceived.get();
    }

    @Override
    public long batchesDelivered() {
        return batchesDelivered.get();
    }

    @Override
    public long recordsDelivered() {
        return recordsDelivered.get();
    }

    @Override
    public long duplicatesDropped() {
        return duplicatesDropped.get();
    }

    /** Batches that arrived ahead of a gap and waited in the ordered buffer (strict ordering). */
    @Override
    public long batchesHeld() {
        return batchesHeld.get();
    }

    @Override
    public Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("connections-accepted", connectionsAccepted());
        m.put("protocol-errors", protocolErrors());
        m.put("checksum-failures", checksumFailures());
        m.put("authentication-failures", authenticationFailures());
        m.put("batches-received", batchesReceived());
        m.put("batches-delivered", batchesDelivered());
        m.put("records-delivered", recordsDelivered());
        m.put("bytes-received", bytesReceived.get());
        m.put("duplicates-dropped", duplicatesDropped());
        m.put("batches-held", batchesHeld());
        m.put("hellos-refused", hellosRefused());
        m.put("connections-refused", connectionsRefused());
        m.put("ring-batches", ringBatches());
        m.put("ring-failures", ringFailures());
        m.put("acknowledgements-sent", acknowledgementsSent());
        return m;
    }

    @Override
    public String toString() {
        return snapshot().toString();
    }
}
