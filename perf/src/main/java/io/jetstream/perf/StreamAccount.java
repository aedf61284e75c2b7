package io.jetstream.perf;

import static io.jetstream.perf.PerfRecordDescriptor.BYTE_ORDER;
import static io.jetstream.perf.PerfRecordDescriptor.CHECK_OFFSET;
import static io.jetstream.perf.PerfRecordDescriptor.END_TARGET;
import static io.jetstream.perf.PerfRecordDescriptor.MIN_LENGTH;
import static io.jetstream.perf.PerfRecordDescriptor.SEND_TIME_OFFSET;
import static io.jetstream.perf.PerfRecordDescriptor.SEQUENCE_OFFSET;

import io.jetstream.core.api.DeliveryHandler.DeliveredBatch;
import io.jetstream.core.api.RecordConsumer;
import io.jetstream.core.api.StreamKey;
import org.HdrHistogram.Recorder;
import org.agrona.DirectBuffer;

/**
 * The receiver's account of one sending stream: which sequences arrived ({@link DeliveredSequences}),
 * how many twice or out of order, the payload bytes, the one-way latency of every record (into the
 * receiver's shared {@link Recorder}), and how many records the sender says it sent (its END record).
 * Allocates nothing per record or batch: its memory is the bitset, allocated when the stream's first
 * batch arrives.
 *
 * <p>Threading contract: {@link #onBatch} is called by one delivering I/O thread at a time (a stream's
 * batches are never delivered concurrently); it counts in plain fields and publishes them once per
 * batch (volatile writes), which {@link #totals()} reads from any thread.
 */
public final class StreamAccount implements RecordConsumer {
    /** What a stream's account shows now. {@code sent} is -1 until the END record arrived. */
    public record Totals(long delivered, long distinct, long duplicated, long outOfOrder, long outOfOrderWhileStrict,
            long malformed, long beyondMaxRecords, long payloadBytes, long clockBehind, long sent) {
        /** Records sent and never delivered; -1 while {@link #sent} is unknown. */
        public long lost() {
            return sent < 0 ? -1 : sent - distinct;
        }
    }

    private final StreamKey key;
    private final DeliveredSequences sequences;
    private final Recorder latencies;
    private final WallClock clock;

    // Written by the delivering thread only.
    private long delivered;
    private long distinct;
    private long duplicated;
    private long outOfOrder;
    private long outOfOrderWhileStrict;
    private long malformed;
    private long beyondMaxRecords;
    private long payloadBytes;
    private long clockBehind;
    private long highestSequence = -1;
    private long endCount = -1;
    private boolean strict;

    // Published once per batch for the reporter (plain copies of the fields above).
    private volatile long deliveredPublished;
    private volatile long distinctPublished;
    private volatile long duplicatedPublished;
    private volatile long outOfOrderPublished;
    private volatile long outOfOrderWhileStrictPublished;
    private volatile long malformedPublished;
    private volatile long beyondMaxRecordsPublished;
    private volatile long payloadBytesPublished;
    private volatile long clockBehindPublished;
    private volatile long sent = -1;
    private volatile long firstBeyondMaxRecords = -1;
    private volatile long lastDeliveryNanos;

    public StreamAccount(StreamKey key, long maxRecords, Recorder latencies, WallClock clock) {
        this.key = key;
        this.sequences = new DeliveredSequences(maxRecords);
        this.latencies = latencies;
        this.clock = clock;
    }

    /** Accounts for one delivered batch; {@code strictNow} says whether the receiver delivers in strict order now. */
    public void onBatch(DeliveredBatch batch, boolean strictNow) {
        strict = strictNow;
        batch.forEach(this);
        publish();
        lastDeliveryNanos = System.nanoTime();
    }

    @Override
    public void accept(int target, DirectBuffer buffer, int offset, int length) {
        if (length < MIN_LENGTH) {
            malformed++;
            return;
        }
        long sequence = buffer.getLong(offset + SEQUENCE_OFFSET, BYTE_ORDER);
        if (buffer.getLong(offset + CHECK_OFFSET, BYTE_ORDER) != PerfRecordDescriptor.check(sequence)) {
            malformed++;
            return;
        }
        if (target == END_TARGET) {
            endCount = sequence;
            return;
        }
        delivered++;
        payloadBytes += length;
        long latency = clock.nanos() - buffer.getLong(offset + SEND_TIME_OFFSET, BYTE_ORDER);
        if (latency < 0) {
            clockBehind++; // the sender's clock is ahead of ours: not a latency
        } else {
            latencies.recordValue(latency);
        }
        switch (sequences.mark(sequence)) {
            case DeliveredSequences.FIRST -> {
                distinct++;
                if (sequence < highestSequence) {
                    outOfOrder++;
                    if (strict) {
                        outOfOrderWhileStrict++;
                    }
                } else {
                    highestSequence = sequence;
                }
            }
            case DeliveredSequences.DUPLICATE -> duplicated++;
            default -> {
                beyondMaxRecords++;
                if (firstBeyondMaxRecords < 0) {
                    firstBeyondMaxRecords = sequence;
                }
            }
        }
    }

    private void publish() {
        distinctPublished = distinct;
        duplicatedPublished = duplicated;
        outOfOrderPublished = outOfOrder;
        outOfOrderWhileStrictPublished = outOfOrderWhileStrict;
        malformedPublished = malformed;
        beyondMaxRecordsPublished = beyondMaxRecords;
        payloadBytesPublished = payloadBytes;
        clockBehindPublished = clockBehind;
        deliveredPublished = delivered;
        sent = endCount; // last: a reader that sees the END sees every count before it
    }

    public StreamKey key() {
        return key;
    }

    /** The counts as of the last batch, and the END record's count. */
    public Totals totals() {
        long endCount = sent; // first: the counts read after it are at least those published with it
        return new Totals(deliveredPublished, distinctPublished, duplicatedPublished, outOfOrderPublished,
                outOfOrderWhileStrictPublished, malformedPublished, beyondMaxRecordsPublished, payloadBytesPublished,
                clockBehindPublished, endCount);
    }

    /** Whether the END record arrived. */
    public boolean ended() {
        return sent >= 0;
    }

    /** The first sequence seen beyond {@code --max-records}, or -1. */
    public long firstBeyondMaxRecords() {
        return firstBeyondMaxRecords;
    }

    /** {@link System#nanoTime()} of the last delivered batch (0 before the first). */
    public long lastDeliveryNanos() {
        return lastDeliveryNanos;
    }
}
