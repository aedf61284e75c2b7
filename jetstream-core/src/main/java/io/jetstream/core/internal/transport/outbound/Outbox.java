package io.jetstream.core.internal.transport.outbound;

import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.BATCH_COUNT_OFFSET;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.BATCH_SEQUENCE_OFFSET;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.LENGTH_FIELD;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.TYPE_FIELD;

import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.SenderMetrics;
import io.jetstream.core.api.StreamRoutes.RelayChoice;
import io.jetstream.core.api.TransportOptions.Reliability;
import io.jetstream.core.internal.metrics.SenderCounters;
import io.jetstream.core.internal.transport.journal.StreamJournal;
import io.jetstream.core.model.RelayColony;
import io.jetstream.core.model.RelaySelection;
import io.netty.buffer.ByteBuf;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
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
 * <p>Its collaborators each hold one role: the {@link RouteTable} knows the routes and picks the
 * next one, the {@link RouteSelector} (relays chosen by the ant colony only) measures each route's
 * read rate and gives the table its preference order once per {@code transport.relay.choice-interval-ms}, the {@link OutboxJournal} spills batches beyond memory and reads them back, the
 * {@link DrainRateBound} measures the drain under backlog and bounds the outbox in adaptive mode.
 * Built with {@link #builder}.
 *
 * <p>Threading contract: every method takes the outbox lock (once per batch, never per record);
 * routes' I/O threads (acknowledgements, route changes), the sealing thread (producer or deadline
 * flusher) and the flusher's retries share it, and it guards the collaborators too.
 * {@link #acceptance()}, {@link #isReady()}, {@link #carriedByRing()} and {@link #limitBytes()} are
 * one volatile read each, for any thread.
 */
public final class Outbox {
    private static final Logger LOG = LoggerFactory.getLogger(Outbox.class);

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
    private final long maxEventDelayNanos;
    private final LongSupplier clock;
    private final SenderCounters metrics;
    /** Where a failure the outbox cannot throw to a caller goes (the stream's accumulator). */
    private volatile StreamFailure failure;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Guarded by lock (but for its volatile reads). */
    private final RouteTable routes;
    /** Guarded by lock. */
    private final OutboxJournal journal;
    /** Guarded by lock. */
    private final DrainRateBound bound;
    /** Which relays carry the stream ({@code ANT_COLONY}); null: the routes in index order. Guarded by lock. */
    private final RouteSelector selector;
    private final TreeMap<Long, OutboundBatch> pending = new TreeMap<>();
    private final TreeMap<Long, OutboundBatch> inFlight = new TreeMap<>();
    private long lastSequence;
    /** Sequence of the last batch that reached the outbox (kept, spilled or dropped). */
    private long lastEnqueuedSequence;
    private long acknowledged;
    private long inFlightBytes;
    private long memoryBytes;
    private boolean closed;
    /** Shortest time from writing a batch to its acknowledgement since the routes last connected. */
    private final RoundTripFloor ackRoundTrip = new RoundTripFloor();

    private volatile long limitBytes;
    private volatile int acceptance;
    /** A route was full when it had a batch to take: the flusher retries ({@link #retryIfFull}). */
    private volatile boolean full;

    Outbox(OutboxBuilder b) {
        this.name = Objects.requireNonNull(b.name, "name");
        this.reliability = Objects.requireNonNull(b.reliability, "reliability");
        this.freesDelivered = reliability == Reliability.BEST_EFFORT;
        this.windowBytes = b.windowBytes;
        this.memoryBytesConfigured = b.memoryBytes;
        this.maxEventDelayNanos = b.maxEventDelayNanos;
        this.clock = Objects.requireNonNull(b.clock, "clock");
        this.metrics = Objects.requireNonNull(b.metrics, "metrics");
        this.failure = (cause, where) -> LOG.error("Stream {} failed {}", name, where, cause);
        this.routes = new RouteTable(b.routeCount, b.controller);
        this.journal = new OutboxJournal(b.journal, name, b.memoryBytes, b.maxFrameBytes, Objects.requireNonNull(b.alloc, "alloc"),
                (cause, where) -> failure.fail(cause, where));
        this.bound = new DrainRateBound(b.controller != null, b.memoryBytes, b.maxEventDelayNanos,
                Objects.requireNonNull(b.policy, "policy"), routes);
        this.selector = b.relayChoice != RelayChoice.IN_ORDER && b.routeCount > 1
                ? new RouteSelector(name, routes, b.relaySelection != null ? b.relaySelection : selection(b.relayChoice, name),
                        b.relayChoiceIntervalNanos, clock.getAsLong())
                : null;
        this.lastSequence = b.lastSequence;
        this.lastEnqueuedSequence = b.lastSequence;
        this.acknowledged = b.acknowledgedSequence;
        this.limitBytes = b.memoryBytes;
        this.acceptance = reliability == Reliability.BEST_EFFORT ? OutboundStream.NOT_CONNECTED : OutboundStream.ACCEPTED;
    }

    /** What chooses the relays of a stream whose {@code choice} is not {@code IN_ORDER}; seeded by its name. */
    private RelaySelection selection(RelayChoice choice, String name) {
        return switch (choice) {
            case ANT_COLONY -> new RelayColony(new SplittableRandom(name.hashCode()), clock);
            case GREEDY -> RelaySelection.greedy();
            case RANDOM -> RelaySelection.randomOnce(new SplittableRandom(name.hashCode()));
            case IN_ORDER -> throw new IllegalArgumentException("IN_ORDER needs no selection");
        };
    }

    /** An outbox for the stream {@code name} (its peer, stream id and receiver, as logs show it). */
    public static OutboxBuilder builder(String name) {
        return new OutboxBuilder(name);
    }

    /** Where the drain rates measured under backlog go (the stream's controller). Before the stream starts. */
    public void setDrainListener(DrainListener listener) {
        lock.lock();
        try {
            bound.setListener(listener);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Where a failure that no caller can be told of goes (reading spilled batches back, on whichever
     * thread moves the outbox): the stream's accumulator, which fails the stream and logs it once.
     * Before the stream starts.
     */
    public void setStreamFailure(StreamFailure failure) {
        this.failure = failure;
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
     *     is kept in memory all the same (nothing is lost) and the journal is not used again; the
     *     caller fails the stream
     */
    public void enqueue(ByteBuf frame, int records, long sealedNanos) {
        lock.lock();
        try {
            long sequence = ++lastSequence;
            frame.setLong(frame.readerIndex() + LENGTH_FIELD + TYPE_FIELD + BATCH_SEQUENCE_OFFSET, sequence);
            OutboundBatch b = new OutboundBatch(sequence, frame, records, sealedNanos);
            lastEnqueuedSequence = sequence;
            if (closed || reliability == Reliability.BEST_EFFORT && !routes.connected()) {
                frame.release();
                metrics.onDropped(records);
                return;
            }
            boolean spill;
            try {
                spill = journal.append(frame, sequence, memoryBytes + b.bytes);
            } catch (RuntimeException e) {
                keep(b); // nothing is lost: memory keeps it, and the journal is not used again
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
            routes.beginHandshake(route);
            updateAcceptance();
            // Not lastSequence: a batch numbered but not yet kept would be announced as gone.
            long first = lastEnqueuedSequence + 1;
            if (!inFlight.isEmpty()) {
                first = Math.min(first, inFlight.firstKey());
            }
            if (!pending.isEmpty()) {
                first = Math.min(first, pending.firstKey());
            }
            if (journal.spilledFrames() > 0) {
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
            routes.ready(route);
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
            if (routes.remove(index, route)) {
                requeue(index);
            }
            if (selector != null) {
                selector.forget(index);
            }
            if (reliability == Reliability.BEST_EFFORT && !routes.connected()) {
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
            if (routes.replace(old, replacement)) {
                requeue(old.index());
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
            Route r = routes.next();
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
        if (selector != null) {
            chargeHeadOfLine(now);
        }
        long ackedBytes = 0;
        for (Iterator<OutboundBatch> it = inFlight.headMap(sequence, true).values().iterator(); it.hasNext(); ) {
            OutboundBatch b = it.next();
            it.remove();
            ackedBytes += free(b, now);
        }
        bound.onFreed(ackedBytes, now, backlog(now));
        for (Iterator<OutboundBatch> it = pending.headMap(sequence, true).values().iterator(); it.hasNext(); ) {
            OutboundBatch b = it.next();
            it.remove();
            memoryBytes -= b.bytes;
            b.frame.release();
        }
        journal.acknowledged(sequence);
        if (lastSequence < sequence) {
            lastSequence = sequence; // a restarted sender learns from its receiver where the stream stands
            lastEnqueuedSequence = sequence;
        }
    }

    /** Frees a batch taken off {@code inFlight}: delivered, by acknowledgement or as its route shows. Returns its bytes. */
    private int free(OutboundBatch b, long now) {
        inFlightBytes -= b.bytes;
        memoryBytes -= b.bytes;
        metrics.onAcknowledged(b.sentNanos - b.sealedNanos, now - b.sentNanos, b.records);
        metrics.onRouteAcknowledged(b.route, b.bytes);
        if (selector != null) {
            selector.rates().onAcknowledged(b.route, b.bytes);
        }
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
            Route r = b.route >= 0 ? routes.get(b.route) : null;
            if (r == null || !r.delivered(b)) {
                break;
            }
            inFlight.pollFirstEntry();
            if (selector != null) {
                selector.rates().onWatermark(b.route, b.sentNanos, now); // it held the line until now
            }
            freedBytes += free(b, now);
        }
        if (freedBytes > 0) {
            bound.onFreed(freedBytes, now, backlog(now));
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
        return b.routePosition >= 0 && b.route >= 0 && routes.get(b.route) != null;
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
        if (selector != null) {
            long now = clock.getAsLong();
            if (selector.due(now)) {
                chargeHeadOfLine(now);
                selector.select(now);
            }
        }
        metrics.routesInUse(routes.inUse());
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
            Route r = routes.next();
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

    /**
     * The watermark moves or the rate interval ends: the time it waited until now is charged to the
     * route of the oldest batch in flight, if that batch is what it waits for (not one waiting to be
     * written, which is the sender's delay, not a route's).
     */
    private void chargeHeadOfLine(long now) {
        OutboundBatch head = inFlight.isEmpty() ? null : inFlight.get(inFlight.firstKey()); // no entry allocated
        if (head != null && (pending.isEmpty() || pending.firstKey() > head.sequence)) {
            selector.rates().onWatermark(head.route, head.sentNanos, now);
        } else {
            selector.rates().onWatermark(-1, 0, now);
        }
    }

    /** Reads spilled batches back while nothing else waits and memory has room. */
    private void refillFromJournal() {
        while (pending.isEmpty() && memoryBytes < memoryBytesConfigured) {
            ByteBuf f = journal.pollSpilled(acknowledged);
            if (f == null) {
                return; // none spilled, or the journal failed (the stream has failed; memory keeps what it has)
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
     * Whether batches back up ({@link DrainRateBound#onFreed}): batches waiting to be written, half
     * the window or half the outbox in use, or acknowledgements overdue.
     */
    private boolean backlog(long now) {
        return !pending.isEmpty() || inFlightBytes >= windowBytes / 2 || memoryBytes >= limitBytes / 2
                || acknowledgementsOverdue(now);
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
        long limit = bound.limit();
        limitBytes = limit;
        int state;
        if (reliability == Reliability.BEST_EFFORT && !routes.connected()) {
            state = OutboundStream.NOT_CONNECTED;
        } else {
            boolean room = journal.admits(memoryBytes < limit, limit == memoryBytesConfigured);
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
            return routes.anyInUseIdle() ? null : SenderMetrics.HeldBy.ROUTE_QUEUED;
        } finally {
            lock.unlock();
        }
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
            while (!(pending.isEmpty() && inFlight.isEmpty() && !journal.holdsSpilled())) {
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
            journal.reportOnClose(pending.size() + inFlight.size());
            dropAll(why);
            journal.close();
            routes.clear();
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
            return pending.size() + inFlight.size() + journal.spilledFrames();
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
        return routes.isReady();
    }

    /**
     * Whether the stream's batches go through the receiver's shared-memory ring: routes are ready and
     * every one is a ring. One volatile read; any thread.
     */
    public boolean carriedByRing() {
        return routes.carriedByRing();
    }

    /**
     * The routes by preference, most preferred first (route 0 direct, {@code i ≥ 1} through relay
     * {@code i − 1}), and how many of them are in use now: {@code [inUse, order...]}. With
     * {@code IN_ORDER}, the index order. For logs and metrics.
     */
    public int[] routeOrder() {
        lock.lock();
        try {
            int[] order = routes.order();
            int[] out = new int[order.length + 1];
            out[0] = routes.active();
            System.arraycopy(order, 0, out, 1, order.length);
            return out;
        } finally {
            lock.unlock();
        }
    }

    /** The kinds of the ready routes, by index ({@code null} where none is ready). */
    public String[] routeKinds() {
        lock.lock();
        try {
            return routes.kinds();
        } finally {
            lock.unlock();
        }
    }

    /** For messages: what the outbox holds. */
    public String describe() {
        lock.lock();
        try {
            return pending.size() + " batches pending, " + inFlight.size() + " in flight (" + inFlightBytes + " B), "
                    + journal.describe() + ", routes ready " + routes.readyCount() + "/" + routes.size();
        } finally {
            lock.unlock();
        }
    }
}
