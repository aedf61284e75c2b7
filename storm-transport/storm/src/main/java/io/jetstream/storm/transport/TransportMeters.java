package io.jetstream.storm.transport;

import io.jetstream.core.api.TrafficMeter;
import org.apache.storm.metrics2.StormMetricRegistry;

/**
 * Tuples a worker's JetStream connections carried. Each context has its own meters (gauges
 * {@code jetstream.transport.*} in the worker's metrics registry); {@link #PROCESS} adds up every
 * context of this JVM: one per worker in a real cluster, several when LocalCluster runs workers in
 * one process. Updated once per {@code send()} and per delivered batch, never per tuple.
 *
 * <p>Thread-safe: {@link TrafficMeter} is.
 */
public final class TransportMeters {
    /** Totals over every JetStream context in this JVM. */
    public static final TransportMeters PROCESS = new TransportMeters("process");

    final TrafficMeter sent;
    final TrafficMeter received;
    private final java.util.concurrent.atomic.AtomicLong ringBatchesOfClosedServers = new java.util.concurrent.atomic.AtomicLong();

    TransportMeters(String scope) {
        this.sent = new TrafficMeter(scope + ".sent");
        this.received = new TrafficMeter(scope + ".received");
    }

    public TrafficMeter sent() {
        return sent;
    }

    public TrafficMeter received() {
        return received;
    }

    /** A send() handed {@code records} tuples of {@code bytes} to the transport. */
    void onSent(long records, long bytes) {
        sent.onBatch((int) records, bytes);
        PROCESS.sent.onBatch((int) records, bytes);
    }

    /** A batch of {@code records} tuples of {@code bytes} reached the worker. */
    void onReceived(int records, long bytes) {
        received.onBatch(records, bytes);
        PROCESS.received.onBatch(records, bytes);
    }

    /**
     * Batches that reached this context's closed servers over the shared-memory ring (the live
     * server's count is its {@code jetstream.recv.ring-batches} gauge): which path carried the
     * tuples, once the workers have stopped.
     */
    public long ringBatchesOfClosedServers() {
        return ringBatchesOfClosedServers.get();
    }

    /** A server closed having received {@code ringBatches} batches over the ring. */
    void onServerClosed(long ringBatches) {
        ringBatchesOfClosedServers.addAndGet(ringBatches);
        PROCESS.ringBatchesOfClosedServers.addAndGet(ringBatches);
    }

    void register(StormMetricRegistry registry) {
        registry.gauge("jetstream.transport.messages-sent", sent::records, "__system", -1);
        registry.gauge("jetstream.transport.bytes-sent", sent::bytes, "__system", -1);
        registry.gauge("jetstream.transport.messages-received", received::records, "__system", -1);
        registry.gauge("jetstream.transport.bytes-received", received::bytes, "__system", -1);
        registry.gauge("jetstream.transport.batches-received", received::batches, "__system", -1);
    }
}
