package io.jetstream.core.transport.netty;

import static io.jetstream.core.transport.protocol.ProtocolDescriptor.*;

import io.jetstream.core.batch.BatchController;
import io.jetstream.core.batch.BatchOptions;
import io.jetstream.core.batch.FlushPolicy;
import io.jetstream.core.metrics.AdaptiveControlGauges;
import io.jetstream.core.qos.ChannelMeasurements;
import io.jetstream.core.transport.ControlListener;
import io.jetstream.core.transport.SenderMetrics;
import io.jetstream.core.transport.TransportOptions.Reliability;
import io.jetstream.core.transport.TransportSettings;
import io.jetstream.core.transport.journal.SpillJournal;
import io.jetstream.core.transport.protocol.BatchFrameBuilder;
import io.netty.buffer.ByteBuf;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One stream of records to one receiver, over {@code batch.max-routes} connections ("routes").
 * Records are copied straight into the open BATCH frame; the {@link FlushPolicy} (adaptive: driven by
 * JetStream's {@link BatchController}) decides when it is sealed — at the size target, or when the
 * deadline flusher finds its oldest record has waited the maximum delay. Sealed batches go to an
 * outbox bounded by {@code transport.memory-bytes} (then, acknowledged streams, a {@link SpillJournal}),
 * and leave round-robin over the ready routes while the bytes in flight stay within
 * {@code transport.window-bytes}; the receiver's cumulative acknowledgements free them. Under a
 * latency constraint ({@code qos.latency-bound-ms}) the stream is a channel of the transport's
 * {@link io.jetstream.core.qos.QosService}: it reports its buffers' lifetimes, tags one record per
 * interval, and its flush policy takes the constraint's output buffer size as a cap.
 *
 * <p>Threading contract: {@link #offer}, {@link #send}, {@link #flush} and {@link #close} are for
 * one producer thread (Storm's transfer thread). The open batch is owned by whoever holds the claim
 * word — the producer for the length of one call, or the deadline flusher, which only takes it when
 * it is free (otherwise it asks the producer to flush on its way out): one CAS and one release store
 * per record, no lock and no allocation. The outbox is guarded by a lock taken once per batch, by
 * the sealing thread and by the routes' I/O threads (acknowledgements, route changes).
 */
public final class StreamSender implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StreamSender.class);

    private static final int FREE = 0;
    private static final int PRODUCER = 1;
    private static final int FLUSHER = 2;
    private static final int PROBE_MSG = 1;
    static final long MIN_ADAPTIVE_OUTBOX = 256 << 10;
    private static final long DRAIN_SAMPLE_NANOS = 100_000_000;
    /** One record in this many times its stay in {@link #offer} (the producer's load; a power of two). */
    private static final int LOAD_SAMPLE_EVERY = 64;
    private static final long LOAD_WINDOW_NANOS = 50_000_000;
    /** Frame bytes of a QoS tag record. */
    private static final int TAG_RECORD = RECORD_HEADER_LENGTH + TAG_LENGTH;

    final NettyTransport transport;
    final TransportSettings settings;
    final String streamId;
    final java.util.List<InetSocketAddress> remotes;
    final ControlListener controls;
    final long epoch = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE | 1L;
    private final SenderMetrics metrics = new SenderMetrics();
    /** Every batch and Nephele decision about this stream, as gauges. */
    private final AdaptiveControlGauges gauges = new AdaptiveControlGauges();
    private final Route[] routes;
    private final int maxRecordLength;

    // Claim-holder fields (producer or flusher, one at a time).
    private final AtomicInteger claim = new AtomicInteger(FREE);
    private volatile boolean flushRequested;
    private final BatchFrameBuilder builder;
    private final FlushPolicy policy;
    private final BatchController controller;
    /** This stream's measurements for the transport's latency constraint; null without one. */
    private final ChannelMeasurements qos;
    private long lastSequence;
    /** When the controller may next want a link probe sent ({@link BatchController#probeCheckNanos}); for the flusher. */
    private volatile long probeCheckNanos = Long.MAX_VALUE; // none before the first batch
    // Producer load (producer thread): time inside offer, sampled.
    private long offers;
    private long sampledBusyNanos;
    private long loadWindowStartNanos;

    // Probe results, written by routes' I/O threads, read by the claim holder.
    private final ManyToOneRingBuffer probeResults =
            new ManyToOneRingBuffer(new UnsafeBuffer(ByteBuffer.allocateDirect(4096 + RingBufferDescriptor.TRAILER_LENGTH)));

    // Outbox, guarded by lock.
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final TreeMap<Long, OutboundBatch> pending = new TreeMap<>();
    private final TreeMap<Long, OutboundBatch> inFlight = new TreeMap<>();
    private final SpillJournal journal;
    private long inFlightBytes;
    private long memoryBytes;
    /** Sequence of the last batch that reached the outbox (kept, spilled or dropped). */
    private long lastEnqueuedSequence;
    private long acknowledged;
    private int nextRoute;
    private boolean closing;
    // Drain capacity, measured from acknowledgements while a backlog exists (adaptive mode).
    private long backlogStartNanos;
    private long backlogAckedBytes;
    private double capacityBytesPerSecond = Double.NaN;
    /** Shortest time from writing a batch to its acknowledgement since the routes last connected. */
    private final RoundTripFloor ackRoundTrip = new RoundTripFloor();
    private volatile long outboxLimitBytes;
    private final UnsafeBuffer drainScratch = new UnsafeBuffer(new byte[16]);
    private volatile boolean accepting = true;
    /** Largest frame to build, length field included: the ring's record limit while a route writes to one. */
    private volatile int frameLimit;
    /** A route's ring was full when the outbox had a batch for it. */
    private volatile boolean ringFull;
    private volatile boolean closed;

    StreamSender(NettyTransport transport, String streamId, java.util.List<InetSocketAddress> remotes, ControlListener controls) {
        this.transport = transport;
        this.settings = transport.settings;
        this.streamId = streamId;
        this.remotes = java.util.List.copyOf(remotes);
        this.controls = controls;
        this.maxRecordLength = maxRecordLength(settings.maxFrameBytes());
        this.builder = new BatchFrameBuilder(settings.maxFrameBytes());
        this.policy = settings.batch().newFlushPolicy();
        this.controller = settings.batch().mode() == BatchOptions.Mode.ADAPTIVE
                ? settings.batch().newController(policy, Runtime.getRuntime().availableProcessors(), gauges)
                : null;
        this.journal = settings.reliability() == Reliability.ACKNOWLEDGED && settings.journalDir().isPresent()
                ? new SpillJournal(settings.journalDir().get().resolve(safe(transport.peerId) + "-" + safe(streamId)),
                        settings.maxFrameBytes(), settings.journalMaxBytes())
                : null;
        this.outboxLimitBytes = settings.memoryBytes();
        this.frameLimit = settings.maxFrameBytes() + LENGTH_FIELD;
        this.routes = new Route[settings.batch().maxRoutes()];
        for (int i = 0; i < routes.length; i++) {
            routes[i] = new Route(this, i, routes.length, this.remotes.get(i % this.remotes.size()));
        }
        ChannelMeasurements measurements = null;
        if (transport.qos != null) {
            try {
                measurements = transport.qos.register(toString(), policy::setSizeCap, gauges);
            } catch (RuntimeException e) {
                if (journal != null) {
                    journal.close();
                }
                throw e;
            }
        }
        this.qos = measurements;
    }

    void start() {
        transport.flusher.register(this);
        for (Route r : routes) {
            r.connect();
        }
    }

    // ------------------------------------------------------------------ producer API

    /**
     * Adds one record to the stream without blocking.
     *
     * @return false if the stream pushes back (its memory and journal budgets are full); nothing was taken
     * @throws IllegalArgumentException if the record is longer than a frame can carry
     * @throws IllegalStateException if the stream is closed
     */
    public boolean offer(int target, byte[] src, int offset, int length) {
        checkLength(length);
        claim(PRODUCER);
        try {
            if (!admit()) {
                return false;
            }
            long now = transport.nanoClock.getAsLong();
            prepare(length, now);
            builder.append(target, src, offset, length);
            afterAppend(length, now);
            return true;
        } finally {
            release();
        }
    }

    /** {@link #offer(int, byte[], int, int)} of a buffer's remaining bytes (consumed only if taken). */
    public boolean offer(int target, ByteBuffer src) {
        int length = src.remaining();
        checkLength(length);
        claim(PRODUCER);
        try {
            if (!admit()) {
                return false;
            }
            long now = transport.nanoClock.getAsLong();
            prepare(length, now);
            builder.append(target, src);
            afterAppend(length, now);
            return true;
        } finally {
            release();
        }
    }

    /**
     * Adds one record, waiting while the stream pushes back, at most {@code transport.send-timeout-ms}.
     *
     * @throws TimeoutException if the stream still pushes back after the timeout
     */
    public void send(int target, byte[] src, int offset, int length) throws TimeoutException, InterruptedException {
        if (offer(target, src, offset, length)) {
            return;
        }
        long deadline = transport.nanoClock.getAsLong() + settings.sendTimeoutNanos();
        while (true) {
            lock.lock();
            try {
                long left = deadline - transport.nanoClock.getAsLong();
                if (left <= 0) {
                    throw new TimeoutException("stream " + this + " pushed back for " + settings.sendTimeoutNanos() / 1_000_000
                            + " ms (transport.send-timeout-ms): receiver slow or unreachable; " + describeOutbox());
                }
                if (!accepting && !closed) {
                    changed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(10)));
                }
            } finally {
                lock.unlock();
            }
            if (offer(target, src, offset, length)) {
                return;
            }
        }
    }

    /** Whether an offer would be refused now (a non-blocking back-pressure signal). */
    public boolean isBackPressured() {
        return !accepting;
    }

    /** Seals the open batch now (reason EXPLICIT). Producer thread. */
    public void flush() {
        claim(PRODUCER);
        try {
            if (builder.isOpen() && builder.recordCount() > 0) {
                seal(FlushPolicy.Reason.EXPLICIT, transport.nanoClock.getAsLong());
            }
        } finally {
            release();
        }
    }

    // ------------------------------------------------------------------ claim holder

    private void claim(int role) {
        while (!claim.compareAndSet(FREE, role)) {
            Thread.onSpinWait(); // only the flusher can hold it, for one seal
        }
        if (closed) {
            claim.set(FREE);
            throw new IllegalStateException("stream " + this + " is closed");
        }
    }

    private void release() {
        claim.setRelease(FREE);
        if (flushRequested) {
            flushRequested = false;
            flushIfDue(transport.nanoClock.getAsLong());
        }
    }

    private void checkLength(int length) {
        if (length < 0 || length > maxRecordLength) {
            throw new IllegalArgumentException("record of " + length + " B; at most " + maxRecordLength
                    + " B fit in a frame of transport.max-frame-bytes = " + settings.maxFrameBytes());
        }
    }

    private boolean admit() {
        if (accepting) {
            return true;
        }
        metrics.onBackPressured();
        if (controller != null) {
            controller.onBackPressure(transport.nanoClock.getAsLong());
        }
        return false;
    }

    private void prepare(int length, long now) {
        builder.limit(frameLimit);
        if (builder.isOpen() && !builder.fits(length)) {
            seal(FlushPolicy.Reason.SIZE, now);
        }
        if (!builder.isOpen()) {
            int initial = (int) Math.min(settings.maxFrameBytes() + (long) LENGTH_FIELD,
                    Math.max(256, (long) policy.targetBytes() + BATCH_FRAME_OVERHEAD + RECORD_HEADER_LENGTH + length));
            builder.begin(transport.alloc.directBuffer(initial, settings.maxFrameBytes() + LENGTH_FIELD));
        }
        // One tag per measurement interval, at most one per frame; a record the tag would push out of
        // its frame goes untagged, and the next one carries it.
        if (qos != null && !builder.isTagged() && length <= maxRecordLength - TAG_RECORD && builder.fits(length + TAG_RECORD)
                && qos.tagDue(now)) {
            builder.appendTag(transport.epochClock.getAsLong());
        }
        if (controller != null) {
            controller.onEvent(length, now);
        }
    }

    private void afterAppend(int length, long now) {
        boolean first = builder.recordCount() == 1;
        if (policy.onRecord(RECORD_HEADER_LENGTH + length, now)) {
            seal(FlushPolicy.Reason.SIZE, now);
        } else if (first) {
            transport.flusher.wakeFor(policy.deadlineNanos());
        }
        if (controller != null && (++offers & (LOAD_SAMPLE_EVERY - 1)) == 0) {
            sampleProducerLoad(now);
        }
    }

    /**
     * Every {@value #LOAD_SAMPLE_EVERY}th record: how long its offer took (sealing included when it
     * sealed), scaled up, over the wall time of a {@value #LOAD_WINDOW_NANOS} ns window, is the share
     * of the producer's time spent in the transport — JetStream's CPU ratio, measured. The
     * controller treats a producer that the transport keeps busy like one it pushes back.
     */
    private void sampleProducerLoad(long enteredNanos) {
        long exit = transport.nanoClock.getAsLong();
        sampledBusyNanos += exit - enteredNanos;
        long span = exit - loadWindowStartNanos;
        if (span >= LOAD_WINDOW_NANOS) {
            if (loadWindowStartNanos != 0) {
                controller.onProducerLoad((double) sampledBusyNanos * LOAD_SAMPLE_EVERY / span, exit);
            }
            loadWindowStartNanos = exit;
            sampledBusyNanos = 0;
        }
    }

    /** Called by the deadline flusher: retries batches a full ring refused. */
    void retryIfRingFull() {
        if (ringFull) {
            lock.lock();
            try {
                ringFull = false;
                pump();
            } finally {
                lock.unlock();
            }
        }
    }

    /** A route attached to the receiver's ring: batches are sealed small enough to be ring records. */
    void onRingAttached(int maxRecordLength) {
        frameLimit = Math.min(frameLimit, maxRecordLength);
    }

    /** A route lost its connection: its ring goes too (the next WELCOME names it again). */
    void detachRing(Route route) {
        lock.lock();
        try {
            route.detachRing();
        } finally {
            lock.unlock();
        }
    }

    /** Batches written into the receiver's shared-memory ring instead of TCP, over all routes. */
    public long ringBatches() {
        lock.lock();
        try {
            long n = 0;
            for (Route r : routes) {
                n += r.ringBatches();
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Called by the deadline flusher: sends a link probe the controller has waiting for a quiet
     * link, and seals the open batch if its deadline has passed, or asks the producer to do it if
     * the producer holds the batch. Returns when to call again.
     */
    long flushIfDue(long now) {
        if (controller != null && now - probeCheckNanos >= 0 && claim.compareAndSet(FREE, FLUSHER)) {
            try {
                if (!closed) {
                    sendDueProbe(now);
                    planProbeCheck(now);
                }
            } finally {
                claim.setRelease(FREE);
            }
        }
        if (policy.isDue(now)) {
            if (claim.compareAndSet(FREE, FLUSHER)) {
                try {
                    if (!closed && builder.isOpen() && builder.recordCount() > 0 && policy.isDue(now)) {
                        seal(FlushPolicy.Reason.DEADLINE, now);
                    }
                } finally {
                    claim.setRelease(FREE);
                }
            } else {
                flushRequested = true;
            }
        }
        long deadline = policy.deadlineNanos();
        return controller != null && probeCheckNanos - deadline < 0 ? probeCheckNanos : deadline;
    }

    private void seal(FlushPolicy.Reason reason, long now) {
        drainProbeResults();
        int records = builder.recordCount();
        ByteBuf frame = builder.seal(++lastSequence, settings.checksum());
        if (qos != null && policy.pendingRecords() > 0) {
            qos.onBufferLifetime(now - policy.pendingSinceNanos());
        }
        policy.onFlush(reason);
        metrics.onSealed(records, frame.readableBytes());
        if (controller != null) {
            sendDueProbe(now); // before the frame: onto a link the controller expects quiet
        }
        enqueue(new OutboundBatch(lastSequence, frame, records, now));
        if (controller != null) {
            controller.onSent(controller.wireBytes(frame.readableBytes()), now);
            planProbeCheck(now);
        }
    }

    /**
     * Sends the link probe the controller asks for now, if any: it waits for a quiet link
     * ({@link BatchController#probeBytesDue}), which the deadline flusher catches between batches
     * ({@link #flushIfDue}). Claim holder.
     */
    private void sendDueProbe(long now) {
        long probe = controller.probeBytesDue(now);
        if (probe > 0) {
            sendProbe((int) Math.min(probe, settings.maxFrameBytes()), now);
        }
    }

    /** Tells the deadline flusher when to ask for a probe next. Claim holder. */
    private void planProbeCheck(long now) {
        long check = controller.probeCheckNanos(now);
        probeCheckNanos = check;
        if (check - now < DeadlineFlusher.MAX_SLEEP_MICROS * 1_000) {
            transport.flusher.wakeFor(check);
        }
    }

    private void drainProbeResults() {
        if (controller != null) {
            probeResults.read((type, buffer, index, length) ->
                    controller.onTransfer((long) controller.wireBytes(buffer.getLong(index)), buffer.getLong(index + 8) / 1e9), 16);
        }
    }

    private void sendProbe(int bytes, long now) {
        Route r = readyRoute();
        if (r != null) {
            metrics.onProbe();
            r.sendProbe(now, bytes);
        }
    }

    /** The receiver measured a tagged record's channel latency (I/O thread). */
    void onChannelLatency(long nanos) {
        if (qos != null) {
            qos.onChannelLatency(nanos);
        }
    }

    /**
     * The adaptive controller's decisions (batch size, routes, every estimated component) and the
     * latency constraint's (violations, resizes, output buffer size) about this stream, as named
     * gauges ({@link AdaptiveControlGauges#gauges()}) for an engine's metric system.
     */
    public AdaptiveControlGauges controlGauges() {
        return gauges;
    }

    /** The output buffer size the latency constraint allows this stream now, or empty without a constraint. */
    public java.util.OptionalInt outputBufferBytes() {
        return qos == null ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(policy.sizeCapBytes());
    }

    /** A route measured a probe's round trip (I/O thread). */
    void onProbeAck(long id, int bytes, UnsafeBuffer scratch) {
        long rtt = transport.nanoClock.getAsLong() - id;
        scratch.putLong(0, bytes);
        scratch.putLong(8, rtt);
        probeResults.write(PROBE_MSG, scratch, 0, 16); // dropped if the producer has not drained 4 KiB of results
    }

    // ------------------------------------------------------------------ outbox (lock)

    private void enqueue(OutboundBatch b) {
        lock.lock();
        try {
            lastEnqueuedSequence = b.sequence;
            if (closed) {
                b.frame.release();
                metrics.onDropped(b.records);
                return;
            }
            if (settings.reliability() == Reliability.BEST_EFFORT && !connected()) {
                b.frame.release();
                metrics.onDropped(b.records);
                return;
            }
            boolean spill = journal != null && (!journal.isEmpty() || memoryBytes + b.bytes > settings.memoryBytes());
            if (spill) {
                journal.append(b.frame);
                b.frame.release();
                metrics.onSpilled();
            } else {
                pending.put(b.sequence, b);
                memoryBytes += b.bytes;
            }
            pump();
        } finally {
            lock.unlock();
        }
    }

    /** Writes pending batches while the window and a ready route allow. Lock held. */
    private void pump() {
        while (true) {
            refillFromJournal();
            Map.Entry<Long, OutboundBatch> next = pending.firstEntry();
            if (next == null) {
                break;
            }
            OutboundBatch b = next.getValue();
            if (inFlightBytes > 0 && inFlightBytes + b.bytes > settings.windowBytes()) {
                break;
            }
            Route r = readyRoute();
            if (r == null) {
                break;
            }
            if (!r.write(b.frame.retainedDuplicate())) {
                ringFull = true; // the flusher retries; so does the next acknowledgement
                break;
            }
            pending.pollFirstEntry();
            b.route = r.index;
            b.sentNanos = transport.nanoClock.getAsLong();
            inFlight.put(b.sequence, b);
            inFlightBytes += b.bytes;
            metrics.onSent(b.sentBefore);
            b.sentBefore = true;
        }
        updateAccepting();
    }

    private void refillFromJournal() {
        while (journal != null && pending.isEmpty() && !journal.isEmpty() && memoryBytes < settings.memoryBytes()) {
            ByteBuf f = journal.poll(transport.alloc);
            int body = LENGTH_FIELD + TYPE_FIELD;
            OutboundBatch b = new OutboundBatch(f.getLong(body + BATCH_SEQUENCE_OFFSET), f,
                    f.getInt(body + BATCH_COUNT_OFFSET), transport.nanoClock.getAsLong());
            if (b.sequence <= acknowledged) {
                f.release();
                continue;
            }
            pending.put(b.sequence, b);
            memoryBytes += b.bytes;
        }
    }

    /**
     * The outbox bound. In adaptive mode, while connected and once the drain rate under backlog is
     * known, it is what the link drains within the user's maximum event delay (at least
     * {@value #MIN_ADAPTIVE_OUTBOX} bytes and two batches per route in use, per route; at most
     * {@code transport.memory-bytes}): under overload the
     * producer is pushed back instead of queueing seconds of data. Lock held.
     */
    private long outboxLimit() {
        long configured = settings.memoryBytes();
        if (controller == null || Double.isNaN(capacityBytesPerSecond) || !isReady()) {
            return configured;
        }
        double drainable = capacityBytesPerSecond * settings.batch().maxEventDelayNanos() / 1e9;
        // Per route in use, room for two batches and at least MIN_ADAPTIVE_OUTBOX: every route has
        // its next batch while it sends one and stays busy enough that TCP keeps its window open.
        // Otherwise a bound learnt while one route was busy keeps the others idle, and the drain
        // measured under it confirms it (measured: 4 routes stuck at one link's throughput).
        long floor = Math.max(1, routesInUse()) * Math.max(MIN_ADAPTIVE_OUTBOX, 2L * (policy.targetBytes() + BATCH_FRAME_OVERHEAD));
        return (long) Math.min(configured, Math.max(floor, drainable));
    }

    /**
     * Samples the drain rate from acknowledged bytes over spans of at least
     * {@value #DRAIN_SAMPLE_NANOS} ns with a backlog: batches waiting to be written, half the window
     * or half the outbox in use, or acknowledgements overdue (below). Lock held.
     */
    private void measureDrain(long ackedBytes, long now) {
        boolean backlog = !pending.isEmpty() || inFlightBytes >= settings.windowBytes() / 2
                || memoryBytes >= outboxLimitBytes / 2 || acknowledgementsOverdue(now);
        if (!backlog) {
            backlogStartNanos = now;
            backlogAckedBytes = 0;
            return;
        }
        backlogAckedBytes += ackedBytes;
        long span = now - backlogStartNanos;
        if (span >= DRAIN_SAMPLE_NANOS) {
            double sample = backlogAckedBytes * 1e9 / span;
            if (controller != null) {
                // Under backlog the acknowledged bytes are the routes' service: the link as it is now,
                // which probes sent into an idle token bucket's burst overstate. Per route in use.
                drainScratch.putLong(0, backlogAckedBytes / Math.max(1, routesInUse()));
                drainScratch.putLong(8, span);
                probeResults.write(PROBE_MSG, drainScratch, 0, 16);
            }
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
     * acknowledgements late by the propagation delay alone) from reading as a backlog. Lock held.
     */
    private boolean acknowledgementsOverdue(long now) {
        if (inFlight.isEmpty() || !ackRoundTrip.known()) {
            return false;
        }
        long allowed = Math.max(settings.batch().maxEventDelayNanos(), 4 * ackRoundTrip.nanos());
        return now - inFlight.get(inFlight.firstKey()).sentNanos > allowed;
    }

    private void updateAccepting() {
        long limit = outboxLimit();
        outboxLimitBytes = limit;
        boolean room = memoryBytes < limit
                || limit == settings.memoryBytes() && journal != null && journal.hasRoomFor(settings.maxFrameBytes() + LENGTH_FIELD);
        if (room != accepting) {
            accepting = room;
        }
        changed.signalAll();
    }

    /** Ready routes among those the oracle chose. Lock held. */
    private int routesInUse() {
        int active = controller != null && controller.lastDecision() != null
                ? Math.max(1, Math.min(routes.length, controller.lastDecision().routes()))
                : routes.length;
        int n = 0;
        for (int i = 0; i < active; i++) {
            if (routes[i].isReady()) {
                n++;
            }
        }
        return n;
    }

    /** Round-robin over the ready routes among the first {@code routes} the oracle chose. Lock held. */
    private Route readyRoute() {
        int active = controller != null && controller.lastDecision() != null
                ? Math.max(1, Math.min(routes.length, controller.lastDecision().routes()))
                : routes.length;
        for (int pass = 0; pass < 2; pass++) {
            int limit = pass == 0 ? active : routes.length;
            for (int i = 0; i < limit; i++) {
                Route r = routes[(nextRoute + i) % limit];
                if (r.isReady()) {
                    nextRoute = (r.index + 1) % limit;
                    return r;
                }
            }
        }
        return null;
    }

    /** Cumulative acknowledgement: everything up to {@code sequence} was delivered. I/O thread. */
    void onAck(long sequence) {
        lock.lock();
        try {
            acknowledge(sequence);
            pump();
        } finally {
            lock.unlock();
        }
    }

    private void acknowledge(long sequence) {
        if (sequence <= acknowledged) {
            return;
        }
        acknowledged = sequence;
        long now = transport.nanoClock.getAsLong();
        long ackedBytes = 0;
        for (Iterator<OutboundBatch> it = inFlight.headMap(sequence, true).values().iterator(); it.hasNext(); ) {
            OutboundBatch b = it.next();
            it.remove();
            inFlightBytes -= b.bytes;
            memoryBytes -= b.bytes;
            ackedBytes += b.bytes;
            metrics.onAcknowledged(now - b.sealedNanos);
            ackRoundTrip.onAcknowledged(b.sentNanos, now);
            b.frame.release();
        }
        measureDrain(ackedBytes, now);
        for (Iterator<OutboundBatch> it = pending.headMap(sequence, true).values().iterator(); it.hasNext(); ) {
            OutboundBatch b = it.next();
            it.remove();
            memoryBytes -= b.bytes;
            b.frame.release();
        }
    }

    /**
     * A route sends HELLO: returns the lowest sequence this sender may still send (the receiver
     * skips any gap before it). Until the route is ready or lost, best-effort batches are held rather
     * than dropped, so that nothing announced here goes missing later.
     */
    long beginHandshake(Route route) {
        lock.lock();
        try {
            route.handshaking = true;
            // Not lastSequence: a batch sealed but not yet enqueued would be announced as gone.
            long first = lastEnqueuedSequence + 1;
            if (!inFlight.isEmpty()) {
                first = Math.min(first, inFlight.firstKey());
            }
            if (!pending.isEmpty()) {
                first = Math.min(first, pending.firstKey());
            }
            return Math.max(first, acknowledged + 1);
        } finally {
            lock.unlock();
        }
    }

    /** A route finished its handshake; the receiver has delivered everything up to {@code lastDelivered}. */
    void onRouteReady(Route route, long lastDelivered) {
        lock.lock();
        try {
            route.handshaking = false;
            acknowledge(lastDelivered);
            ackRoundTrip.reset(); // the batches just acknowledged waited out the reconnection, and the path may be new
            pump();
        } finally {
            lock.unlock();
        }
    }

    /**
     * A route was lost: what it carried unconfirmed goes back to the outbox (resent on another route
     * or after reconnecting); with best-effort delivery and no route left, everything held is dropped.
     */
    void onRouteLost(Route route) {
        lock.lock();
        try {
            route.handshaking = false;
            for (Iterator<OutboundBatch> it = inFlight.values().iterator(); it.hasNext(); ) {
                OutboundBatch b = it.next();
                if (b.route == route.index) {
                    it.remove();
                    inFlightBytes -= b.bytes;
                    b.route = -1;
                    pending.put(b.sequence, b);
                }
            }
            if (settings.reliability() == Reliability.BEST_EFFORT && !connected()) {
                dropAll("route " + route.index + " lost, no route left (best-effort)");
            }
            pump();
        } finally {
            lock.unlock();
        }
    }

    /** Whether a route is ready or in the middle of a handshake. Lock held. */
    private boolean connected() {
        for (Route r : routes) {
            if (r.isReady() || r.handshaking) {
                return true;
            }
        }
        return false;
    }

    private void dropAll(String why) {
        int records = 0;
        int batches = 0;
        for (TreeMap<Long, OutboundBatch> m : java.util.List.of(inFlight, pending)) {
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
            LOG.warn("Stream {}: dropped {} unconfirmed batches ({} records): {}", this, batches, records, why);
        }
    }

    private String describeOutbox() {
        return pending.size() + " batches pending, " + inFlight.size() + " in flight (" + inFlightBytes + " B), "
                + (journal == null ? "no journal" : journal.frames() + " spilled") + ", routes ready "
                + java.util.Arrays.stream(routes).filter(Route::isReady).count() + "/" + routes.length;
    }

    // ------------------------------------------------------------------ state, close

    /** Whether any route is connected and past its handshake. */
    public boolean isReady() {
        for (Route r : routes) {
            if (r.isReady()) {
                return true;
            }
        }
        return false;
    }

    /** Whether the receiver's handshake showed the same host token as ours (a ring could carry the data). */
    public boolean peerOnSameHost() {
        for (Route r : routes) {
            if (r.isReady() && r.sameHost) {
                return true;
            }
        }
        return false;
    }

    public SenderMetrics metrics() {
        return metrics;
    }

    public FlushPolicy flushPolicy() {
        return policy;
    }

    /** The adaptive controller, or null in fixed mode. */
    public BatchController controller() {
        return controller;
    }

    private long underLock(java.util.function.LongSupplier read) {
        lock.lock();
        try {
            return read.getAsLong();
        } finally {
            lock.unlock();
        }
    }

    /** Current bound of the outbox (see {@code transport.memory-bytes}; adaptive mode narrows it under overload). */
    public long outboxLimitBytes() {
        return outboxLimitBytes;
    }

    /** Bytes sealed and not yet acknowledged, in memory. */
    public long outboxBytes() {
        return underLock(() -> memoryBytes);
    }

    /** Bytes sent and not yet acknowledged. */
    public long inFlightBytes() {
        return underLock(() -> inFlightBytes);
    }

    /** Batches sealed and not yet acknowledged (memory and journal). */
    public long unacknowledgedBatches() {
        return underLock(() -> pending.size() + inFlight.size() + (journal == null ? 0 : journal.frames()));
    }

    boolean isClosing() {
        return closed || closing;
    }

    /**
     * Seals the open batch, waits up to {@code transport.close-timeout-ms} for everything to be
     * acknowledged, then closes the routes; what is left is counted as dropped and logged.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        flushQuietly();
        lock.lock();
        try {
            closing = true;
            long deadline = transport.nanoClock.getAsLong() + settings.closeTimeoutNanos();
            while (!(pending.isEmpty() && inFlight.isEmpty() && (journal == null || journal.isEmpty()))) {
                long left = deadline - transport.nanoClock.getAsLong();
                if (left <= 0) {
                    break;
                }
                changed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
            }
            closed = true;
            long spilled = journal == null ? 0 : journal.frames();
            dropAll("closed after transport.close-timeout-ms with unacknowledged batches");
            if (journal != null) {
                if (spilled > 0) {
                    LOG.warn("Stream {}: {} spilled batches were never sent before close", this, spilled);
                }
                journal.close();
            }
            changed.signalAll();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
            dropAll("interrupted while closing");
        } finally {
            lock.unlock();
        }
        while (!claim.compareAndSet(FREE, FLUSHER)) {
            Thread.onSpinWait();
        }
        builder.discard();
        claim.set(FREE);
        transport.flusher.unregister(this);
        if (qos != null) {
            transport.qos.unregister(toString());
        }
        for (Route r : routes) {
            r.close();
        }
        transport.forget(this);
        LOG.info("Stream {} closed: {}", this, metrics);
    }

    private void flushQuietly() {
        if (claim.compareAndSet(FREE, PRODUCER)) {
            try {
                if (builder.isOpen() && builder.recordCount() > 0) {
                    seal(FlushPolicy.Reason.EXPLICIT, transport.nanoClock.getAsLong());
                }
            } finally {
                claim.setRelease(FREE);
            }
        }
    }

    private static String safe(String s) {
        return s.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    @Override
    public String toString() {
        return transport.peerId + "/" + streamId + "->" + (remotes.size() == 1 ? remotes.get(0) : remotes);
    }
}
