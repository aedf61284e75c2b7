package io.jetstream.core.ring;

import static io.jetstream.core.internal.ring.RecordDescriptor.BATCH_TUPLE_HEADER_LENGTH;
import static io.jetstream.core.internal.ring.RecordDescriptor.TUPLE_LENGTH_OFFSET;
import static io.jetstream.core.internal.ring.RecordDescriptor.TUPLE_TARGET_OFFSET;

import io.jetstream.core.internal.ring.RecordDescriptor;
import java.nio.ByteOrder;
import org.agrona.DirectBuffer;

/**
 * Receives the records a {@link RingConsumer} polls. The buffer is the ring itself: read the bytes
 * during the call, they are reused afterwards.
 *
 * <p>A DATA record is one {@link #onRecord} call. A BATCH record is one {@link #onBatch} call, made
 * only after the consumer checked that its tuples are consistent
 * ({@link RecordDescriptor#countTuples}); by default it calls {@link #onRecord} once per tuple. A
 * handler that needs the batch as a unit (a transport acknowledging batch ids) overrides it.
 */
@FunctionalInterface
public interface RecordHandler {
    void onRecord(int target, DirectBuffer buffer, int offset, int length);

    /**
     * A committed batch record of {@code count} tuples for stream {@code target}, its tuples at
     * {@code [offset, offset + length)} of {@code buffer} ({@link RecordDescriptor} gives their layout).
     */
    default void onBatch(int target, long batchId, DirectBuffer buffer, int offset, int length, int count) {
        int cursor = offset;
        int end = offset + length;
        while (cursor < end) {
            int tupleLength = buffer.getInt(cursor + TUPLE_LENGTH_OFFSET, ByteOrder.BIG_ENDIAN);
            onRecord(buffer.getInt(cursor + TUPLE_TARGET_OFFSET, ByteOrder.BIG_ENDIAN), buffer,
                    cursor + BATCH_TUPLE_HEADER_LENGTH, tupleLength);
            cursor += BATCH_TUPLE_HEADER_LENGTH + tupleLength;
        }
    }

    /**
     * The consumer's poll that delivered records ended (before it looks for more): a handler that
     * defers work per batch — a transport acknowledging once per poll instead of once per batch —
     * does it here. Consumer thread; not called after a poll that delivered nothing.
     */
    default void afterPoll() {}

    /**
     * The consumer found nothing and is about to block until a producer signals or
     * {@code maxBlockNanos} pass: a handler that deferred work to a time of its own (a transport
     * acknowledging at most once per interval) does what is due and returns how long the consumer may
     * block, at most {@code maxBlockNanos}. Consumer thread.
     */
    default long onIdle(long maxBlockNanos) {
        return maxBlockNanos;
    }
}
