package io.jetstream.core.transport.netty;

import io.jetstream.core.transport.DeliveryHandler;
import io.jetstream.core.transport.ReceiverMetrics;
import io.jetstream.core.transport.SequenceStore;
import io.jetstream.core.transport.StreamKey;
import io.jetstream.core.transport.TransportOptions.Ordering;
import io.jetstream.core.transport.protocol.BatchFrameReader;
import io.jetstream.core.transport.protocol.ProtocolException;
import io.netty.buffer.ByteBuf;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A receiver's state for one sender stream, shared by the stream's routes: the watermark (highest
 * sequence delivered in order), the ordered buffer of batches that arrived ahead of a gap (strict
 * ordering; JetStream §5 inserts into an ordered buffer), or the set of sequences delivered ahead
 * of the watermark (relaxed). Duplicates — at or below the watermark, or already held or delivered
 * — are dropped and acknowledged again.
 *
 * <p>Thread-safe: routes arrive on different I/O threads; every method is synchronized, so one
 * stream's batches are delivered one at a time. Held bytes are bounded (a sender that ignores its
 * window is disconnected).
 */
final class InboundStream {
    private static final Logger LOG = LoggerFactory.getLogger(InboundStream.class);

    private record Held(ByteBuf frame, int count) {}

    final StreamKey key;
    /** The target id this stream's batches carry in the receiver's ring. */
    final int ringTarget;
    private final DeliveryHandler handler;
    private final SequenceStore store;
    private final ReceiverMetrics metrics;
    private final long maxHeldBytes;
    private final TreeMap<Long, Held> held = new TreeMap<>();
    private final TreeSet<Long> deliveredAhead = new TreeSet<>();
    private final BatchView view = new BatchView();
    private Ordering ordering;
    private long watermark = -1;
    private long heldBytes;
    private int routes;
    /** The connection acknowledgements of ring-borne batches go to (the latest route). */
    private volatile io.netty.channel.Channel ackChannel;
    private volatile boolean checksum;
    /** Wall clock the sender's tags are compared with. */
    private final LongSupplier epochClock;
    private final LongConsumer tags = this::onTag;
    private boolean clockWarned;

    InboundStream(StreamKey key, int ringTarget, DeliveryHandler handler, SequenceStore store, ReceiverMetrics metrics, Ordering ordering,
            long maxHeldBytes, LongSupplier epochClock) {
        this.key = key;
        this.ringTarget = ringTarget;
        this.handler = handler;
        this.store = store;
        this.metrics = metrics;
        this.ordering = ordering;
        this.maxHeldBytes = maxHeldBytes;
        this.epochClock = epochClock;
    }

    /**
     * A route of this stream completed its handshake; the sender can no longer send anything before
     * {@code firstSequence} (it dropped or saw acknowledged everything earlier). Returns the
     * watermark to put in WELCOME.
     */
    synchronized long onHello(long firstSequence, BatchFrameReader reader, io.netty.channel.Channel channel, boolean checksum) {
        routes++;
        this.ackChannel = channel;
        this.checksum = checksum;
        if (watermark < 0) {
            watermark = store.lastDelivered(key);
        }
        if (firstSequence - 1 > watermark) {
            // A gap the sender will never fill: deliver what waits below it, then skip it.
            for (Map.Entry<Long, Held> e : held.headMap(firstSequence, false).entrySet()) {
                deliver(e.getKey(), e.getValue().frame(), e.getValue().count(), reader);
                heldBytes -= e.getValue().frame().readableBytes();
                e.getValue().frame().release();
            }
            held.headMap(firstSequence, false).clear();
            deliveredAhead.headSet(firstSequence, false).clear();
            watermark = firstSequence - 1;
            advance(reader);
            store.delivered(key, watermark);
        }
        return watermark;
    }

    boolean checksum() {
        return checksum;
    }

    /** Acknowledges {@code watermark} on the stream's latest connection (ring-borne batches). */
    void acknowledge(long watermark) {
        io.netty.channel.Channel ch = ackChannel;
        if (ch != null && ch.isActive()) {
            ch.writeAndFlush(io.jetstream.core.transport.protocol.Frames.ack(ch.alloc(), watermark), ch.voidPromise());
        }
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
        io.netty.channel.Channel ch = ackChannel;
        if (ch != null && ch.isActive()) {
            ch.writeAndFlush(io.jetstream.core.transport.protocol.Frames.latency(ch.alloc(), latency), ch.voidPromise());
        }
    }

