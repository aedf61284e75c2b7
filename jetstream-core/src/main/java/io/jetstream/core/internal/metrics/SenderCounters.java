package io.jetstream.core.internal.metrics;

import io.jetstream.core.api.SenderMetrics;
import io.jetstream.core.model.FlushPolicy;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The counters behind a sending stream's {@link SenderMetrics}: the transport's update methods,
 * called once per batch (never per record) by the thread that seals, sends or acknowledges it.
 *
 * <p>Threading contract: lock-free; updates from any thread (atomic), reads from any thread.
 */
public final class SenderCounters implements SenderMetrics {
    /** Routes whose acknowledged bytes are counted one by one. */
    public static final int MAX_COUNTED_ROUTES = 64;
    private final AtomicLong batchesSealed = new AtomicLong();
    private final AtomicLong recordsSealed = new AtomicLong();
    private final AtomicLong bytesSealed = new AtomicLong();
    private final AtomicLong batchesSent = new AtomicLong();
    private final AtomicLong batchesAcknowledged = new AtomicLong();
    private final AtomicLong recordsAcknowledged = new AtomicLong();
    private final AtomicLong batchesReplayed = new AtomicLong();
    private final AtomicLong batchesSpilled = new AtomicLong();
    private final AtomicLong recordsDropped = new AtomicLong();
    private final AtomicLong batchesDropped = new AtomicLong();
    private final AtomicLong reconnects = new AtomicLong();
    private final AtomicLong connectFailures = new AtomicLong();
    private final AtomicLong relayFailures = new AtomicLong();
    private final AtomicLong routeStalls = new AtomicLong();
    private final AtomicLong refusals = new AtomicLong();
    private volatile String lastRefusal = "";
    private final AtomicLong backPressured = new AtomicLong();
    private final AtomicLong probes = new AtomicLong();
    private final AtomicLong lastBatchRecords = new AtomicLong();
    private final AtomicLong ackLatencyMicros = new AtomicLong();
    private final AtomicLong ringBatches = new AtomicLong();
    private final AtomicLong ringFallbacks = new AtomicLong();
    private final AtomicLong routeFull = new AtomicLong();
    /** Bytes acknowledged per route index (routes beyond the array are not counted). */
    private final AtomicLongArray routeBytes = new AtomicLongArray(MAX_COUNTED_ROUTES);
    private volatile int routesInUse;
    /** Sums over batches, for means: oldest record's wait in the open batch, sealed to written, written to acknowledged. */
    private final AtomicLong batchWaitMicros = new AtomicLong();
    private final AtomicLong writeWaitMicros = new AtomicLong();
    private final AtomicLong ackWaitMicros = new AtomicLong();
    /** Ends of sends that left their batch open, by why the link did not look idle ({@link HeldBy}). */
    private final AtomicLongArray heldBy = new AtomicLongArray(HeldBy.values().length);

    /** Batches sealed per {@link FlushPolicy.Reason}: why data left. */
    private final AtomicLongArray sealedBy =
            new AtomicLongArray(FlushPolicy.Reason.values().length);

    /** Batches sealed for {@code reason} so far. */
    @Override
    public long batchesSealed(FlushPolicy.Reason reason) {
        return sealedBy.get(reason.ordinal());
    }

    public void onSealed(int records, long bytes, FlushPolicy.Reason reason) {
        batchesSealed.incrementAndGet();
        sealedBy.incrementAndGet(reason.ordinal());
        recordsSealed.addAndGet(records);
        bytesSealed.addAndGet(bytes);
        lastBatchRecords.lazySet(records);
    }

    /** The end of a send left its batch open: the link was not observed idle, for {@code why}. */
    public void onHeld(HeldBy why) {
        heldBy.incrementAndGet(why.ordinal());
    }

    /** Ends of sends that left their batch open for {@code why}. */
    @Override
    public long held(HeldBy why) {
        return heldBy.get(why.ordinal());
    }

    /** A sealed batch's oldest record had waited {@code nanos} in the open batch. */
    public void onBatchWait(long nanos) {
        batchWaitMicros.addAndGet(nanos / 1000);
    }

    /** A route had no room for a batch it was offered (a full ring): the batch waits for a retry. */
    public void onRouteFull() {
        routeFull.incrementAndGet();
    }

    public void onSent(boolean replay) {
        batchesSent.incrementAndGet();
        if (replay) {
            batchesReplayed.incrementAndGet();
        }
    }

    /** A batch was acknowledged {@code latencyNanos} after it was sealed (smoothed, weight 1/16). */
    public void onAcknowledged(long latencyNanos) {
        batchesAcknowledged.incrementAndGet();
        long old = ackLatencyMicros.get();
        long sample = latencyNanos / 1000;
        ackLatencyMicros.lazySet(old == 0 ? sample : old + (sample - old) / 16);
    }

    /**
     * A batch was acknowledged: {@code sealedToSentNanos} from its seal to its first write,
     * {@code sentToAckNanos} from that write to its acknowledgement.
     */
    public void onAcknowledged(long sealedToSentNanos, long sentToAckNanos, int records) {
        recordsAcknowledged.addAndGet(records);
        writeWaitMicros.addAndGet(sealedToSentNanos / 1000);
        ackWaitMicros.addAndGet(sentToAckNanos / 1000);
        onAcknowledged(sealedToSentNanos + sentToAckNanos);
    }

    public void onSpilled() {
        batchesSpilled.incrementAndGet();
    }

    public void onDropped(int records) {
        batchesDropped.incrementAndGet();
        recordsDropped.addAndGet(records);
    }

