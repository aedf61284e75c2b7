package io.jetstream.core.internal.transport.inbound;

import io.jetstream.core.api.DeliveryHandler;
import io.jetstream.core.api.RecordConsumer;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.StreamKey;
import io.jetstream.core.api.TransportOptions.Ordering;
import io.jetstream.core.internal.metrics.ReceiverCounters;
import io.jetstream.core.internal.transport.protocol.BatchRecords;
import io.jetstream.core.internal.transport.protocol.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A receiver's state for one sender stream (one incarnation: one epoch), shared by the stream's
 * routes, TCP and ring alike: the watermark (highest sequence delivered in order), the ordered buffer
 * of batches that arrived ahead of a gap (strict ordering; JetStream §5 inserts into an ordered
 * buffer), or the set of sequences delivered ahead of the watermark (relaxed). Duplicates — at or
 * below the watermark, or already held or delivered — are dropped and acknowledged again.
 *
 * <p>Thread-safe: routes arrive on different I/O threads and the ring thread; every method is
 * synchronized, so one stream's batches are delivered one at a time. Held bytes are bounded (a
 * sender that ignores its window is disconnected).
 */
public final class InboundStream {
    private static final Logger LOG = LoggerFactory.getLogger(InboundStream.class);

    /** A batch waiting for a gap: its records, kept (a retained slice of a frame, or a copy of ring memory). */
    private record Held(ByteBuf records, int count) {}

    final StreamKey key;
    /** The target id this stream's batches carry in the receiver's ring. */
    final int ringTarget;
    private final int flags;
    private final DeliveryHandler handler;
    private final SequenceStore store;
    private final ReceiverCounters metrics;
    private final long maxHeldBytes;
    private final ByteBufAllocator alloc;
    private final TreeMap<Long, Held> held = new TreeMap<>();
    private final TreeSet<Long> deliveredAhead = new TreeSet<>();
    private final BatchView view = new BatchView();
    private final UnsafeBuffer heldView = new UnsafeBuffer(0, 0);
    /** Live connections of this stream; the last one added carries ring-borne acknowledgements. */
    private final List<InboundConnection> connections = new ArrayList<>(2);
    /** The delivery handler failed once: the cause was logged at ERROR; later failures are logged at WARN. */
    private final AtomicBoolean deliveryFailed = new AtomicBoolean();
    private Ordering ordering;
    private long watermark = -1;
    private long heldBytes;
    private boolean checksum;
    /** Whether a WELCOME named the ring to this stream's sender. */
    private boolean onRing;
    /** The sender said CLOSE: forget the stream once its routes are gone. */
    private boolean closing;
    private long idleSinceNanos;
    /** Wall clock the sender's tags are compared with. */
    private final LongSupplier epochClock;
    private final LongConsumer tags = this::onTag;
    private boolean clockWarned;

    InboundStream(StreamKey key, int ringTarget, int flags, DeliveryHandler handler, SequenceStore store, ReceiverCounters metrics,
            Ordering ordering, long maxHeldBytes, LongSupplier epochClock, ByteBufAllocator alloc, long nowNanos) {
        this.key = key;
        this.ringTarget = ringTarget;
        this.flags = flags;
        this.handler = handler;
        this.store = store;
        this.metrics = metrics;
        this.ordering = ordering;
        this.maxHeldBytes = maxHeldBytes;
        this.epochClock = epochClock;
        this.alloc = alloc;
        this.idleSinceNanos = nowNanos;
    }

    public StreamKey key() {
        return key;
    }

    /** The target id this stream's batches carry in the receiver's ring. */
    public int ringTarget() {
        return ringTarget;
    }

    int flags() {
        return flags;
    }

    /**
     * A route of this stream completed its handshake; the sender can no longer send anything before
     * {@code firstSequence} (it dropped or saw acknowledged everything earlier). Returns the
     * watermark to put in WELCOME.
     */
    synchronized long onHello(long firstSequence, InboundConnection connection, boolean checksum, boolean viaRing) {
        connections.add(connection);
        this.checksum = checksum;
        this.onRing |= viaRing;
        this.closing = false;
        if (watermark < 0) {
            watermark = store.lastDelivered(key);
        }
        if (firstSequence - 1 > watermark) {
            // A gap the sender will never fill: deliver what waits below it, then skip it.
            for (Map.Entry<Long, Held> e : held.headMap(firstSequence, false).entrySet()) {
                deliverHeld(e.getKey(), e.getValue());
            }
            held.headMap(firstSequence, false).clear();
            deliveredAhead.headSet(firstSequence, false).clear();
            LOG.info("Stream {}: the sender resumes at {}; sequences {}..{} were dropped by it and are skipped", key, firstSequence,
                    watermark + 1, firstSequence - 1);
            watermark = firstSequence - 1;
            advance();
            store.delivered(key, watermark);
        }
        return watermark;
    }

