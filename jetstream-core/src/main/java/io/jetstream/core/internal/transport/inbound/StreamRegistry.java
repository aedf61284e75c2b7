package io.jetstream.core.internal.transport.inbound;

import io.jetstream.core.api.DeliveryHandler;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.StreamKey;
import io.jetstream.core.api.TransportOptions.Ordering;
import io.jetstream.core.internal.metrics.ReceiverCounters;
import io.jetstream.core.internal.transport.protocol.Frames;
import io.jetstream.core.internal.transport.protocol.ProtocolDescriptor;
import io.jetstream.core.internal.transport.protocol.ProtocolException;
import io.netty.buffer.ByteBufAllocator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The streams a receiver knows, one incarnation per (peer, stream), and the rules a HELLO must meet
 * to open, join, move or replace one:
 * <ul>
 *   <li>a new stream is admitted while fewer than {@code transport.max-streams} are known (checked
 *       and inserted atomically);
 *   <li>a HELLO of the current incarnation must agree with it (the acknowledged and durable flags);
 *   <li>a HELLO that would move the watermark forward (skip batches the sender says it dropped), or
 *       a new epoch that would replace an incarnation, while that incarnation still has a live
 *       route, must be authenticated (a shared secret is configured and the HELLO proved it);
 *       otherwise it is refused and logged. A sender whose old connections are really gone finds
 *       none live and proceeds; a spoofed HELLO cannot make a live stream's batches be taken for
 *       duplicates;
 *   <li>a stream whose routes are all gone is forgotten once its sender closed it (CLOSE) or after
 *       {@code transport.stream-idle-timeout-ms}; its watermark stays in the {@link SequenceStore}.
 * </ul>
 *
 * <p>Thread-safe: admission and pruning are synchronized; lookups by ring target are lock-free.
 */
