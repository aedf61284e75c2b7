package io.jetstream.core.internal.transport.outbound;

import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.BATCH_FRAME_OVERHEAD;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.LENGTH_FIELD;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.RECORD_HEADER_LENGTH;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.TAG_LENGTH;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.maxRecordLength;

import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.SenderMetrics;
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
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The record side of a stream: copies each offered record straight into the open BATCH frame and
 * seals the frame when the {@link FlushPolicy} says so — at its size target, at the end of a send
 * when waiting would leave the link idle, or when the deadline flusher finds its oldest record has
 * waited the maximum delay — and hands the sealed frame to the {@link Outbox}, which numbers it. It
 * also feeds JetStream's {@link BatchController} (every event, link probes, the producer's load),
 * and, under a latency constraint, puts Nephele's tags on records and reports buffer lifetimes.
 *
 * <p>Threading contract: {@link #offer}, {@link #endOfSend} and {@link #flush} are for one producer
 * thread at a time. The open frame belongs to whoever holds the claim word — the producer for the
 * length of one call, or the deadline flusher ({@link #flushIfDue}), which takes it only when it is
 * free and otherwise asks the producer to flush on its way out: one CAS and one release store per
 * record, no lock, no allocation. {@link #onProbeAck} and {@link #onDrainSample} come from I/O
 * threads through a many-to-one ring drained by the claim holder.
 */
public final class RecordAccumulator implements Outbox.DrainListener, StreamFailure {
    private static final Logger LOG = LoggerFactory.getLogger(RecordAccumulator.class);
    private static final int FREE = 0;
    private static final int PRODUCER = 1;
    private static final int FLUSHER = 2;

    private static final int OPEN = 0;
    private static final int CLOSED = 1;
    private static final int FAILED = 2;

    private static final int TRANSFER_MSG = 1;
    /** One record in this many times its stay in {@link #offer} (the producer's load; a power of two). */
    private static final int LOAD_SAMPLE_EVERY = 64;
    private static final long NOT_READ = Long.MIN_VALUE;
    private static final long LOAD_WINDOW_NANOS = 50_000_000;
    /** Frame bytes of a QoS tag record. */
    private static final int TAG_RECORD = RECORD_HEADER_LENGTH + TAG_LENGTH;

    private final int maxFrameBytes;
    private final int maxRecordLength;
    private final boolean checksum;
    private final ByteBufAllocator alloc;
    private final LongSupplier nanoClock;
    private final LongSupplier epochClock;
    private final FlushPolicy policy;
    /** Null in fixed batch mode. */
    private final BatchController controller;
    /** This stream's measurements for the latency constraint; null without one. */
    private final ChannelMeasurements qos;
    private final SenderMetrics metrics;
    private final Outbox outbox;
    /** Tells the deadline flusher when the open batch is due (wakes it if it sleeps past that). */
    private final LongConsumer wakeFlusherAt;

    // Claim-holder fields (producer or flusher, one at a time).
    private final AtomicInteger claim = new AtomicInteger(FREE);
    private volatile boolean flushRequested;
    private final BatchFrameBuilder builder;
    /** When the controller may next want a link probe sent ({@link BatchController#probeCheckNanos}); for the flusher. */
    private volatile long probeCheckNanos = Long.MAX_VALUE; // none before the first batch
    private long offers;
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
     * Records and bytes of the current send, for the controller at its end: a producer that ends its
     * sends hands its records over in bursts (a Storm worker's transfer thread: a few dozen tuples in
     * microseconds, then a gap), and fed one by one the controller's monitor saw each burst as a step
     * up in the rate and the gap after it as a step down, and searched for a new decision every few
     * milliseconds per stream (profiled in a Storm cluster at 50,000 tuples/s: the oracle's search a
     * fifth of the transfer thread's CPU). Fed per send, it sees the rate the sends make.
     */
    private int sendEvents;
    private long sendBytes;
    private long sampledBusyNanos;
    /** This offer's clock reading ({@link #now}), {@link #NOT_READ} until read. Producer thread. */
    private long offerClock = NOT_READ;
    private long loadWindowStartNanos;

    /** Transfer times measured by I/O threads (probe answers, drain samples), drained by the claim holder. */
    private final ManyToOneRingBuffer transfers =
            new ManyToOneRingBuffer(new UnsafeBuffer(ByteBuffer.allocateDirect(4096 + RingBufferDescriptor.TRAILER_LENGTH)));
    private final UnsafeBuffer drainScratch = new UnsafeBuffer(new byte[16]);

    /** Largest frame to build, length field included: the ring's record limit while a ring route carries data. */
    private volatile int frameLimit;
    private volatile int state = OPEN;
    private volatile Throwable failure;

    public RecordAccumulator(int maxFrameBytes, boolean checksum, ByteBufAllocator alloc, LongSupplier nanoClock,
            LongSupplier epochClock, FlushPolicy policy, BatchController controller, ChannelMeasurements qos,
            SenderMetrics metrics, Outbox outbox, LongConsumer wakeFlusherAt) {
        this.maxFrameBytes = maxFrameBytes;
        this.maxRecordLength = maxRecordLength(maxFrameBytes);
        this.checksum = checksum;
        this.alloc = alloc;
        this.nanoClock = nanoClock;
        this.epochClock = epochClock;
        this.policy = policy;
        this.controller = controller;
        this.qos = qos;
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
                controller.onEvents(sendEvents, sendBytes, now);
                sendEvents = 0;
                sendBytes = 0;
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
     * fills a batch, feeds the controller record by record (before the producer's first end of a
     * send), carries a latency tag or is sampled for the producer's load; in the middle of a batch
     * of a producer that ends its sends (Storm's), a record reads no clock at all.
     */
    private void startOffer() {
        offerClock = controller != null && ((offers + 1) & (LOAD_SAMPLE_EVERY - 1)) == 0 ? nanoClock.getAsLong() : NOT_READ;
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
        }
        // One tag per measurement interval, at most one per frame; a record the tag would push out of
        // its frame goes untagged, and the next one carries it.
        if (qos != null && !builder.isTagged() && length <= maxRecordLength - TAG_RECORD && builder.fits(length + TAG_RECORD)
                && qos.tagDue(now())) {
            builder.appendTag(epochClock.getAsLong());
        }
        if (controller != null) {
            if (producerEndsSends) {
                sendEvents++;
                sendBytes += length;
            } else {
                controller.onEvent(length, now());
            }
        }
    }

    private void afterAppend(int length) {
        boolean first = builder.recordCount() == 1;
        // The policy reads the time only of the record that opens its batch.
        if (policy.onRecord(RECORD_HEADER_LENGTH + length, policy.pendingRecords() == 0 ? now() : offerClock)
                && !producerEndsSends) {
            seal(FlushPolicy.Reason.SIZE, now());
        } else if (first && !producerEndsSends) {
            wakeFlusherAt.accept(policy.deadlineNanos());
        }
        if (controller != null && (++offers & (LOAD_SAMPLE_EVERY - 1)) == 0) {
            sampleProducerLoad(offerClock);
        }
    }

    /**
     * Every {@value #LOAD_SAMPLE_EVERY}th record: how long its offer took (sealing included when it
     * sealed), scaled up, over the wall time of a {@value #LOAD_WINDOW_NANOS} ns window, is the share
     * of the producer's time spent in the transport — JetStream's CPU ratio, measured. The
     * controller treats a producer that the transport keeps busy like one it pushes back.
     */
    private void sampleProducerLoad(long enteredNanos) {
        long exit = nanoClock.getAsLong();
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

    // ------------------------------------------------------------------ claim holder

    private void seal(FlushPolicy.Reason reason, long now) {
        drainTransfers();
        int records = builder.recordCount();
        ByteBuf frame = builder.seal(0, checksum); // the outbox numbers it
        if (policy.pendingRecords() > 0) {
            long lifetime = now - policy.pendingSinceNanos();
            metrics.onBatchWait(lifetime);
            if (qos != null) {
                qos.onBufferLifetime(lifetime);
            }
        }
        policy.onFlush(reason);
        metrics.onSealed(records, frame.readableBytes(), reason);
        if (controller != null) {
            sendDueProbe(now); // before the frame: onto a link the controller expects quiet
        }
        int bytes = frame.readableBytes();
        lastFrameBytes = bytes;
        outbox.enqueue(frame, records, now);
        if (controller != null) {
            controller.onSent(controller.wireBytes(bytes), now);
            planProbeCheck(now);
        }
    }

    /**
     * Called by the deadline flusher: sends a link probe the controller has waiting for a quiet
     * link, and seals the open batch if its deadline has passed, or asks the producer to do it if
     * the producer holds the batch. Returns when to call again.
     */
    public long flushIfDue(long now) {
        if (controller != null && now - probeCheckNanos >= 0 && claim.compareAndSet(FREE, FLUSHER)) {
            try {
                if (state == OPEN) {
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
        return controller != null && probeCheckNanos - deadline < 0 ? probeCheckNanos : deadline;
    }

    /**
     * Sends the link probe the controller asks for now, if any: it waits for a quiet link
     * ({@link BatchController#probeBytesDue}), which the deadline flusher catches between batches.
     */
    private void sendDueProbe(long now) {
        long probe = controller.probeBytesDue(now);
        if (probe > 0 && outbox.probe(now, (int) Math.min(probe, maxFrameBytes))) {
            metrics.onProbe();
        }
    }

    /** Tells the deadline flusher when to ask for a probe next. */
    private void planProbeCheck(long now) {
        long check = controller.probeCheckNanos(now);
        probeCheckNanos = check;
        wakeFlusherAt.accept(check);
    }

    private void drainTransfers() {
        if (controller != null) {
            transfers.read((type, buffer, index, length) ->
                    controller.onTransfer((long) controller.wireBytes(buffer.getLong(index)), buffer.getLong(index + 8) / 1e9), 16);
        }
    }

    // ------------------------------------------------------------------ measurements from I/O threads

    /** A route measured a probe's round trip: {@code id} is when it left. I/O thread; {@code scratch} is the route's. */
    public void onProbeAck(long id, int bytes, UnsafeBuffer scratch) {
        if (controller == null) {
            return;
        }
        scratch.putLong(0, bytes);
        scratch.putLong(8, nanoClock.getAsLong() - id);
        transfers.write(TRANSFER_MSG, scratch, 0, 16); // dropped if the producer has not drained 4 KiB of results
    }

    @Override
    public void onDrainSample(long bytesPerRoute, long spanNanos) {
        if (controller == null) {
            return;
        }
        drainScratch.putLong(0, bytesPerRoute);
        drainScratch.putLong(8, spanNanos);
        transfers.write(TRANSFER_MSG, drainScratch, 0, 16);
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
     * and its receiver and where it failed ({@code where}, "while ..."). Any thread.
     */
    @Override
    public void fail(Throwable cause, String where) {
        synchronized (this) {
            if (state != OPEN) {
                return;
            }
            failure = cause;
            state = FAILED;
        }
        LOG.error("Stream {} failed {}; it takes no more records (what it sealed is still delivered)", outbox.name(), where, cause);
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