    /**
     * The delivery handler threw while a batch from {@code from} (the sender's address, or the
     * ring) was delivered: the batch stays unacknowledged, and the caller closes the connection it
     * came by, so the sender resends it. The stream's first failure is logged at ERROR with its cause,
     * naming the stream and the sender; the resent batches' failures after it, at WARN. Any thread.
     */
    public void onDeliveryFailed(Throwable cause, Object from) {
        if (!deliveryFailed.getAndSet(true)) {
            LOG.error("Stream {} from {}: delivering a batch failed; closing its connection (the batch stays unacknowledged "
                    + "and is resent when the sender reconnects)", key, from, cause);
        } else {
            LOG.warn("Stream {} from {}: delivering a batch failed again: {}", key, from, cause.toString());
        }
    }

    /** The watermark before a HELLO (for the admission rules): -1 until a first HELLO, then the delivered sequence. */
    synchronized long watermarkOrStored() {
        return watermark >= 0 ? watermark : store.lastDelivered(key);
    }

    synchronized boolean hasLiveConnections() {
        connections.removeIf(c -> !c.isActive());
        return !connections.isEmpty();
    }

    synchronized boolean checksum() {
        return checksum;
    }

    synchronized boolean onRing() {
        return onRing;
    }

    /** The watermark to acknowledge after the ring's current poll, or -1; {@link RingInbound}'s thread only. */
    long ringAckPending = -1;
    /** When the oldest delivery not yet acknowledged happened, and its bytes since; {@link RingInbound}'s thread only. */
    long ringAckOwedSinceNanos;
    long ringAckOwedBytes;

    /** Acknowledges {@code watermark} on the stream's latest connection (ring-borne batches). */
    void acknowledge(long watermark) {
        InboundConnection c = latest();
        if (c != null) {
            c.acknowledge(watermark);
        }
    }

    private synchronized InboundConnection latest() {
        for (int i = connections.size() - 1; i >= 0; i--) {
            if (connections.get(i).isActive()) {
                return connections.get(i);
            }
        }
        return null;
    }

    /**
     * A tagged record is being delivered: its channel latency (Nephele §3.3: from its emission at the
     * sender to here) goes back to the sender, whose latency constraint it feeds. Once per tag, on the
     * delivering thread, under this stream's lock.
     */
    private void onTag(long emittedEpochNanos) {
        long latency = epochClock.getAsLong() - emittedEpochNanos;
        if (latency < 0) {
            if (!clockWarned) {
                clockWarned = true;
                LOG.warn("Stream {}: a record arrived {} ms before the sender's clock says it was sent; the hosts' clocks "
                        + "differ (synchronise them, NTP), so its channel latencies read as 0", key, -latency / 1e6);
            }
            latency = 0;
        }
        InboundConnection c = latest();
        if (c != null) {
            c.reportLatency(latency);
        }
    }

    /** Closes every connection of this stream, saying why (a bad ring-borne batch, a newer incarnation). */
    void closeConnections(String reason) {
        List<InboundConnection> all;
        synchronized (this) {
            all = new ArrayList<>(connections);
        }
        all.forEach(c -> c.close(reason));
    }

    /** The receiver's ring stopped: tell every connection of this stream to resend over TCP. */
    void ringFailed(String reason) {
        List<InboundConnection> all;
        long w;
        synchronized (this) {
            all = new ArrayList<>(connections);
            w = watermark;
            onRing = false;
        }
        all.forEach(c -> c.ringFailed(w, reason));
    }

    /**
     * A validated batch of {@code count} records at {@code [offset, offset + length)} of
     * {@code records}; returns the watermark to acknowledge. If the batch has to wait for a gap it is
     * kept: {@code frame}, when given, is retained (a TCP frame whose memory {@code records} views),
     * else the records are copied (ring memory, valid only during the call).
     */
    public synchronized long onBatch(long seq, int count, DirectBuffer records, int offset, int length, ByteBuf frame, int frameIndex) {
        if (seq <= watermark || held.containsKey(seq) || deliveredAhead.contains(seq)) {
            metrics.onDuplicate();
            return watermark;
        }
        if (seq == watermark + 1) {
            deliver(seq, records, offset, length, count);
            watermark = seq;
            advance();
        } else if (ordering == Ordering.RELAXED) {
            checkAhead(0);
            deliver(seq, records, offset, length, count);
            deliveredAhead.add(seq);
        } else {
            checkAhead(length);
            ByteBuf kept = frame != null ? frame.retainedSlice(frameIndex, length) : copyOf(records, offset, length);
            held.put(seq, new Held(kept, count));
            heldBytes += length;
            metrics.onHeld();
        }
        store.delivered(key, watermark);
        return watermark;
    }