    /** A record was refused and dropped: best-effort with no route connected. */
    public void onRecordRefused() {
        recordsDropped.incrementAndGet();
    }

    /** A batch went into the receiver's shared-memory ring rather than over TCP. */
    public void onRingBatch() {
        ringBatches.incrementAndGet();
    }

    /** A ring route failed or vanished and its stream went back to TCP. */
    public void onRingFallback() {
        ringFallbacks.incrementAndGet();
    }

    /** Batches written into the receiver's shared-memory ring. */
    @Override
    public long ringBatches() {
        return ringBatches.get();
    }

    /** Times a ring route gave way to TCP. */
    @Override
    public long ringFallbacks() {
        return ringFallbacks.get();
    }

    public void onReconnect() {
        reconnects.incrementAndGet();
    }

    public void onConnectFailure() {
        connectFailures.incrementAndGet();
    }

    public void onBackPressured() {
        backPressured.incrementAndGet();
    }

    public void onProbe() {
        probes.incrementAndGet();
    }

    /** Link probes sent (adaptive batching). */
    @Override
    public long probes() {
        return probes.get();
    }

    @Override
    public long batchesSealed() {
        return batchesSealed.get();
    }

    @Override
    public long recordsSealed() {
        return recordsSealed.get();
    }

    @Override
    public long bytesSealed() {
        return bytesSealed.get();
    }

    @Override
    public long batchesSent() {
        return batchesSent.get();
    }

    @Override
    public long batchesAcknowledged() {
        return batchesAcknowledged.get();
    }

    @Override
    public long recordsAcknowledged() {
        return recordsAcknowledged.get();
    }

    @Override
    public long batchesReplayed() {
        return batchesReplayed.get();
    }

    @Override
    public long batchesSpilled() {
        return batchesSpilled.get();
    }

    /** Records given up: sealed while no route was connected (best-effort), or unconfirmed when a route was lost. */
    @Override
    public long recordsDropped() {
        return recordsDropped.get();
    }

    @Override
    public long reconnects() {
        return reconnects.get();
    }

    @Override
    public long relayFailures() {
        return relayFailures.get();
    }

    @Override
    public long routeStalls() {
        return routeStalls.get();
    }

    public void onRelayFailure() {
        relayFailures.incrementAndGet();
    }

    public void onRouteStall() {
        routeStalls.incrementAndGet();
    }

    @Override
    public long refusals() {
        return refusals.get();
    }

    @Override
    public String lastRefusal() {
        return lastRefusal;
    }

    /** The receiver answered a handshake with ERROR {@code reason}. I/O thread. */
    public void onRefused(String reason) {
        lastRefusal = reason;
        refusals.incrementAndGet();
    }

    @Override
    public long connectFailures() {
        return connectFailures.get();
    }

    /** Offers refused because the stream's memory (and journal) budget was full. */
    @Override
    public long backPressured() {
        return backPressured.get();
    }

    /** Smoothed time from sealing a batch to its acknowledgement, in µs. */
    @Override
    public long ackLatencyMicros() {
        return ackLatencyMicros.get();
    }

    /** A batch of {@code bytes} that route {@code route} carried was acknowledged. */
    public void onRouteAcknowledged(int route, long bytes) {
        if (route >= 0 && route < MAX_COUNTED_ROUTES) {
            routeBytes.addAndGet(route, bytes);
        }
    }

    /** Routes carrying batches now (ready and in use). */
    public void routesInUse(int routes) {
        routesInUse = routes;
    }

    @Override
    public int routesInUse() {
        return routesInUse;
    }

    @Override
    public long bytesAcknowledged(int route) {
        return route >= 0 && route < MAX_COUNTED_ROUTES ? routeBytes.get(route) : 0;
    }

    @Override
    public Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("batches-sealed", batchesSealed());
        for (FlushPolicy.Reason r : FlushPolicy.Reason.values()) {
            m.put("batches-sealed-" + r.name().toLowerCase(Locale.ROOT).replace('_', '-'), sealedBy.get(r.ordinal()));
        }
        m.put("records-sealed", recordsSealed());
        m.put("routes-in-use", (long) routesInUse);
        m.put("bytes-sealed", bytesSealed());
        m.put("batches-sent", batchesSent());
        m.put("batches-acknowledged", batchesAcknowledged());
        m.put("records-acknowledged", recordsAcknowledged());
        m.put("batches-replayed", batchesReplayed());
        m.put("batches-spilled", batchesSpilled());
        m.put("records-dropped", recordsDropped());
        m.put("batches-dropped", batchesDropped.get());
        m.put("reconnects", reconnects());
        m.put("connect-failures", connectFailures());
        m.put("relay-failures", relayFailures());
        m.put("route-stalls", routeStalls());
        m.put("refusals", refusals());
        m.put("back-pressured", backPressured());
        m.put("probes", probes.get());
        m.put("last-batch-records", lastBatchRecords.get());
        m.put("ack-latency-us", ackLatencyMicros());
        m.put("ring-batches", ringBatches());
        m.put("ring-fallbacks", ringFallbacks());
        m.put("route-full", routeFull.get());
        for (HeldBy h : HeldBy.values()) {
            m.put("sends-held-" + h.name().toLowerCase(Locale.ROOT).replace('_', '-'), heldBy.get(h.ordinal()));
        }
        m.put("batch-wait-us-total", batchWaitMicros.get());
        m.put("write-wait-us-total", writeWaitMicros.get());
        m.put("ack-wait-us-total", ackWaitMicros.get());
        return m;
    }

    @Override
    public String toString() {
        return snapshot().toString();
    }
}
