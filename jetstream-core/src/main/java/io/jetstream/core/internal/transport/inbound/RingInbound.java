package io.jetstream.core.internal.transport.inbound;

import io.jetstream.core.internal.metrics.ReceiverCounters;
import io.jetstream.core.internal.transport.protocol.BatchRecords;
import io.jetstream.core.internal.transport.protocol.ProtocolDescriptor;
import io.jetstream.core.internal.transport.protocol.ProtocolException;
import io.jetstream.core.ring.RecordHandler;
import io.jetstream.core.ring.RingConsumer;
import io.jetstream.core.ring.RingDirectory;
import io.jetstream.core.ring.RingSettings;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import java.util.function.LongSupplier;
import org.agrona.DirectBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A receiver's shared-memory ring (TurboStream's OSRBuffer) and the one thread that consumes it:
 * same-host senders write their batches into it as ring batch records (stream = ring target, batch id
 * = sequence), and each is checked and delivered in place, from ring memory, to its
 * {@link InboundStream}. A best-effort sender (HELLO flag {@code ring-delivery-frees}) frees its
 * batches once this thread's head has passed them and gets no acknowledgement for them; the others
 * are acknowledged over the stream's connection — cumulatively, at most once
 * per stream every {@value #ACK_INTERVAL_NANOS} ns unless {@value #ACK_BYTES} bytes are owed, not
 * once per batch: each acknowledgement is a write on the receiver's I/O thread, a wake-up of the
 * sender's, and the sender's outbox lock taken from that thread against its producer (measured in
 * a Storm cluster on two cores: a ring batch every ~8 ms per stream, one acknowledgement per 1.6
 * batches, the I/O threads a quarter of the transport's CPU). The data itself is delivered at once;
 * only the sender's release of its copy waits, within its memory budget ({@code Outbox} keeps at
 * least 256 KiB per route, 4 times {@value #ACK_BYTES}). An owed acknowledgement leaves when it is
 * due even if nothing more arrives: the idle consumer blocks no longer than that.
 *
 * <p>Faults. The thread never dies silently: if the ring turns out corrupt or its wake-up socket
 * fails, the cause is logged, the ring is marked failed in its header (producers stop writing into
 * it), and every stream it carried is told to resend over TCP (RING_FAILED), so an acknowledged
 * stream loses nothing across the switch. A bad batch of one stream closes only that stream's
 * connection. The ring's memory is unmapped only by its own thread, when it stops: {@link #close}
 * never takes memory away from a delivery still running in a slow handler.
 *
 * <p>Threading: {@link #start} and {@link #close} from the receiver's owner; the rest on the ring
 * thread.
 */
public final class RingInbound {
    private static final Logger LOG = LoggerFactory.getLogger(RingInbound.class);
    private static final long JOIN_MILLIS = 5_000;
    /** Longest a delivered ring batch waits for its acknowledgement. */
    static final long ACK_INTERVAL_NANOS = 5_000_000;
    /** Bytes delivered to one stream that are acknowledged at once, whatever the interval. */
    static final long ACK_BYTES = 64 << 10;

    private final RingConsumer ring;
    private final String name;
    private final StreamRegistry registry;
    private final IntPredicate knownTargets;
    private final ReceiverCounters metrics;
    private final LongSupplier clock;
    private static final int NO_TARGET = Integer.MIN_VALUE;
    /** The ring target whose batches were last dropped as unknown; ring thread only. */
    private int lastDroppedTarget = NO_TARGET;
    /** Streams delivered to and not yet acknowledged, in the order they came to owe it; ring thread only. */
    private final java.util.ArrayList<InboundStream> toAcknowledge = new java.util.ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean failed;

    private RingInbound(RingConsumer ring, String name, StreamRegistry registry, IntPredicate knownTargets, ReceiverCounters metrics,
            LongSupplier clock) {
        this.ring = ring;
        this.clock = clock;
        this.name = name;
        this.registry = registry;
        this.knownTargets = knownTargets;
        this.metrics = metrics;
        this.thread = new Thread(this::run, "jetstream-ring-" + name);
        thread.setDaemon(true);
    }

    /**
     * Creates ring {@code name} and starts its thread, or returns null (logged) when the ring cannot
     * be created — another user's directory, /dev/shm full or unusable — and senders stay on TCP.
     */
    public static RingInbound open(RingSettings settings, String name, StreamRegistry registry, IntPredicate knownTargets,
            ReceiverCounters metrics, LongSupplier clock) {
        RingConsumer ring;
        try {
            // Rings of processes that died without closing them (a killed worker) go first.
            RingDirectory.reclaimStale(settings.directory());
            ring = RingConsumer.create(settings, name);
        } catch (RuntimeException e) {
            LOG.warn("No shared-memory ring {} ({}); same-host senders use TCP", name, e.getMessage());
            return null;
        }
        RingInbound inbound = new RingInbound(ring, name, registry, knownTargets, metrics, clock);
        inbound.thread.start();
        LOG.info("Same-host senders write to ring {}", ring.file());
        return inbound;
    }

    /** The name senders attach to (sent in WELCOME). */
    public String name() {
        return name;
    }

    /** Whether senders may still be sent to the ring (it has not failed or closed). */
    public boolean usable() {
        return running && !failed;
    }

    public RingConsumer.Metrics ringMetrics() {
        return ring.metrics();
    }

    private void run() {
        RecordHandler handler = new RecordHandler() {
            @Override
            public void onRecord(int target, DirectBuffer buffer, int offset, int length) {
                metrics.onProtocolError();
                LOG.error("Ring {}: a single record for target {} where only batches are written; dropped", name, target);
            }

            @Override
            public void onBatch(int target, long batchId, DirectBuffer buffer, int offset, int length, int count) {
                onRingBatch(target, batchId, buffer, offset, length);
            }

            @Override
            public void afterPoll() {
                acknowledgeDue(clock.getAsLong());
            }

            @Override
            public long onIdle(long maxBlockNanos) {
                long now = clock.getAsLong();
                long next = acknowledgeDue(now);
                return next == Long.MAX_VALUE ? maxBlockNanos : Math.min(maxBlockNanos, next - now);
            }
        };
        try {
            ring.run(handler, () -> running);
            acknowledgeDue(clock.getAsLong()); // stopping: whatever is owed goes now
        } catch (RuntimeException | Error e) {
            failed = true;
            metrics.onRingFailure();
            LOG.error("Ring {} stopped: {}. It is closed to producers; its senders go back to TCP and resend what was not "
                    + "acknowledged", name, e.toString(), e);
            registry.ringFailed(e.toString());
        } finally {
            ring.close(); // this thread is the only reader: nothing touches the mapping after this
        }
    }

    /** One batch record from the ring: validated whole, then delivered in place and acknowledged. */
    private void onRingBatch(int target, long sequence, DirectBuffer buffer, int offset, int length) {
        InboundStream s = registry.byRingTarget(target);
        if (s != null) {
            lastDroppedTarget = NO_TARGET;
        }
        if (s == null) {
            metrics.onProtocolError();
            if (target != lastDroppedTarget) { // once per run of drops: a sender that outlived its stream writes many
                lastDroppedTarget = target;
                LOG.warn("Ring {}: batches for unknown ring target {} dropped from batch {} on (its stream is gone; "
                        + "counted as protocol errors)", name, target, sequence);
            }
            return;
        }
        try {
            if (sequence < 1) {
                throw new ProtocolException("ring batch sequence " + sequence + " < 1");
            }
            int records = BatchRecords.validate(buffer, offset, length, sequence, -1, knownTargets);
            metrics.onReceived(length);
            metrics.onRingBatch();
            long watermark = s.onBatch(sequence, records, buffer, offset, length, null, 0);
            if ((s.flags() & ProtocolDescriptor.FLAG_RING_DELIVERY_FREES) != 0) {
                return; // its sender frees the batch once this thread's head passes it: no acknowledgement
            }
            if (s.ringAckPending < 0) {
                toAcknowledge.add(s);
                s.ringAckOwedSinceNanos = clock.getAsLong();
                s.ringAckOwedBytes = 0;
            }
            s.ringAckPending = watermark;
            s.ringAckOwedBytes += length;
        } catch (ProtocolException e) {
            metrics.onProtocolError();
            LOG.error("Ring {}: bad batch of stream {}: {}; closing its connection", name, s.key, e.getMessage());
            s.closeConnections("bad ring batch: " + e.getMessage());
        } catch (RuntimeException e) {
            // The delivery handler failed: as on TCP, the connection closes and the batch stays unacknowledged.
            s.onDeliveryFailed(e, "ring " + name + " (batch " + sequence + ")");
            s.closeConnections("delivery failed: " + e);
        }
    }

    /**
     * Acknowledges, once per stream, the last batch delivered to each stream that owes an
     * acknowledgement for {@value #ACK_INTERVAL_NANOS} ns or {@value #ACK_BYTES} bytes; returns when
     * the next owed one falls due ({@link Long#MAX_VALUE} if none is owed). Ring thread.
     */
    long acknowledgeDue(long now) {
        long next = Long.MAX_VALUE;
        int kept = 0;
        for (int i = 0; i < toAcknowledge.size(); i++) {
            InboundStream s = toAcknowledge.get(i);
            long due = s.ringAckOwedSinceNanos + ACK_INTERVAL_NANOS;
            if (now - due >= 0 || s.ringAckOwedBytes >= ACK_BYTES || !running) {
                long watermark = s.ringAckPending;
                s.ringAckPending = -1;
                s.acknowledge(watermark);
            } else {
                toAcknowledge.set(kept++, s);
                if (next == Long.MAX_VALUE || due - next < 0) {
                    next = due;
                }
            }
        }
        for (int i = toAcknowledge.size() - 1; i >= kept; i--) {
            toAcknowledge.remove(i);
        }
        return next;
    }

    /**
     * Stops the thread and closes the ring. If a delivery is still running in the handler after
     * {@value #JOIN_MILLIS} ms, the ring is closed to producers and removed from the directory now,
     * and its memory is released by the thread itself when the delivery returns. Returns whether the
     * thread has stopped.
     */
    public boolean close() {
        running = false;
        ring.wake();
        try {
            thread.join(JOIN_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            ring.closeForProducers();
            LOG.warn("Ring {}: its thread is still delivering after {} ms (a slow handler); the ring is closed to producers "
                    + "and its memory is released when that delivery returns", name, JOIN_MILLIS);
            return false;
        }
        return true;
    }

    /**
     * Closes the ring to producers and removes its file now, before a shutdown waits for anything
     * else (an engine may halt the process soon after it asked to stop); the ring thread goes on
     * delivering what is already in it until {@link #close()}. Any thread; idempotent.
     */
    public void closeForProducers() {
        ring.closeForProducers();
    }

    /** Waits up to {@code millis} for the ring thread to end (tests, orderly shutdown). */
    public boolean awaitStopped(long millis) throws InterruptedException {
        thread.join(TimeUnit.MILLISECONDS.toMillis(millis));
        return !thread.isAlive();
    }
}