    /** A copy of ring memory in a pooled direct buffer, for a batch that waits for a gap. */
    private ByteBuf copyOf(DirectBuffer records, int offset, int length) {
        ByteBuf kept = alloc.directBuffer(length, length);
        kept.writerIndex(length);
        if (kept.hasMemoryAddress()) {
            heldView.wrap(kept.memoryAddress(), length);
            heldView.putBytes(0, records, offset, length);
            heldView.wrap(0, 0);
        } else {
            byte[] copy = new byte[length];
            records.getBytes(offset, copy);
            kept.setBytes(0, copy);
        }
        return kept;
    }

    /** Switches ordering at run time; going relaxed delivers what was held. */
    synchronized void setOrdering(Ordering newOrdering) {
        ordering = newOrdering;
        if (newOrdering == Ordering.RELAXED) {
            for (Map.Entry<Long, Held> e : held.entrySet()) {
                deliverHeld(e.getKey(), e.getValue());
                deliveredAhead.add(e.getKey());
            }
            held.clear();
        }
    }

    /**
     * A route of this stream closed. With none left, what waits behind a gap is released: the
     * sender resends it (acknowledged) or skips it (best-effort) when it reconnects.
     */
    synchronized void onRouteClosed(InboundConnection connection, long nowNanos) {
        connections.remove(connection);
        connections.removeIf(c -> !c.isActive());
        if (connections.isEmpty()) {
            release();
            idleSinceNanos = nowNanos;
        }
    }

    /** The sender ended the stream (CLOSE): it is forgotten once its routes are gone. */
    public synchronized void onClose() {
        closing = true;
    }

    /** Whether the registry may forget this stream: no route, and closed by its sender or idle for {@code idleNanos}. */
    synchronized boolean prunable(long nowNanos, long idleNanos) {
        connections.removeIf(c -> !c.isActive());
        return connections.isEmpty() && (closing || nowNanos - idleSinceNanos >= idleNanos);
    }

    synchronized long watermark() {
        return watermark;
    }

    synchronized void release() {
        held.values().forEach(h -> h.records().release());
        held.clear();
        heldBytes = 0;
    }

    /** Moves the watermark over held and already-delivered batches that are now in order. */
    private void advance() {
        while (true) {
            long next = watermark + 1;
            Held h = held.remove(next);
            if (h != null) {
                deliverHeld(next, h);
            } else if (!deliveredAhead.remove(next)) {
                return;
            }
            watermark = next;
        }
    }

    private void deliverHeld(long seq, Held h) {
        ByteBuf records = h.records();
        heldBytes -= records.readableBytes();
        try {
            if (records.hasMemoryAddress()) {
                heldView.wrap(records.memoryAddress() + records.readerIndex(), records.readableBytes());
            } else {
                byte[] copy = new byte[records.readableBytes()];
                records.getBytes(records.readerIndex(), copy);
                heldView.wrap(copy);
            }
            deliver(seq, heldView, 0, records.readableBytes(), h.count());
        } finally {
            heldView.wrap(0, 0);
            records.release();
        }
    }

    private void checkAhead(int bytes) {
        if (heldBytes + bytes > maxHeldBytes || held.size() + deliveredAhead.size() > maxHeldBytes / 16) {
            throw new ProtocolException("stream " + key + " is " + (heldBytes + bytes) + " B / "
                    + (held.size() + deliveredAhead.size()) + " batches ahead of sequence " + (watermark + 1)
                    + ": the sender exceeds transport.window-bytes");
        }
    }

    private void deliver(long seq, DirectBuffer records, int offset, int length, int count) {
        view.set(records, offset, length, count, tags);
        try {
            handler.deliver(key, seq, view);
        } finally {
            view.set(null, 0, 0, 0, null);
        }
        metrics.onDelivered(count);
    }

    /** Reused view of the batch being delivered. */
    private static final class BatchView implements DeliveryHandler.DeliveredBatch {
        private DirectBuffer records;
        private int offset;
        private int length;
        private int count;
        private LongConsumer tags;

        void set(DirectBuffer records, int offset, int length, int count, LongConsumer tags) {
            this.records = records;
            this.offset = offset;
            this.length = length;
            this.count = count;
            this.tags = tags;
        }

        @Override
        public int count() {
            return count;
        }

        @Override
        public void forEach(RecordConsumer consumer) {
            if (records == null) {
                throw new IllegalStateException("a delivered batch is valid only during deliver()");
            }
            BatchRecords.deliver(records, offset, length, consumer, tags);
        }
    }
}