    /** Closes the stream's connection after a bad ring-borne batch (the sender reconnects). */
    void closeConnection() {
        io.netty.channel.Channel ch = ackChannel;
        if (ch != null) {
            ch.close();
        }
    }

    /**
     * A validated batch ({@code reader} has validated {@code frame}); returns the watermark to
     * acknowledge. A {@code transientFrame} (a view of the ring) is copied if it has to wait.
     */
    synchronized long onBatch(ByteBuf frame, BatchFrameReader reader, boolean transientFrame) {
        long seq = reader.sequence();
        if (seq <= watermark || held.containsKey(seq) || deliveredAhead.contains(seq)) {
            metrics.onDuplicate();
            return watermark;
        }
        if (seq == watermark + 1) {
            deliver(seq, frame, reader.count(), reader);
            watermark = seq;
            advance(reader);
        } else if (ordering == Ordering.RELAXED) {
            checkAhead(0);
            deliver(seq, frame, reader.count(), reader);
            deliveredAhead.add(seq);
        } else {
            checkAhead(frame.readableBytes());
            ByteBuf kept = transientFrame
                    ? io.netty.buffer.PooledByteBufAllocator.DEFAULT.directBuffer(frame.readableBytes()).writeBytes(frame, frame.readerIndex(), frame.readableBytes())
                    : frame.retain();
            held.put(seq, new Held(kept, reader.count()));
            heldBytes += frame.readableBytes();
            metrics.onHeld();
        }
        store.delivered(key, watermark);
        return watermark;
    }

    /** Switches ordering at run time; going relaxed delivers what was held. */
    synchronized void setOrdering(Ordering newOrdering, BatchFrameReader reader) {
        ordering = newOrdering;
        if (newOrdering == Ordering.RELAXED) {
            for (Map.Entry<Long, Held> e : held.entrySet()) {
                deliver(e.getKey(), e.getValue().frame(), e.getValue().count(), reader);
                deliveredAhead.add(e.getKey());
                e.getValue().frame().release();
            }
            held.clear();
            heldBytes = 0;
        }
    }

    /**
     * A route of this stream closed. With none left, what waits behind a gap is released: the
     * sender resends it (acknowledged) or skips it (best-effort) when it reconnects.
     */
    synchronized void onRouteClosed() {
        if (--routes == 0) {
            release();
        }
    }

    synchronized long watermark() {
        return watermark;
    }

    synchronized void release() {
        held.values().forEach(h -> h.frame().release());
        held.clear();
        heldBytes = 0;
    }

    /** Moves the watermark over held and already-delivered batches that are now in order. */
    private void advance(BatchFrameReader reader) {
        while (true) {
            long next = watermark + 1;
            Held h = held.remove(next);
            if (h != null) {
                heldBytes -= h.frame().readableBytes();
                try {
                    deliver(next, h.frame(), h.count(), reader);
                } finally {
                    h.frame().release();
                }
            } else if (!deliveredAhead.remove(next)) {
                return;
            }
            watermark = next;
        }
    }

    private void checkAhead(int bytes) {
        if (heldBytes + bytes > maxHeldBytes || held.size() + deliveredAhead.size() > maxHeldBytes / 16) {
            throw new ProtocolException("stream " + key + " is " + (heldBytes + bytes) + " B / "
                    + (held.size() + deliveredAhead.size()) + " batches ahead of sequence " + (watermark + 1)
                    + ": the sender exceeds transport.window-bytes");
        }
    }

    private void deliver(long seq, ByteBuf frame, int count, BatchFrameReader reader) {
        view.set(frame, count, reader, tags);
        try {
            handler.deliver(key, seq, view);
        } finally {
            view.set(null, 0, null, null);
        }
        metrics.onDelivered(count);
    }

    /** Reused view of the batch being delivered. */
    private static final class BatchView implements DeliveryHandler.DeliveredBatch {
        private ByteBuf frame;
        private int count;
        private BatchFrameReader reader;
        private LongConsumer tags;

        void set(ByteBuf frame, int count, BatchFrameReader reader, LongConsumer tags) {
            this.frame = frame;
            this.count = count;
            this.reader = reader;
            this.tags = tags;
        }

        @Override
        public int count() {
            return count;
        }

        @Override
        public void forEach(io.jetstream.core.transport.RecordConsumer consumer) {
            if (frame == null) {
                throw new IllegalStateException("a delivered batch is valid only during deliver()");
            }
            reader.deliver(frame.duplicate(), consumer, tags);
        }
    }
}
