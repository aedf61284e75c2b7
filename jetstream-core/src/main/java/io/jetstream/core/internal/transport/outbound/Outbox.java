package io.jetstream.core.internal.transport.outbound;

import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.BATCH_COUNT_OFFSET;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.BATCH_FRAME_OVERHEAD;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.BATCH_SEQUENCE_OFFSET;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.LENGTH_FIELD;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.TYPE_FIELD;

import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.SenderMetrics;
import io.jetstream.core.api.TransportOptions.Reliability;
import io.jetstream.core.internal.transport.journal.StreamJournal;
import io.jetstream.core.model.BatchController;
import io.jetstream.core.model.FlushPolicy;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stream's sealed batches from their sequence number to their acknowledgement: it numbers them,
 * keeps them in memory up to a budget (then in a {@link StreamJournal}), writes them round-robin to
 * the ready {@link Route}s while the bytes in flight stay within {@code transport.window-bytes}
 * (flow control), frees them on the receiver's cumulative acknowledgements, and puts what a lost
 * route carried back in line (replay). It decides whether the producer may add more
 * ({@link #acceptance()}): that is the stream's back-pressure.
 *
 * <p>A best-effort stream also frees a batch as soon as the route that took it shows it delivered
 * ({@link Route#delivered}: the ring's consumer head passed it), and its receiver does not
 * acknowledge such batches: a ring crossing then costs no TCP frame, no I/O-thread wake-up on either
 * side and no outbox lock taken from an I/O thread against the producer. What such a route has not
 * yet delivered is still held, and resent over TCP if the ring goes.
 *
 * <p>It does not know which kind of route carries a batch: TCP and ring routes are written alike,
 * and a route that goes ({@link #onRouteLost}) or is replaced by another kind
 * ({@link #onRouteReplaced}: a failed ring falling back to its TCP connection) gives its batches
 * back.
 *
 * <p>Threading: every method takes the outbox lock (once per batch, never per record); routes'
 * I/O threads (acknowledgements, route changes), the sealing thread (producer or deadline flusher)
 * and the flusher's retries share it. {@link #acceptance()} is one volatile read, for the producer.
 */
public final class Outbox {
    private static final Logger LOG = LoggerFactory.getLogger(Outbox.class);

    /** Lowest bound of the adaptive outbox, per route in use. */
    public static final long MIN_ADAPTIVE_OUTBOX = 256 << 10;
    private static final long DRAIN_SAMPLE_NANOS = 100_000_000;

    /** Receives the drain rate the outbox measures under backlog (the controller's view of the link as it is now). */
    @FunctionalInterface
    public interface DrainListener {
        DrainListener NONE = (bytes, nanos) -> {};

        /** {@code bytesPerRoute} were acknowledged over {@code spanNanos} while a backlog existed. Outbox lock held. */
        void onDrainSample(long bytesPerRoute, long spanNanos);
    }

    private final String name;
    private final Reliability reliability;
    /** Best-effort: a batch its route shows delivered is freed without an acknowledgement ({@link #releaseDelivered}). */
    private final boolean freesDelivered;
    private final int windowBytes;
    private final long memoryBytesConfigured;
    private final int maxFrameBytes;
    private final long maxEventDelayNanos;
    private final LongSupplier clock;
    private final ByteBufAllocator alloc;
    private final SenderMetrics metrics;
    private final FlushPolicy policy;
    /** Null in fixed batch mode. */
    private final BatchController controller;
    private DrainListener drain = DrainListener.NONE;
    /** Null without a journal. */
    private final StreamJournal journal;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Ready routes by index; null while a route is not ready. Guarded by lock. */
    private final Route[] routes;
    /** Routes in the middle of a handshake. Guarded by lock. */
    private final boolean[] handshaking;
    /** Whether routes are ready and every one of them is a shared-memory ring; written under lock, read by any thread. */
    private volatile boolean carriedByRing;
    /** Whether a route is ready: written under the lock where routes change, read without it. */
    private volatile boolean ready;
    private final TreeMap<Long, OutboundBatch> pending = new TreeMap<>();
    private final TreeMap<Long, OutboundBatch> inFlight = new TreeMap<>();
    private long lastSequence;
    /** Sequence of the last batch that reached the outbox (kept, spilled or dropped). */
    private long lastEnqueuedSequence;
    private long acknowledged;
    private long inFlightBytes;
    private long memoryBytes;
    private int nextRoute;
    private boolean closed;
    /** The journal failed once: it is not written again (the stream has failed; memory keeps what it has). */
    private boolean journalBroken;
    // Drain capacity, measured from acknowledgements while a backlog exists (adaptive mode).
    private long backlogStartNanos;
    private long backlogAckedBytes;
    private double capacityBytesPerSecond = Double.NaN;
    /** Shortest time from writing a batch to its acknowledgement since the routes last connected. */
    private final RoundTripFloor ackRoundTrip = new RoundTripFloor();

    private volatile long limitBytes;
    private volatile int acceptance;
    /** A route was full when it had a batch to take: the flusher retries ({@link #retryIfFull}). */
    private volatile boolean full;

    /**
     * @param routeCount how many routes the stream has
     * @param lastSequence the last sequence numbered so far (0 for a new stream; a durable journal's
     *     last for a restarted one)
     * @param acknowledgedSequence the last sequence known delivered (0, or the durable journal's)
     */
    public Outbox(String name, int routeCount, Reliability reliability, int windowBytes, long memoryBytes, int maxFrameBytes,
            long maxEventDelayNanos, LongSupplier clock, ByteBufAllocator alloc, SenderMetrics metrics, FlushPolicy policy,
            BatchController controller, StreamJournal journal, long lastSequence, long acknowledgedSequence) {
        this.name = name;
        this.reliability = reliability;
        this.freesDelivered = reliability == Reliability.BEST_EFFORT;
        this.windowBytes = windowBytes;
        this.memoryBytesConfigured = memoryBytes;
        this.maxFrameBytes = maxFrameBytes;
        this.maxEventDelayNanos = maxEventDelayNanos;
        this.clock = clock;
        this.alloc = alloc;
        this.metrics = metrics;
        this.policy = policy;
        this.controller = controller;
        this.journal = journal;
        this.routes = new Route[routeCount];
        this.handshaking = new boolean[routeCount];
        this.lastSequence = lastSequence;
        this.lastEnqueuedSequence = lastSequence;
        this.acknowledged = acknowledgedSequence;
        this.limitBytes = memoryBytes;
        this.acceptance = reliability == Reliability.BEST_EFFORT ? OutboundStream.NOT_CONNECTED : OutboundStream.ACCEPTED;
    }

    /** Where the drain rates measured under backlog go (the stream's controller). Before the stream starts. */
    public void setDrainListener(DrainListener listener) {
        this.drain = listener;
    }

    // ------------------------------------------------------------------ producer side

    /**
     * Whether the producer may add records: {@link OutboundStream#ACCEPTED},
     * {@link OutboundStream#BACK_PRESSURED} or, best-effort with no route, {@link OutboundStream#NOT_CONNECTED}.
     * One volatile read.
     */
    public int acceptance() {
        return acceptance;
    }

    /**
     * Takes a sealed BATCH frame (ownership included), numbers it, keeps it (memory or journal) and
     * writes what the window allows. A closed outbox, or a best-effort one without a connected
     * route, drops and counts it.
     *
     * @throws io.jetstream.core.internal.transport.journal.JournalException if the journal failed: the batch
     *     is kept in memory all the same (nothing is lost) and the journal is not used again
     */
    public void enqueue(ByteBuf frame, int records, long sealedNanos) {
        lock.lock();
        try {
            long sequence = ++lastSequence;
            frame.setLong(frame.readerIndex() + LENGTH_FIELD + TYPE_FIELD + BATCH_SEQUENCE_OFFSET, sequence);
            OutboundBatch b = new OutboundBatch(sequence, frame, records, sealedNanos);
            lastEnqueuedSequence = sequence;
            if (closed || reliability == Reliability.BEST_EFFORT && !connected()) {
                frame.release();
                metrics.onDropped(records);
                return;
            }
            boolean usable = journal != null && !journalBroken;
            boolean spill = usable && (journal.spilledFrames() > 0 || memoryBytes + b.bytes > memoryBytesConfigured);
            try {
                if (usable && (spill || journal.writesAhead())) {
                    journal.append(frame, sequence, spill);
                }
            } catch (RuntimeException e) {
                journalBroken = true;
                spill = false;
                keep(b);
                pump();
                throw e;
            }
            if (spill) {
                frame.release();
                metrics.onSpilled();
            } else {
                keep(b);
            }
            pump();
        } finally {
            lock.unlock();
        }
    }

    private void keep(OutboundBatch b) {
        pending.put(b.sequence, b);
        memoryBytes += b.bytes;
    }

    /** Restores batches a durable journal recovered (unacknowledged, in order) before anything is sent. */
    public void restore(List<ByteBuf> frames) {
        lock.lock();
        try {
            long now = clock.getAsLong();
            for (ByteBuf f : frames) {
                OutboundBatch b = batchOf(f, now);
                pending.put(b.sequence, b);
                memoryBytes += b.bytes;
                b.sentBefore = true;
            }
            updateAcceptance();
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ routes

    /**
     * A route sends HELLO: returns the lowest sequence this stream may still send (the receiver
     * skips any gap before it). Until the route is ready or lost, best-effort batches are held
     * rather than dropped, so that nothing announced here goes missing later.
     */
    public long beginHandshake(int route) {
        lock.lock();
        try {
            handshaking[route] = true;
            updateAcceptance();
            // Not lastSequence: a batch numbered but not yet kept would be announced as gone.
            long first = lastEnqueuedSequence + 1;
            if (!inFlight.isEmpty()) {
                first = Math.min(first, inFlight.firstKey());
            }
            if (!pending.isEmpty()) {
                first = Math.min(first, pending.firstKey());
            }
            if (journal != null && journal.spilledFrames() > 0) {
                first = Math.min(first, acknowledged + 1); // the spilled batches follow the acknowledged ones
            }
            return Math.max(first, acknowledged + 1);
        } finally {
            lock.unlock();
        }
    }

    /** {@code route} completed its handshake; the receiver has delivered everything up to {@code lastDelivered}. */
    public void onRouteReady(Route route, long lastDelivered) {
        lock.lock();
        try {
            handshaking[route.index()] = false;
            routes[route.index()] = route;
            routesChanged();
            acknowledge(lastDelivered);
            ackRoundTrip.reset(); // the batches just acknowledged waited out the reconnection, and the path may be new
            pump();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Route {@code index} lost its connection ({@code route} is the route that was ready there, or
     * null if it never was): what it carried unconfirmed goes back in line (resent on another route
     * or after reconnecting); best-effort with no route left drops everything held.
     */
    public void onRouteLost(int index, Route route) {
        lock.lock();
        try {
            handshaking[index] = false;
            if (route != null && routes[index] == route) {
                routes[index] = null;
                routesChanged();
                requeue(index);
            }
            if (reliability == Reliability.BEST_EFFORT && !connected()) {
                dropAll("route " + index + " lost, no route left (best-effort)");
            }
            pump();
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@code old} can no longer carry batches and {@code replacement} takes its place (a failed ring
     * route falls back to its TCP connection): what {@code old} carried unconfirmed is resent, less
     * what the receiver says it delivered. Nothing is dropped, whatever the reliability.
     */
    public void onRouteReplaced(Route old, Route replacement, long lastDelivered) {
        lock.lock();
        try {
            int index = old.index();
            if (routes[index] == old) {
                routes[index] = replacement;
                routesChanged();
                requeue(index);
            }
            acknowledge(lastDelivered);
            pump();
        } finally {
            lock.unlock();
        }
    }

    private void requeue(int index) {
        for (Iterator<OutboundBatch> it = inFlight.values().iterator(); it.hasNext(); ) {
            OutboundBatch b = it.next();
            if (b.route == index) {
                it.remove();
                inFlightBytes -= b.bytes;
                b.route = -1;
                pending.put(b.sequence, b);
            }
        }
    }

    /** Cumulative acknowledgement: everything up to {@code sequence} was delivered. I/O thread. */
    public void onAck(long sequence) {
        lock.lock();
        try {
            acknowledge(sequence);
            pump();
        } finally {
            lock.unlock();
        }
    }

    /** Called by the deadline flusher: retries batches a full route refused. */
    public void retryIfFull() {
        if (full) {
            lock.lock();
            try {
                full = false;
                pump();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Sends a link probe on a ready route, if any. */
    public boolean probe(long id, int bytes) {
        lock.lock();
        try {
            Route r = readyRoute();
            if (r == null) {
                return false;
            }
            r.probe(id, bytes);
            return true;
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ the outbox proper (lock held)

    private void acknowledge(long sequence) {
        if (sequence <= acknowledged) {
            return;
        }
        acknowledged = sequence;
        long now = clock.getAsLong();
        long ackedBytes = 0;
        for (Iterator<OutboundBatch> it = inFlight.headMap(sequence, true).values().iterator(); it.hasNext(); ) {
            OutboundBatch b = it.next();
            it.remove();
            ackedBytes += free(b, now);
        }
        measureDrain(ackedBytes, now);
        for (Iterator<OutboundBatch> it = pending.headMap(sequence, true).values().iterator(); it.hasNext(); ) {
            OutboundBatch b = it.next();
            it.remove();
            memoryBytes -= b.bytes;
            b.frame.release();
        }
        if (journal != null && !journalBroken) {
            journal.acknowledged(sequence);
        }
        if (lastSequence < sequence) {
            lastSequence = sequence; // a restarted sender learns from its receiver where the stream stands
            lastEnqueuedSequence = sequence;
        }
    }

    /** Frees a batch taken off {@code inFlight}: delivered, by acknowledgement or as its route shows. Returns its bytes. */
    private int free(OutboundBatch b, long now) {
        inFlightBytes -= b.bytes;
        memoryBytes -= b.bytes;
        metrics.onAcknowledged(b.sentNanos - b.sealedNanos, now - b.sentNanos);
        ackRoundTrip.onAcknowledged(b.sentNanos, now);
        b.frame.release();
        return b.bytes;
    }

    /**
     * Best-effort: frees the oldest batches in flight while their routes show them delivered (a ring
     * route: its consumer's head passed them). Stops at the first that is not, so a batch waiting for
     * an acknowledgement (one that took TCP) holds back those behind it until that acknowledgement
     * comes, which frees them all.
     */
    private void freeDelivered() {
        if (!freesDelivered || inFlight.isEmpty()) {
            return;
        }
        long now = clock.getAsLong();
        long freedBytes = 0;
        while (!inFlight.isEmpty()) {
            OutboundBatch b = inFlight.get(inFlight.firstKey());
            Route r = b.route >= 0 ? routes[b.route] : null;
            if (r == null || !r.delivered(b)) {
                break;
            }
            inFlight.pollFirstEntry();
            freedBytes += free(b, now);
        }
        if (freedBytes > 0) {
            measureDrain(freedBytes, now);
        }
    }

    /**
     * Whether the oldest batch in flight waits for a route that shows its deliveries only when looked
     * at (a ring): a waiting thread must look again soon rather than wait to be signalled.
     */
    private boolean awaitsRouteDelivery() {
        if (!freesDelivered || inFlight.isEmpty()) {
            return false;
        }
        OutboundBatch b = inFlight.get(inFlight.firstKey());
        return b.routePosition >= 0 && b.route >= 0 && routes[b.route] != null;
    }

    /**
     * Frees what the routes show delivered ({@link #freeDelivered}) and writes what that made room for.
     * For the producer when it is pushed back and for the deadline flusher; a best-effort stream's only.
     * Never waits for the lock: whoever holds it is writing, and frees what was delivered first.
     */
    public void releaseDelivered() {
        if (!freesDelivered || !lock.tryLock()) {
            return;
        }
        try {
            if (!inFlight.isEmpty()) {
                pump(); // which frees what was delivered first
            }
        } finally {
            lock.unlock();
        }
    }

    /** Writes pending batches while the window and a ready route allow. */
    private void pump() {
        freeDelivered();
        while (true) {
            refillFromJournal();
            Map.Entry<Long, OutboundBatch> next = pending.firstEntry();
            if (next == null) {
                break;
            }
            OutboundBatch b = next.getValue();
            if (inFlightBytes > 0 && inFlightBytes + b.bytes > windowBytes) {
                break;
            }
            Route r = readyRoute();
            if (r == null) {
                break;
            }
            int written = r.write(b);
            if (written != Route.WRITTEN) {
                metrics.onRouteFull();
                full = true; // the flusher retries; so does the next acknowledgement
                break;
            }
            pending.pollFirstEntry();
            b.route = r.index();
            b.sentNanos = clock.getAsLong();
            inFlight.put(b.sequence, b);
            inFlightBytes += b.bytes;
            metrics.onSent(b.sentBefore);
            b.sentBefore = true;
        }
        updateAcceptance();
    }

    private void refillFromJournal() {
        while (journal != null && !journalBroken && pending.isEmpty() && journal.spilledFrames() > 0
                && memoryBytes < memoryBytesConfigured) {
            ByteBuf f;
            try {
                f = journal.pollSpilled(alloc);
            } catch (RuntimeException e) {
                journalBroken = true;
                LOG.error("Stream {}: reading spilled batches back failed; {} batches after sequence {} cannot be sent: {}",
                        name, journal.spilledFrames(), acknowledged, e.toString());
                throw e;
            }
            OutboundBatch b = batchOf(f, clock.getAsLong());
            if (b.sequence <= acknowledged) {
                f.release();
                continue;
            }
            b.sentBefore = true;
            pending.put(b.sequence, b);
            memoryBytes += b.bytes;
        }
    }

    private static OutboundBatch batchOf(ByteBuf f, long now) {
        int body = f.readerIndex() + LENGTH_FIELD + TYPE_FIELD;
        return new OutboundBatch(f.getLong(body + BATCH_SEQUENCE_OFFSET), f, f.getInt(body + BATCH_COUNT_OFFSET), now);
    }

    /**
     * The outbox bound. In adaptive mode, while connected and once the drain rate under backlog is
     * known, it is what the link drains within the user's maximum event delay (at least
     * {@value #MIN_ADAPTIVE_OUTBOX} bytes and two batches per route in use, per route; at most
     * {@code transport.memory-bytes}): under overload the producer is pushed back instead of
     * queueing seconds of data.
     */
    private long outboxLimit() {
        if (controller == null || Double.isNaN(capacityBytesPerSecond) || !anyReady()) {
            return memoryBytesConfigured;
        }
        double drainable = capacityBytesPerSecond * maxEventDelayNanos / 1e9;
        // Per route in use, room for two batches and at least MIN_ADAPTIVE_OUTBOX: every route has
        // its next batch while it sends one and stays busy enough that TCP keeps its window open.
        // Otherwise a bound learnt while one route was busy keeps the others idle, and the drain
        // measured under it confirms it (measured: 4 routes stuck at one link's throughput).
        long floor = Math.max(1, routesInUse()) * Math.max(MIN_ADAPTIVE_OUTBOX, 2L * (policy.targetBytes() + BATCH_FRAME_OVERHEAD));
        return (long) Math.min(memoryBytesConfigured, Math.max(floor, drainable));
    }

    /**
     * Samples the drain rate from acknowledged bytes over spans of at least
     * {@value #DRAIN_SAMPLE_NANOS} ns with a backlog: batches waiting to be written, half the window
     * or half the outbox in use, or acknowledgements overdue.
     */
    private void measureDrain(long ackedBytes, long now) {
        boolean backlog = !pending.isEmpty() || inFlightBytes >= windowBytes / 2
                || memoryBytes >= limitBytes / 2 || acknowledgementsOverdue(now);
        if (!backlog) {
            backlogStartNanos = now;
            backlogAckedBytes = 0;
            return;
        }
        backlogAckedBytes += ackedBytes;
        long span = now - backlogStartNanos;
        if (span >= DRAIN_SAMPLE_NANOS) {
            double sample = backlogAckedBytes * 1e9 / span;
            // Under backlog the acknowledged bytes are the routes' service: the link as it is now,
            // which probes sent into an idle token bucket's burst overstate. Per route in use.
            drain.onDrainSample(backlogAckedBytes / Math.max(1, routesInUse()), span);
            capacityBytesPerSecond = Double.isNaN(capacityBytesPerSecond) ? sample
                    : capacityBytesPerSecond + 0.3 * (sample - capacityBytesPerSecond);
            backlogStartNanos = now;
            backlogAckedBytes = 0;
        }
    }

    /**
     * Whether the oldest batch in flight has waited for its acknowledgement longer than both the
     * user's maximum event delay and four idle round trips: the receiver or the link is not keeping
     * up. Without it a slow receiver behind large socket buffers went unnoticed until half the window
     * was in flight: measured on one core, acknowledgements 0.46 s late under a 20 ms delay bound and
     * the outbox still at its configured 64 MiB. The round-trip term keeps a long but idle path (its
     * acknowledgements late by the propagation delay alone) from reading as a backlog.
     */
    private boolean acknowledgementsOverdue(long now) {
        if (inFlight.isEmpty() || !ackRoundTrip.known()) {
            return false;
        }
        long allowed = Math.max(maxEventDelayNanos, 4 * ackRoundTrip.nanos());
        return now - inFlight.get(inFlight.firstKey()).sentNanos > allowed;
    }

    private void updateAcceptance() {
        long limit = outboxLimit();
        limitBytes = limit;
        int state;
        if (reliability == Reliability.BEST_EFFORT && !connected()) {
            state = OutboundStream.NOT_CONNECTED;
        } else {
            boolean journalRoom = journal != null && !journalBroken && journal.hasRoomFor(maxFrameBytes + LENGTH_FIELD);
            boolean room = memoryBytes < limit || limit == memoryBytesConfigured && journalRoom;
            if (journal != null && journal.writesAhead() && !journalBroken && !journalRoom) {
                room = false; // every batch is journaled first: a full journal pushes back whatever memory holds
            }
            state = room ? OutboundStream.ACCEPTED : OutboundStream.BACK_PRESSURED;
        }
        acceptance = state;
        changed.signalAll();
    }

    /**
     * Whether a batch sealed now would leave at once: nothing waits in the outbox to be written and
     * one of the routes in use has nothing queued. Observed, not predicted: a model fitted on a busy
     * machine can believe the link busy long after it went quiet. {@code false} while another thread
     * holds the outbox (it is writing: the link is not idle). Any thread.
     */
    public boolean writesAtOnce() {
        return whyNotAtOnce() == null;
    }

    /** Null if a batch sealed now would leave at once ({@link #writesAtOnce}), or what holds it. Any thread. */
    public SenderMetrics.HeldBy whyNotAtOnce() {
        if (!lock.tryLock()) {
            return SenderMetrics.HeldBy.OUTBOX_BUSY;
        }
        try {
            if (closed || !pending.isEmpty()) {
                return SenderMetrics.HeldBy.BATCHES_WAITING;
            }
            int active = activeRoutes();
            for (int i = 0; i < active; i++) {
                Route r = routes[i];
                if (r != null && r.queuedBytes() == 0) {
                    return null;
                }
            }
            return SenderMetrics.HeldBy.ROUTE_QUEUED;
        } finally {
            lock.unlock();
        }
    }

    /** Ready routes among those the oracle chose. */
    private int routesInUse() {
        int active = activeRoutes();
        int n = 0;
        for (int i = 0; i < active; i++) {
            if (routes[i] != null) {
                n++;
            }
        }
        return n;
    }

    private int activeRoutes() {
        return controller != null && controller.lastDecision() != null
                ? Math.max(1, Math.min(routes.length, controller.lastDecision().routes()))
                : routes.length;
    }

    /** Round-robin over the ready routes among the first {@code routes} the oracle chose, then any ready route. */
    private Route readyRoute() {
        int active = activeRoutes();
        for (int pass = 0; pass < 2; pass++) {
            int limit = pass == 0 ? active : routes.length;
            for (int i = 0; i < limit; i++) {
                int index = (nextRoute + i) % limit;
                Route r = routes[index];
                if (r != null) {
                    nextRoute = (index + 1) % limit;
                    return r;
                }
            }
        }
        return null;
    }

    private boolean anyReady() {
        for (Route r : routes) {
            if (r != null) {
                return true;
            }
        }
        return false;
    }

    /** Whether a route is ready or in the middle of a handshake. */
    private boolean connected() {
        if (anyReady()) {
            return true;
        }
        for (boolean h : handshaking) {
            if (h) {
                return true;
            }
        }
        return false;
    }

    private void dropAll(String why) {
        int records = 0;
        int batches = 0;
        for (TreeMap<Long, OutboundBatch> m : List.of(inFlight, pending)) {
            for (OutboundBatch b : m.values()) {
                records += b.records;
                batches++;
                metrics.onDropped(b.records);
                b.frame.release();
            }
            m.clear();
        }
        inFlightBytes = 0;
        memoryBytes = 0;
        if (batches > 0) {
            LOG.warn("Stream {}: dropped {} unconfirmed batches ({} records): {}", name, batches, records, why);
        }
    }

    // ------------------------------------------------------------------ close and state

    /**
     * Waits until everything sealed was acknowledged or {@code timeoutNanos} passed. Returns whether
     * it was.
     */
    public boolean awaitAcknowledged(long timeoutNanos) throws InterruptedException {
        lock.lock();
        try {
            long deadline = clock.getAsLong() + timeoutNanos;
            while (!(pending.isEmpty() && inFlight.isEmpty() && (journal == null || journalBroken || journal.spilledFrames() == 0))) {
                long left = deadline - clock.getAsLong();
                if (left <= 0) {
                    return false;
                }
                // What a ring route delivers is seen by looking, not told: look, and again soon while it waits.
                int inFlightBefore = inFlight.size();
                pump();
                if (inFlight.size() != inFlightBefore) {
                    continue; // freed or wrote some: check again at once
                }
                changed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(awaitsRouteDelivery() ? 1 : 50)));
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits while the producer is pushed back, at most {@code timeoutNanos}; returns the acceptance
     * then. For a blocking send.
     */
    public int awaitAcceptance(long timeoutNanos) throws InterruptedException {
        lock.lock();
        try {
            long deadline = clock.getAsLong() + timeoutNanos;
            while (acceptance == OutboundStream.BACK_PRESSURED && !closed) {
                long left = deadline - clock.getAsLong();
                if (left <= 0) {
                    break;
                }
                pump(); // frees what a ring delivered: seen by looking, not told
                if (acceptance != OutboundStream.BACK_PRESSURED) {
                    break;
                }
                changed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(awaitsRouteDelivery() ? 1 : 10)));
            }
            return acceptance;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Closes the outbox: later batches are dropped; what is still held is dropped and counted (a
     * durable journal keeps it for the next incarnation), and the journal is closed.
     */
    public void close(String why) {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            if (journal != null) {
                long spilled = journal.spilledFrames();
                if (journal.writesAhead() && !journalBroken) {
                    if (!pending.isEmpty() || !inFlight.isEmpty() || spilled > 0) {
                        LOG.warn("Stream {}: closing with {} unacknowledged batches; the durable journal keeps them for the "
                                + "stream's next start", name, pending.size() + inFlight.size() + spilled);
                    }
                } else if (spilled > 0) {
                    LOG.warn("Stream {}: {} spilled batches were never sent before close", name, spilled);
                }
            }
            dropAll(why);
            if (journal != null) {
                journal.close();
            }
            Arrays.fill(routes, null);
            routesChanged();
            updateAcceptance();
        } finally {
            lock.unlock();
        }
    }

    /** Current bound of the outbox (see {@code transport.memory-bytes}; adaptive mode narrows it under overload). */
    public long limitBytes() {
        return limitBytes;
    }

    /** Bytes sealed and not yet acknowledged, in memory. */
    public long memoryBytes() {
        lock.lock();
        try {
            return memoryBytes;
        } finally {
            lock.unlock();
        }
    }

    /** Bytes sent and not yet acknowledged. */
    public long inFlightBytes() {
        lock.lock();
        try {
            return inFlightBytes;
        } finally {
            lock.unlock();
        }
    }

    /** Batches sealed and not yet acknowledged (memory and journal). */
    public long unacknowledgedBatches() {
        lock.lock();
        try {
            return pending.size() + inFlight.size() + (journal == null ? 0 : journal.spilledFrames());
        } finally {
            lock.unlock();
        }
    }

    /** The stream's name in logs: its peer, stream id and receiver. */
    public String name() {
        return name;
    }

    /** The last sequence numbered (or learnt from the receiver). */
    public long lastSequence() {
        lock.lock();
        try {
            return lastSequence;
        } finally {
            lock.unlock();
        }
    }

    /** Whether a route is ready. One volatile read; any thread (a producer may ask per record). */
    public boolean isReady() {
        return ready;
    }

    /** Under lock, after a route became ready, was lost or was replaced. */
    private void routesChanged() {
        ready = anyReady();
        boolean ring = false;
        for (Route r : routes) {
            if (r != null) {
                if (!(r instanceof RingRoute)) {
                    ring = false;
                    break;
                }
                ring = true;
            }
        }
        carriedByRing = ring;
    }

    /**
     * Whether the stream's batches go through the receiver's shared-memory ring: routes are ready and
     * every one is a ring. One volatile read; any thread.
     */
    public boolean carriedByRing() {
        return carriedByRing;
    }

    /** The kinds of the ready routes, by index ({@code null} where none is ready). */
    public String[] routeKinds() {
        lock.lock();
        try {
            String[] kinds = new String[routes.length];
            for (int i = 0; i < routes.length; i++) {
                kinds[i] = routes[i] == null ? null : routes[i].kind();
            }
            return kinds;
        } finally {
            lock.unlock();
        }
    }

    /** For messages: what the outbox holds. */
    public String describe() {
        lock.lock();
        try {
            return pending.size() + " batches pending, " + inFlight.size() + " in flight (" + inFlightBytes + " B), "
                    + (journal == null ? "no journal" : journal.spilledFrames() + " spilled") + ", routes ready "
                    + Arrays.stream(routes).filter(r -> r != null).count() + "/" + routes.length;
        } finally {
            lock.unlock();
        }
    }
}
