package io.jetstream.jstorm.transport;

import io.jetstream.core.api.TrafficMeter;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Tuples a JStorm worker's JetStream connections carried. Each context has its own meters;
 * {@link #PROCESS} adds up every context of this JVM (one per worker process in a real cluster), so
 * that code running in a worker (a bolt, a test topology) can read what JetStream carried there.
 * Updated once per {@code send()} and per delivered batch, never per tuple.
 *
 * <ul>
 *   <li>{@link #sent()}: tuples handed to JetStream streams ({@code jetstream} data path) or to JStorm's
 *       Netty clients ({@code jstorm-netty}, counted only).
 *   <li>{@link #received()}: tuples the worker's server put into its task and control queues.
 *   <li>{@link #ringBatches()} / {@link #tcpBatches()}: batches the worker's JetStream servers received
 *       over the shared-memory ring and over TCP (taken from the receivers' counters when they close,
 *       and live through {@link JetStreamJStormContext#processTotals()}).
 *   <li>{@link #dropped()}: tuples given up (see the log line that names why).
 *   <li>{@link #overflowed()}: tuples the server put into a full task queue's overflow cache.
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class JStormTransportMeters {
    /** Totals over every JetStream JStorm context in this JVM. */
    public static final JStormTransportMeters PROCESS = new JStormTransportMeters("process");

    private final TrafficMeter sent;
    private final TrafficMeter received;
    private final AtomicLong ringBatches = new AtomicLong();
    private final AtomicLong tcpBatches = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong overflowed = new AtomicLong();

    JStormTransportMeters(String scope) {
        this.sent = new TrafficMeter("jstorm." + scope + ".sent");
        this.received = new TrafficMeter("jstorm." + scope + ".received");
    }

    public TrafficMeter sent() {
        return sent;
    }

    public TrafficMeter received() {
        return received;
    }

    public long ringBatches() {
        return ringBatches.get();
    }

    public long tcpBatches() {
        return tcpBatches.get();
    }

    public long dropped() {
        return dropped.get();
    }

    public long overflowed() {
        return overflowed.get();
    }

    void onSent(int records, long bytes) {
        sent.onBatch(records, bytes);
        if (this != PROCESS) {
            PROCESS.onSent(records, bytes);
        }
    }

    void onReceived(int records, long bytes) {
        received.onBatch(records, bytes);
        if (this != PROCESS) {
            PROCESS.onReceived(records, bytes);
        }
    }

    void onDropped(long records) {
        dropped.addAndGet(records);
        if (this != PROCESS) {
            PROCESS.onDropped(records);
        }
    }

    void onOverflow(long records) {
        overflowed.addAndGet(records);
        if (this != PROCESS) {
            PROCESS.onOverflow(records);
        }
    }

    /** A closed receiver's final route counts. */
    void onReceiverClosed(long ring, long tcp) {
        ringBatches.addAndGet(ring);
        tcpBatches.addAndGet(tcp);
        if (this != PROCESS) {
            PROCESS.onReceiverClosed(ring, tcp);
        }
    }

    @Override
    public String toString() {
        return sent + ", " + received + ", ring batches " + ringBatches + ", TCP batches " + tcpBatches + ", dropped "
                + dropped + ", overflowed " + overflowed;
    }
}
