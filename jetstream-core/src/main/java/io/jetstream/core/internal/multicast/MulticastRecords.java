package io.jetstream.core.internal.multicast;

import io.jetstream.core.api.MulticastStream;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Layouts of a multicast stream. A record in the hand-over ring and in the log is
 * {@code [target int][epoch long][position long][payload]}; what a destination's stream carries is the same
 * from the epoch on ({@link MulticastStream#HEADER_BYTES} bytes of header, then the payload). A replicating
 * node confirms to the sender with a control frame {@code [epoch long][position long][stream id UTF-8]}: every
 * record of that stream up to that position reached every receiver of its site.
 */
public final class MulticastRecords {
    /** Byte order of the header's and the confirmation's numbers. */
    public static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    /** Offset of the target id in a ring or log record. */
    public static final int TARGET_OFFSET = 0;
    /** Offset of the header (epoch, then position) in a ring or log record: where a destination's record begins. */
    public static final int HEADER_OFFSET = Integer.BYTES;
    static final int EPOCH_OFFSET = HEADER_OFFSET;
    static final int POSITION_OFFSET = EPOCH_OFFSET + Long.BYTES;
    /** Bytes a ring or log record has before its payload. */
    public static final int PREFIX_BYTES = HEADER_OFFSET + MulticastStream.HEADER_BYTES;
    /** The ring's message type of a record (Agrona type ids must be positive). */
    static final int RECORD_TYPE = 1;
    /** Control tag of a replicating node's confirmation. */
    public static final int CONFIRMED_TAG = 0x4D43_0001;
    /** Bytes of a confirmation before the stream id. */
    static final int CONFIRMED_FIXED_BYTES = 2 * Long.BYTES;

    private MulticastRecords() {}

    /** The epoch in a destination record (its first 16 bytes being the header). */
    public static long epoch(DirectBuffer record, int offset) {
        return record.getLong(offset, ORDER);
    }

    /** The position in a destination record. */
    public static long position(DirectBuffer record, int offset) {
        return record.getLong(offset + Long.BYTES, ORDER);
    }

    /** A confirmation of {@code position} of the stream {@code streamId} in epoch {@code epoch}. */
    public static byte[] confirmation(long epoch, long position, String streamId) {
        byte[] id = streamId.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[CONFIRMED_FIXED_BYTES + id.length];
        UnsafeBuffer b = new UnsafeBuffer(out);
        b.putLong(0, epoch, ORDER);
        b.putLong(Long.BYTES, position, ORDER);
        b.putBytes(CONFIRMED_FIXED_BYTES, id);
        return out;
    }
}
