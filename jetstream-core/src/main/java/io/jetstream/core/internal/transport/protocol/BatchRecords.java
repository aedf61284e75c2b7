package io.jetstream.core.internal.transport.protocol;

import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.RECORD_HEADER_LENGTH;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.TAG_LENGTH;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.TAG_TARGET;

import io.jetstream.core.api.RecordConsumer;
import io.jetstream.core.internal.ring.RecordDescriptor;
import java.nio.ByteOrder;
import java.util.function.IntPredicate;
import java.util.function.LongConsumer;
import org.agrona.DirectBuffer;

/**
 * The records of one batch, {@code [int target][int length][bytes]} each with big-endian heads, as
 * both a BATCH frame's body and a ring batch record lay them out (the ring's tuples are this layout,
 * {@link io.jetstream.core.internal.ring.RecordDescriptor}): one check and one delivery loop for both paths.
 *
 * <p>Stateless; any thread. No allocation.
 */
public final class BatchRecords {
    private BatchRecords() {}

    /**
     * Checks every record of the region: lengths within it, nothing left over, targets known, at most
     * one QoS tag of the right size. Returns the number of records (a tag is not one).
     *
     * @param sequence the batch, for messages
     * @param declared the count the sender declared, or -1 when the carrier declares none (the ring)
     * @throws ProtocolException naming the record at fault
     */
    public static int validate(DirectBuffer buffer, int offset, int length, long sequence, int declared, IntPredicate knownTarget) {
        int at = offset;
        int end = offset + length;
        boolean tagged = false;
        int records = 0;
        for (int i = 0; at < end && (declared < 0 || records < declared); i++) {
            if (end - at < RECORD_HEADER_LENGTH) {
                throw new ProtocolException("truncated BATCH " + sequence + ": record " + i + " has no header");
            }
            int target = buffer.getInt(at, ByteOrder.BIG_ENDIAN);
            int recordLength = buffer.getInt(at + 4, ByteOrder.BIG_ENDIAN);
            if (recordLength < 0 || recordLength > end - at - RECORD_HEADER_LENGTH) {
                throw new ProtocolException("BATCH " + sequence + " record " + i + " length " + recordLength + " outside [0, "
                        + (end - at - RECORD_HEADER_LENGTH) + "]");
            }
            if (target == TAG_TARGET) {
                if (recordLength != TAG_LENGTH) {
                    throw new ProtocolException("BATCH " + sequence + " record " + i + " is a QoS tag of " + recordLength
                            + " B; a tag has " + TAG_LENGTH);
                }
                if (tagged) {
                    throw new ProtocolException("BATCH " + sequence + " carries more than one QoS tag");
                }
                tagged = true;
            } else if (!knownTarget.test(target)) {
                throw new ProtocolException("BATCH " + sequence + " record " + i + " has unknown target id " + target);
            } else {
                records++;
            }
            at += RECORD_HEADER_LENGTH + recordLength;
        }
        if (declared >= 0 && records < declared) {
            throw new ProtocolException("truncated BATCH " + sequence + ": record " + records + " of " + declared + " has no header");
        }
        if (at != end) {
            throw new ProtocolException("BATCH " + sequence + " has " + (end - at) + " bytes after its " + records + " records");
        }
        return records;
    }

    /**
     * Delivers the records of a validated region in order to {@code consumer}, and its QoS tag, if
     * any, to {@code tags} when the records before it have been delivered.
     */
    public static void deliver(DirectBuffer buffer, int offset, int length, RecordConsumer consumer, LongConsumer tags) {
        int at = offset;
        int end = offset + length;
        while (at < end) {
            int target = buffer.getInt(at, ByteOrder.BIG_ENDIAN);
            int recordLength = buffer.getInt(at + 4, ByteOrder.BIG_ENDIAN);
            if (target == TAG_TARGET) {
                tags.accept(buffer.getLong(at + RECORD_HEADER_LENGTH, ByteOrder.BIG_ENDIAN));
            } else {
                consumer.accept(target, buffer, at + RECORD_HEADER_LENGTH, recordLength);
            }
            at += RECORD_HEADER_LENGTH + recordLength;
        }
    }
}
