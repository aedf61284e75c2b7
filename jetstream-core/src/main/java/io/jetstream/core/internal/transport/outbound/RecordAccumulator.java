package io.jetstream.core.internal.transport.outbound;

import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.BATCH_FRAME_OVERHEAD;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.LENGTH_FIELD;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.RECORD_HEADER_LENGTH;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.maxRecordLength;

import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.SenderMetrics;
import io.jetstream.core.internal.metrics.SenderCounters;
import io.jetstream.core.internal.qos.ChannelMeasurements;
import io.jetstream.core.internal.transport.protocol.BatchFrameBuilder;
import io.jetstream.core.model.BatchController;
import io.jetstream.core.model.FlushPolicy;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The record side of a stream: copies each offered record straight into the open BATCH frame and
 * seals the frame when the {@link FlushPolicy} says so — at its size target, at the end of a send
 * when waiting would leave the link idle, or when the deadline flusher finds its oldest record has
 * waited the maximum delay — and hands the sealed frame to the {@link Outbox}, which numbers it. It
 * feeds JetStream's {@link BatchController} the events it frames; its collaborators do the rest:
 * the {@link ProducerLoadSampler} measures the producer's load, the {@link LinkProber} sends the
 * controller's link probes and hands it the transfer times I/O threads measure, and under a latency
 * constraint the {@link QosTagger} puts Nephele's tags on records and reports buffer lifetimes.
 *
 * <p>A record costs one CAS and one release store (the claim), a volatile read (the outbox's
 * acceptance) and its copy: no lock, no allocation, no clock read. The clock is read where a record
 * opens or fills a batch, and on one offer in {@value ProducerLoadSampler#SAMPLE_EVERY} (the load
 * sample, adaptive mode); the controller is fed the events in between at those readings (or at the
 * end of each send, for a producer that ends its sends).
 *
 * <p>Threading contract: {@link #offer}, {@link #endOfSend} and {@link #flush} are for one producer
 * thread at a time. The open frame belongs to whoever holds the claim word — the producer for the
 * length of one call, or the deadline flusher ({@link #flushIfDue}), which takes it only when it is
 * free and otherwise asks the producer to flush on its way out. {@link #onProbeAck} and
 * {@link #onDrainSample} come from I/O threads through the prober's many-to-one ring, drained by
 * the claim holder; {@link #fail} from any thread.
 */
public final class RecordAccumulator implements Outbox.DrainListener, StreamFailure {
    private static final Logger LOG = LoggerFactory.getLogger(RecordAccumulator.class);
    private static final int FREE = 0;
    private static final int PRODUCER = 1;
    private static final int FLUSHER = 2;

    private static final int OPEN = 0;
    private static final int CLOSED = 1;
    private static final int FAILED = 2;

    private static final long NOT_READ = Long.MIN_VALUE;

    private final int maxFrameBytes;
    private final int maxRecordLength;
    private final boolean checksum;
    private final ByteBufAllocator alloc;
    private final LongSupplier nanoClock;
    private final FlushPolicy policy;
    /** Null in fixed batch mode. */
    private final BatchController controller;
    /** Null in fixed batch mode. */
    private final ProducerLoadSampler load;
    /** Null in fixed batch mode. */
    private final LinkProber prober;
    /** Null without a latency constraint. */
    private final QosTagger qos;
    private final SenderCounters metrics;
    private final Outbox outbox;
    /** Tells the deadline flusher when the open batch is due (wakes it if it sleeps past that). */
    private final LongConsumer wakeFlusherAt;

    // Claim-holder fields (producer or flusher, one at a time).
    private final AtomicInteger claim = new AtomicInteger(FREE);
    private volatile boolean flushRequested;
    private final BatchFrameBuilder builder;
    /** Bytes of the last sealed frame: the next frame's first allocation is sized from it, not from the target. */
    private int lastFrameBytes;
    /**
     * The producer ends its sends ({@link #endOfSend}, adaptive mode). Then the records of one send
     * stay together: the size target is checked at the end of the send, not at every record (they
     * all arrived at once, so splitting them gains no latency and multiplies the per-batch work of
     * both ends; measured in a Storm worker whose transfer thread hands over ~40 tuples per send:
     * 4–8 batches per send), and only a full frame seals mid-send. The flusher is told of an open
     * batch's deadline when a send leaves it open, not at its first record.
     */
    private boolean producerEndsSends;
    /**
     * Records and bytes not yet fed to the controller: a producer that ends its
     * sends hands its records over in bursts (a Storm worker's transfer thread: a few dozen tuples in
     * microseconds, then a gap), and fed one by one the controller's monitor saw each burst as a step
     * up in the rate and the gap after it as a step down, and searched for a new decision every few
     * milliseconds per stream (profiled in a Storm cluster at 50,000 tuples/s: the oracle's search a
     * fifth of the transfer thread's CPU). Fed per send, it sees the rate the sends make. Before the
     * producer's first end of a send, they are fed where an offer reads the clock anyway.
     */
    private int sendEvents;
    private long sendBytes;
    /** This offer's clock reading ({@link #now}), {@link #NOT_READ} until read. Producer thread. */
    private long offerClock = NOT_READ;

    /** Largest frame to build, length field included: the ring's record limit while a ring route carries data. */
    private volatile int frameLimit;
    private volatile int state = OPEN;
    private volatile Throwable failure;

    public RecordAccumulator(int maxFrameBytes, boolean checksum, ByteBufAllocator alloc, LongSupplier nanoClock,
            LongSupplier epochClock, FlushPolicy policy, BatchController controller, ChannelMeasurements qos,
            SenderCounters metrics, Outbox outbox, LongConsumer wakeFlusherAt) {
        this.maxFrameBytes = maxFrameBytes;
        this.maxRecordLength = maxRecordLength(maxFrameBytes);
        this.checksum = checksum;
        this.alloc = alloc;
        this.nanoClock = nanoClock;
        this.policy = policy;
        this.controller = controller;
        this.load = controller == null ? null : new ProducerLoadSampler(controller, nanoClock);
        this.prober = controller == null ? null : new LinkProber(controller, outbox, metrics, maxFrameBytes, nanoClock, wakeFlusherAt);
        this.qos = qos == null ? null : new QosTagger(qos, epochClock, maxRecordLength);
        this.metrics = metrics;
        this.outbox = outbox;
        this.wakeFlusherAt = wakeFlusherAt;
        this.builder = new BatchFrameBuilder(maxFrameBytes);
        this.frameLimit = maxFrameBytes + LENGTH_FIELD;
    }

    // ------------------------------------------------------------------ producer

    /** See {@link OutboundStream#offer(int, byte[], int, int)}. Producer thread. */
    public int offer(int target, byte[] src, int offset, int length) {
        checkLength(length);
        int claimed = claim(PRODUCER);
        if (claimed != OutboundStream.ACCEPTED) {
            return claimed;
        }
        boolean appended = false;
        try {
            int admitted = admit();
            if (admitted != OutboundStream.ACCEPTED) {
                return admitted;
            }
            startOffer();
            prepare(length);
            builder.append(target, src, offset, length);
            appended = true;
            afterAppend(length);
            return OutboundStream.ACCEPTED;
        } catch (RuntimeException e) {
            fail(e, "while a record was offered");
            return appended ? OutboundStream.ACCEPTED : OutboundStream.FAILED;
        } finally {
            release();
        }
    }

    /** See {@link OutboundStream#offer(int, ByteBuffer)}. Producer thread. */
    public int offer(int target, ByteBuffer src) {
        int length = src.remaining();
        checkLength(length);
        int claimed = claim(PRODUCER);
        if (claimed != OutboundStream.ACCEPTED) {
            return claimed;
        }
        boolean appended = false;
        try {
            int admitted = admit();
            if (admitted != OutboundStream.ACCEPTED) {
                return admitted;
            }
            startOffer();
            prepare(length);
            builder.append(target, src);
            appended = true;
            afterAppend(length);
            return OutboundStream.ACCEPTED;
        } catch (RuntimeException e) {
            fail(e, "while a record was offered");
            return appended ? OutboundStream.ACCEPTED : OutboundStream.FAILED;
        } finally {
            release();
        }
    }

    /**
     * The producer has nothing more for now. In adaptive mode the open batch leaves if this send
     * brought it to the size target, or at once when the link is idle: observed ({@link Outbox#writesAtOnce}: nothing waits to be written) or as
     * the controller's model of the link predicts ({@link BatchController#linkIdle}). Holding it
     * then would make its records wait while the link has nothing to do, which a stock transport
     * that flushes at the end of every send never does. While the link is busy the batch keeps
     * filling. In fixed mode the size target and the deadline alone decide. Producer thread.
     */
    public void endOfSend() {
        if (controller == null || claim(PRODUCER) != OutboundStream.ACCEPTED) {
            return;
        }
        try {
            long now = nanoClock.getAsLong();
            producerEndsSends = true;
            if (sendEvents > 0) {
                feedController(now);
            }
            if (builder.isOpen() && builder.recordCount() > 0) {
                if (policy.pendingBytes() >= policy.targetBytes()) {
                    seal(FlushPolicy.Reason.SIZE, now);
                } else {
                    SenderMetrics.HeldBy held = outbox.whyNotAtOnce();
                    if (held == null || controller.linkIdle(now)) {
                        seal(FlushPolicy.Reason.END_OF_SEND, now);
                    } else {
                        metrics.onHeld(held);
                        wakeFlusherAt.accept(policy.deadlineNanos());
                    }
                }
            }
        } catch (RuntimeException e) {
            fail(e, "at the end of a send");
        } finally {
            release();
        }
    }

    /** Seals the open batch now (reason EXPLICIT). Producer thread. */
    public int flush() {
        int claimed = claim(PRODUCER);
        if (claimed != OutboundStream.ACCEPTED) {
            return claimed;
        }
        try {
            if (builder.isOpen() && builder.recordCount() > 0) {
                seal(FlushPolicy.Reason.EXPLICIT, nanoClock.getAsLong());
            }
            return OutboundStream.ACCEPTED;
        } catch (RuntimeException e) {
            fail(e, "while it flushed");
            return OutboundStream.FAILED;
        } finally {
            release();
        }
    }

    private int claim(int role) {
        while (!claim.compareAndSet(FREE, role)) {
            Thread.onSpinWait(); // only the flusher can hold it, for one seal
        }
        int s = state;
        if (s != OPEN) {
            claim.setRelease(FREE);
            return s == CLOSED ? OutboundStream.CLOSED : OutboundStream.FAILED;
        }
        return OutboundStream.ACCEPTED;
    }

    private void release() {
        claim.setRelease(FREE);
        if (flushRequested && state == OPEN) {
            flushRequested = false;
            flushIfDue(nanoClock.getAsLong());
        }
    }

    private void checkLength(int length) {
        if (length < 0 || length > maxRecordLength) {
            throw new IllegalArgumentException("record of " + length + " B; at most " + maxRecordLength
                    + " B fit in a frame of transport.max-frame-bytes = " + maxFrameBytes);
        }
    }

    private int admit() {
        int acceptance = outbox.acceptance();
        if (acceptance == OutboundStream.ACCEPTED) {
            return acceptance;
        }
        if (acceptance == OutboundStream.BACK_PRESSURED) {
            outbox.releaseDelivered(); // what a ring delivered is freed by looking: that may make room
            acceptance = outbox.acceptance();
            if (acceptance == OutboundStream.ACCEPTED) {
                return acceptance;
            }
        }
        if (acceptance == OutboundStream.NOT_CONNECTED) {
            metrics.onRecordRefused();
        } else {
            metrics.onBackPressured();
            if (controller != null) {
                controller.onBackPressure(nanoClock.getAsLong());
            }
        }
        return acceptance;
    }

    /**
     * An offer begins: the clock is read lazily, at most once per offer, where a record opens or
     * fills a batch, or when the offer is sampled for the producer's load; in the middle of a batch a
     * record reads no clock at all.
     */
    private void startOffer() {
        offerClock = load != null && load.timesNextOffer() ? nanoClock.getAsLong() : NOT_READ;
    }

    /** This offer's clock reading, read now if not yet. Producer thread. */
    private long now() {
        long t = offerClock;
        if (t == NOT_READ) {
            t = nanoClock.getAsLong();
            offerClock = t;
        }
        return t;
    }

    private void prepare(int length) {
        builder.limit(frameLimit);
        if (builder.isOpen() && !builder.fits(length)) {
            seal(FlushPolicy.Reason.SIZE, now());
        }
        if (!builder.isOpen()) {
            // Sized for the batch this stream is making now (the last one, with room to grow), never
            // beyond the target: a frame grows on demand, and allocating the target for batches a
            // send() seals after a few records costs more than the records.
            // Twice the last: sends vary in size, and a frame that outgrows its buffer is copied into a
            // larger one (profiled in a Storm worker: the reallocations a twentieth of the transfer thread).
            long expected = Math.min(policy.targetBytes(), 2L * lastFrameBytes);
            int initial = (int) Math.min(maxFrameBytes + (long) LENGTH_FIELD,
                    Math.max(256, expected + BATCH_FRAME_OVERHEAD + RECORD_HEADER_LENGTH + length));
            builder.begin(alloc.directBuffer(initial, maxFrameBytes + LENGTH_FIELD));
            if (qos != null) {
                qos.onFrameOpened(now()); // the policy reads the time of a batch's first record anyway
            }
        }
        if (qos != null) {
            qos.tagBefore(builder, length);
        }
        if (controller != null) {
            sendEvents++;
            sendBytes += length;
        }
    }

    /** Feeds the controller the events framed since it was last fed. */
    private void feedController(long now) {
        controller.onEvents(sendEvents, sendBytes, now);
        sendEvents = 0;
        sendBytes = 0;
    }

    private void afterAppend(int length) {
        boolean first = builder.recordCount() == 1;
        // The policy reads the time only of the record that opens its batch.
        long t = policy.pendingRecords() == 0 ? now() : offerClock;
        if (controller != null && !producerEndsSends && t != NOT_READ) {
            feedController(t); // where the clock was read anyway: a batch opened or filled, a load sample
        }
        if (policy.onRecord(RECORD_HEADER_LENGTH + length, t) && !producerEndsSends) {
            seal(FlushPolicy.Reason.SIZE, now());
        } else if (first && !producerEndsSends) {
            wakeFlusherAt.accept(policy.deadlineNanos());
        }
        if (load != null) {
            load.onOfferEnd(offerClock);
        }
    }

    // ------------------------------------------------------------------ claim holder

    private void seal(FlushPolicy.Reason reason, long now) {
        if (prober != null) {
            prober.drainTransfers();
        }
        int records = builder.recordCount();
        ByteBuf frame = builder.seal(0, checksum); // the outbox numbers it
        long lifetime = -1;
        if (policy.pendingRecords() > 0) {
            lifetime = now - policy.pendingSinceNanos();
            metrics.onBatchWait(lifetime);
        }
        if (qos != null) {
            qos.onSealed(records, lifetime);
        }
        policy.onFlush(reason);
        metrics.onSealed(records, frame.readableBytes(), reason);
        if (prober != null) {
            prober.sendDue(now); // before the frame: onto a link the controller expects quiet
        }
        int bytes = frame.readableBytes();
        lastFrameBytes = bytes;
        outbox.enqueue(frame, records, now);
        if (controller != null) {
            controller.onSent(controller.wireBytes(bytes), now);
            prober.planCheck(now);
        }
    }

    /**
     * Called by the deadline flusher: sends a link probe the controller has waiting for a quiet
     * link, and seals the open batch if its deadline has passed, or asks the producer to do it if
     * the producer holds the batch. Returns when to call again.
     */
    public long flushIfDue(long now) {
        if (prober != null && now - prober.checkNanos() >= 0 && claim.compareAndSet(FREE, FLUSHER)) {
            try {
                if (state == OPEN) {
                    prober.sendDue(now);
                    prober.planCheck(now);
                }
            } finally {
                claim.setRelease(FREE);
            }
        }
        if (policy.isDue(now)) {
            if (claim.compareAndSet(FREE, FLUSHER)) {
                try {
                    if (state == OPEN && builder.isOpen() && builder.recordCount() > 0 && policy.isDue(now)) {
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
        if (prober == null) {
            return deadline;
        }
        long probeCheck = prober.checkNanos();
        return probeCheck - deadline < 0 ? probeCheck : deadline;
    }

    // ------------------------------------------------------------------ measurements from I/O threads

    /** A route measured a probe's round trip: {@code id} is when it left. I/O thread; {@code scratch} is the route's. */
    public void onProbeAck(long id, int bytes, UnsafeBuffer scratch) {
        if (prober != null) {
            prober.onProbeAck(id, bytes, scratch);
        }
    }

    /** The outbox measured its drain under backlog. Outbox lock held. */
    @Override
    public void onDrainSample(long bytesPerRoute, long spanNanos) {
        if (prober != null) {
            prober.onDrainSample(bytesPerRoute, spanNanos);
        }
    }

    /** The channel latency of a tagged record, measured by the receiver (I/O thread). */
    public void onChannelLatency(long nanos) {
        if (qos != null) {
            qos.onChannelLatency(nanos);
        }
    }

    // ------------------------------------------------------------------ state

    /** Seals batches no larger than {@code bytes} (length field included): a ring route's record limit. */
    public void limitFrames(int bytes) {
        frameLimit = Math.min(maxFrameBytes + LENGTH_FIELD, bytes);
    }

    /** Lifts {@link #limitFrames}: no ring route carries data any more. */
    public void unlimitFrames() {
        frameLimit = maxFrameBytes + LENGTH_FIELD;
    }

    /**
     * The stream failed: offers return {@link OutboundStream#FAILED} from now on; what was sealed
     * stays with the outbox. The first cause stays, and is logged once, at ERROR, naming the stream
     * and its receiver and where it failed ({@code where}, "while ..."): also after {@link #close}
     * (the outbox may fail while it drains what was sealed). Later causes are logged at DEBUG. Any
     * thread.
     */
    @Override
    public void fail(Throwable cause, String where) {
        boolean open;
        synchronized (this) {
            if (failure != null) {
                LOG.debug("Stream {}: a later failure {} ({}) after the first", outbox.name(), where, cause.toString());
                return;
            }
            failure = cause;
            open = state == OPEN;
            if (open) {
                state = FAILED;
            }
        }
        LOG.error("Stream {} failed {}: {}; {}", outbox.name(), where, cause.toString(),
                open ? "it takes no more records (what it sealed is still delivered)" : "it was closing", cause);
    }

    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    public boolean isOpen() {
        return state == OPEN;
    }

    /**
     * Seals what is pending (unless the stream failed), then refuses every later offer with
     * {@link OutboundStream#CLOSED}. Waits for a producer inside an offer to leave. Any thread.
     */
    public void close() {
        while (!claim.compareAndSet(FREE, FLUSHER)) {
            Thread.onSpinWait();
        }
        try {
            if (state == OPEN && builder.isOpen() && builder.recordCount() > 0) {
                try {
                    seal(FlushPolicy.Reason.EXPLICIT, nanoClock.getAsLong());
                } catch (RuntimeException e) {
                    fail(e, "while it sealed its last batch at close");
                }
            }
            if (builder.isOpen() && builder.recordCount() > 0) {
                metrics.onDropped(builder.recordCount()); // the stream failed before they could be sealed
            }
            builder.discard();
            synchronized (this) {
                if (state == OPEN) {
                    state = CLOSED;
                }
            }
        } finally {
            claim.setRelease(FREE);
        }
    }

    public FlushPolicy policy() {
        return policy;
    }

    public BatchController controller() {
        return controller;
    }
}