public final class StreamRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(StreamRegistry.class);

    private final DeliveryHandler handler;
    private final SequenceStore store;
    private final ReceiverCounters metrics;
    private final int maxStreams;
    private final long maxHeldBytes;
    private final long idleTimeoutNanos;
    private final LongSupplier nanoClock;
    private final LongSupplier epochClock;
    private final ByteBufAllocator alloc;
    /** By peer id and stream id; guarded by this. */
    private final Map<String, InboundStream> streams = new HashMap<>();
    private final Map<Integer, InboundStream> byRingTarget = new ConcurrentHashMap<>();
    private int nextRingTarget;
    private volatile Ordering ordering;

    public StreamRegistry(DeliveryHandler handler, SequenceStore store, ReceiverCounters metrics, Ordering ordering, int maxStreams,
            long maxHeldBytes, long idleTimeoutNanos, LongSupplier nanoClock, LongSupplier epochClock, ByteBufAllocator alloc) {
        this.handler = handler;
        this.store = store;
        this.metrics = metrics;
        this.ordering = ordering;
        this.maxStreams = maxStreams;
        this.maxHeldBytes = maxHeldBytes;
        this.idleTimeoutNanos = idleTimeoutNanos;
        this.nanoClock = nanoClock;
        this.epochClock = epochClock;
        this.alloc = alloc;
    }

    /** The stream a HELLO joins, and the watermark to tell its sender. */
    public record Admission(InboundStream stream, long watermark) {}

    /**
     * Admits a HELLO under the rules above.
     *
     * @param authenticated whether the HELLO proved the shared secret
     * @param viaRing whether the WELCOME will name the receiver's ring
     * @throws ProtocolException naming the rule the HELLO breaks (the connection is refused with it)
     */
    public Admission admit(Frames.Hello hello, boolean authenticated, InboundConnection connection, boolean viaRing) {
        InboundStream stream;
        InboundStream evicted = null;
        synchronized (this) {
            String id = hello.peerId() + '\0' + hello.streamId();
            InboundStream existing = streams.get(id);
            if (existing != null && existing.key.epoch() == hello.epoch()) {
                if ((existing.flags() & CONSISTENT_FLAGS) != (hello.flags() & CONSISTENT_FLAGS)) {
                    throw refused(hello, "its flags 0x" + Integer.toHexString(hello.flags()) + " differ from the stream's 0x"
                            + Integer.toHexString(existing.flags()) + " (acknowledged or durable changed within one incarnation)");
                }
                if (!authenticated && hello.firstSequence() - 1 > existing.watermarkOrStored() && existing.hasLiveConnections()) {
                    throw refused(hello, "it would skip sequences " + (existing.watermarkOrStored() + 1) + ".."
                            + (hello.firstSequence() - 1) + " of a stream with a live route, unauthenticated");
                }
                stream = existing;
            } else {
                if (existing != null) {
                    if (!authenticated && existing.hasLiveConnections()) {
                        throw refused(hello, "its epoch " + Long.toHexString(hello.epoch()) + " would replace incarnation "
                                + Long.toHexString(existing.key.epoch()) + ", which has a live route, unauthenticated");
                    }
                    forget(id, existing);
                    evicted = existing;
                } else if (streams.size() >= maxStreams) {
                    throw refused(hello, "the receiver already tracks " + maxStreams + " streams (transport.max-streams)");
                }
                stream = new InboundStream(new StreamKey(hello.peerId(), hello.streamId(), hello.epoch()), ++nextRingTarget,
                        hello.flags(), handler, store, metrics, ordering, maxHeldBytes, epochClock, alloc, nanoClock.getAsLong());
                streams.put(id, stream);
                byRingTarget.put(stream.ringTarget, stream);
            }
        }
        if (evicted != null) {
            LOG.info("Stream {} replaced by its sender's new incarnation {}", evicted.key, stream.key);
            evicted.closeConnections("replaced by the sender's new incarnation " + stream.key);
            evicted.release();
        }
        long watermark = stream.onHello(hello.firstSequence(), connection, hello.checksum(), viaRing);
        return new Admission(stream, watermark);
    }

    /** Flags the incarnation fixes: a HELLO of the same epoch must repeat them. */
    private static final int CONSISTENT_FLAGS = ProtocolDescriptor.FLAG_ACKNOWLEDGED | ProtocolDescriptor.FLAG_DURABLE;

    private ProtocolException refused(Frames.Hello hello, String why) {
        metrics.onHelloRefused();
        return new ProtocolException("HELLO of " + hello.peerId() + "/" + hello.streamId() + "#" + Long.toHexString(hello.epoch())
                + " refused: " + why);
    }

    private void forget(String id, InboundStream s) {
        streams.remove(id, s);
        byRingTarget.remove(s.ringTarget, s);
    }

    /** The stream whose ring target is {@code target}, or null. Any thread. */
    public InboundStream byRingTarget(int target) {
        return byRingTarget.get(target);
    }

    /** A connection of {@code stream} closed. */
    public void onRouteClosed(InboundStream stream, InboundConnection connection) {
        stream.onRouteClosed(connection, nanoClock.getAsLong());
        if (stream.prunable(nanoClock.getAsLong(), idleTimeoutNanos)) {
            prune();
        }
    }

    /**
     * Forgets the streams that have no route left and were closed by their sender or have been idle
     * for the idle timeout. Returns how many were forgotten.
     */
    public int prune() {
        long now = nanoClock.getAsLong();
        List<InboundStream> gone = new java.util.ArrayList<>();
        synchronized (this) {
            for (Iterator<Map.Entry<String, InboundStream>> it = streams.entrySet().iterator(); it.hasNext(); ) {
                InboundStream s = it.next().getValue();
                if (s.prunable(now, idleTimeoutNanos)) {
                    it.remove();
                    byRingTarget.remove(s.ringTarget, s);
                    gone.add(s);
                }
            }
        }
        gone.forEach(s -> {
            s.release();
            LOG.debug("Forgot stream {} (closed or idle; watermark {} stays in the sequence store)", s.key, s.watermark());
        });
        return gone.size();
    }

    /** Switches every stream's ordering (strict ↔ relaxed) at run time; going relaxed delivers what was held. */
    public void setOrdering(Ordering newOrdering) {
        ordering = newOrdering;
        for (InboundStream s : snapshot()) {
            s.setOrdering(newOrdering);
        }
    }

    /** The receiver's ring stopped: every stream it carried resends over TCP. */
    public void ringFailed(String reason) {
        for (InboundStream s : snapshot()) {
            if (s.onRing()) {
                s.ringFailed(reason);
            }
        }
    }

    /** Highest sequence delivered in order, per stream known now. */
    public Map<StreamKey, Long> watermarks() {
        Map<StreamKey, Long> m = new HashMap<>();
        for (InboundStream s : snapshot()) {
            m.put(s.key, s.watermark());
        }
        return m;
    }

    public synchronized int size() {
        return streams.size();
    }

    private synchronized List<InboundStream> snapshot() {
        return List.copyOf(streams.values());
    }

    /** Releases every stream's held batches (the receiver closes). */
    public void releaseAll() {
        for (InboundStream s : snapshot()) {
            s.release();
        }
    }
}
