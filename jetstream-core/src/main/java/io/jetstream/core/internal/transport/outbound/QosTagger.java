package io.jetstream.core.internal.transport.outbound;

import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.RECORD_HEADER_LENGTH;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.TAG_LENGTH;

import io.jetstream.core.internal.qos.ChannelMeasurements;
import io.jetstream.core.internal.transport.protocol.BatchFrameBuilder;
import java.util.function.LongSupplier;

/**
 * A stream's part in its latency constraint (Nephele): puts a latency tag on one record per
 * measurement interval, at most one per frame ({@link ChannelMeasurements#tagDue}), and reports the
 * lifetimes of the buffers it seals and the channel latencies the receiver measured.
 *
 * <p>Whether a tag is due is asked once per frame, when the frame opens (with the clock reading the
 * flush policy takes there anyway); the tag then goes on the record in the middle of the frame, as
 * far as the last frame tells (a record with its buffer's mean wait, not the oldest one). A record
 * the tag would push out of its frame goes untagged and the next one carries it; a frame sealed
 * before its tagged record hands the tag on to the next frame. A record costs one comparison.
 *
 * <p>Threading contract: {@link #onFrameOpened}, {@link #tagBefore} and {@link #onSealed} for the
 * thread that holds the accumulator's claim; {@link #onChannelLatency} for any thread (an I/O
 * thread).
 */
final class QosTagger {
    /** Frame bytes of a tag record. */
    static final int TAG_RECORD = RECORD_HEADER_LENGTH + TAG_LENGTH;

    private final ChannelMeasurements measurements;
    private final LongSupplier epochClock;
    private final int maxRecordLength;
    /** A tag is due and not yet placed. Claim holder. */
    private boolean tagPending;
    /** The record (by its index in the frame) that is to carry the pending tag, or a later one. Claim holder. */
    private int tagAt = Integer.MAX_VALUE;
    private int lastFrameRecords;

    QosTagger(ChannelMeasurements measurements, LongSupplier epochClock, int maxRecordLength) {
        this.measurements = measurements;
        this.epochClock = epochClock;
        this.maxRecordLength = maxRecordLength;
    }

    /** A frame opened at {@code nowNanos}: asks whether a tag is due, and places it in this frame. */
    void onFrameOpened(long nowNanos) {
        if (tagPending || measurements.tagDue(nowNanos)) {
            tagPending = true;
            tagAt = lastFrameRecords / 2;
        }
    }

    /** Puts the pending tag into {@code builder} before a record of {@code length} bytes, if this is the record to carry it. */
    void tagBefore(BatchFrameBuilder builder, int length) {
        if (tagPending && builder.recordCount() >= tagAt && !builder.isTagged() && length <= maxRecordLength - TAG_RECORD
                && builder.fits(length + TAG_RECORD)) {
            builder.appendTag(epochClock.getAsLong());
            tagPending = false;
            tagAt = Integer.MAX_VALUE;
        }
    }

    /** A frame of {@code records} was sealed; its oldest record waited {@code lifetimeNanos} (or -1 if none). */
    void onSealed(int records, long lifetimeNanos) {
        lastFrameRecords = records;
        if (lifetimeNanos >= 0) {
            measurements.onBufferLifetime(lifetimeNanos);
        }
    }

    /** The channel latency of a tagged record, measured by the receiver. Any thread. */
    void onChannelLatency(long nanos) {
        measurements.onChannelLatency(nanos);
    }
}
