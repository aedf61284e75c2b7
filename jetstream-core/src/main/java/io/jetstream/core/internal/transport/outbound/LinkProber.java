package io.jetstream.core.internal.transport.outbound;

import io.jetstream.core.internal.metrics.SenderCounters;
import io.jetstream.core.model.BatchController;
import java.nio.ByteBuffer;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * The controller's view of the link in adaptive mode: sends the link probes the controller asks
 * for ({@link BatchController#probeBytesDue}; they wait for a quiet link, which the deadline flusher
 * catches between batches), tells the flusher when to ask next, and hands the controller the
 * transfer times that I/O threads measure (probe answers, the outbox's drain samples) through a
 * many-to-one ring.
 *
 * <p>Threading contract: {@link #sendDue}, {@link #planCheck} and {@link #drainTransfers} for the
 * thread that holds the accumulator's claim; {@link #onProbeAck} and {@link #onDrainSample} for
 * I/O threads (lock-free: one ring write each, dropped if the claim holder has not drained 4 KiB of
 * them); {@link #checkNanos} for any thread.
 */
final class LinkProber {
    private static final int TRANSFER_MSG = 1;
    private static final int TRANSFER_LENGTH = 16;

    private final BatchController controller;
    private final Outbox outbox;
    private final SenderCounters metrics;
    private final int maxFrameBytes;
    private final LongSupplier nanoClock;
    /** Tells the deadline flusher when to call next. */
    private final LongConsumer wakeFlusherAt;
    /** When the controller may next want a probe sent ({@link BatchController#probeCheckNanos}); none before the first batch. */
    private volatile long probeCheckNanos = Long.MAX_VALUE;

    /** Transfer times measured by I/O threads, drained by the claim holder. */
    private final ManyToOneRingBuffer transfers =
            new ManyToOneRingBuffer(new UnsafeBuffer(ByteBuffer.allocateDirect(4096 + RingBufferDescriptor.TRAILER_LENGTH)));
    /** The outbox's drain samples are written under its lock: one scratch buffer serves them all. */
    private final UnsafeBuffer drainScratch = new UnsafeBuffer(new byte[TRANSFER_LENGTH]);
    private final MessageHandler toController;

    LinkProber(BatchController controller, Outbox outbox, SenderCounters metrics, int maxFrameBytes, LongSupplier nanoClock,
            LongConsumer wakeFlusherAt) {
        this.controller = controller;
        this.outbox = outbox;
        this.metrics = metrics;
        this.maxFrameBytes = maxFrameBytes;
        this.nanoClock = nanoClock;
        this.wakeFlusherAt = wakeFlusherAt;
        this.toController = (type, buffer, index, length) ->
                controller.onTransfer((long) controller.wireBytes(buffer.getLong(index)), buffer.getLong(index + 8) / 1e9);
    }

    /** Sends the link probe the controller asks for now, if any (before a frame: onto a link the controller expects quiet). */
    void sendDue(long now) {
        long probe = controller.probeBytesDue(now);
        if (probe > 0 && outbox.probe(now, (int) Math.min(probe, maxFrameBytes))) {
            metrics.onProbe();
        }
    }

    /** Tells the deadline flusher when to ask for a probe next. */
    void planCheck(long now) {
        long check = controller.probeCheckNanos(now);
        probeCheckNanos = check;
        wakeFlusherAt.accept(check);
    }

    /** When the deadline flusher is to call {@link #sendDue} next. Any thread. */
    long checkNanos() {
        return probeCheckNanos;
    }

    /** Hands the controller the transfer times measured since the last call. */
    void drainTransfers() {
        transfers.read(toController, 16);
    }

    /** A route measured a probe's round trip: {@code id} is when it left. I/O thread; {@code scratch} is the route's. */
    void onProbeAck(long id, int bytes, UnsafeBuffer scratch) {
        scratch.putLong(0, bytes);
        scratch.putLong(8, nanoClock.getAsLong() - id);
        transfers.write(TRANSFER_MSG, scratch, 0, TRANSFER_LENGTH); // dropped if the claim holder has not drained 4 KiB
    }

    /** The outbox measured its drain under backlog. Outbox lock held. */
    void onDrainSample(long bytesPerRoute, long spanNanos) {
        drainScratch.putLong(0, bytesPerRoute);
        drainScratch.putLong(8, spanNanos);
        transfers.write(TRANSFER_MSG, drainScratch, 0, TRANSFER_LENGTH);
    }
}
