package io.jetstream.core.internal.ring;

/**
 * Layout of one record in the data region (TurboStream §IV-A, Fig. 5a/5c): a 16-byte header and
 * the payload, the whole aligned to {@link #ALIGNMENT} so that a record never straddles the end of
 * the ring and any gap at the end can hold a padding header.
 *
 * <pre>
 *  +0  HEADER word (long), published with one ordered store:
 *        bits  0..31  payload length (for PADDING: bytes to skip, header included)
 *        bits 32..39  status  (EMPTY, WRITING, READY, READ, ABORTED, FAILED)
 *        bits 40..47  type    (DATA, BATCH, PADDING)
 *        bits 48..63  producer slot
 *  +8  TARGET (int)          target task id
 * +12  GENERATION (int)      producer slot generation at claim time
 * +16  payload
 * </pre>
 *
 * <p>A BATCH record (Fig. 5c) carries many tuples for many tasks: its TARGET names the batch's
 * stream (the receiver's ring target), its payload starts with an 8-byte batch id (a transport's
 * batch sequence) followed by tuples, each {@code [int target][int length][bytes]}. The paper's inner
 * head holds the length only, because its batches go to one task; the target is added so that one
 * batch serves a worker's many tasks, as Storm's and JStorm's transfer batches do. Inner heads are
 * big-endian, as JetStream's BATCH frames lay out their records, so a transport moves a batch's
 * records between a frame and the ring in one copy.
 *
 * <pre>
 * +16  BATCH_ID (long, native order)
 * +24  tuples: [int target (BE)][int length (BE)][length bytes] ...
 * </pre>
 */
public final class RecordDescriptor {
    private RecordDescriptor() {}

    public static final int HEADER_LENGTH = 16;
    public static final int ALIGNMENT = 16;
    public static final int TARGET_OFFSET = 8;
    public static final int GENERATION_OFFSET = 12;
    /** Bytes in front of a BATCH record's tuples: the batch id. */
    public static final int BATCH_ID_LENGTH = 8;
    /** Inner head of each tuple of a BATCH record: target and length, big-endian. */
    public static final int BATCH_TUPLE_HEADER_LENGTH = 8;
    public static final int TUPLE_TARGET_OFFSET = 0;
    public static final int TUPLE_LENGTH_OFFSET = 4;

    /** Zeroed memory: nothing written here yet. */
    public static final int STATUS_EMPTY = 0;
    /** Claimed; the producer is writing the payload (paper: isWriting). */
    public static final int STATUS_WRITING = 1;
    /** Committed; the consumer may read it (paper: isReady). */
    public static final int STATUS_READY = 2;
    /** Delivered early by the right edge of the consumer's window (paper: hasRead). */
    public static final int STATUS_READ = 3;
    /** Given up by its producer. */
    public static final int STATUS_ABORTED = 4;
    /** Skipped by the consumer because its producer died mid-write. */
    public static final int STATUS_FAILED = 5;

    public static final int TYPE_DATA = 1;
    public static final int TYPE_BATCH = 2;
    /** Wrap marker (paper: flush): skip to the start of the ring. */
    public static final int TYPE_PADDING = 3;

    public static long header(int length, int status, int type, int slot) {
        return (length & 0xFFFF_FFFFL) | ((long) (status & 0xFF) << 32) | ((long) (type & 0xFF) << 40)
                | ((long) (slot & 0xFFFF) << 48);
    }

    public static int length(long header) {
        return (int) header;
    }

    public static int status(long header) {
        return (int) (header >>> 32) & 0xFF;
    }

    public static int type(long header) {
        return (int) (header >>> 40) & 0xFF;
    }

    public static int slot(long header) {
        return (int) (header >>> 48) & 0xFFFF;
    }

    public static long withStatus(long header, int status) {
        return (header & ~(0xFFL << 32)) | ((long) (status & 0xFF) << 32);
    }

    /** Bytes a record of {@code payloadLength} occupies in the ring. */
    public static int recordLength(int payloadLength) {
        return align(HEADER_LENGTH + payloadLength);
    }

    /**
     * Checks the tuples of a batch record: every inner head lies within the record and its length
     * fits what follows. Returns the number of tuples, or -1 when the record is inconsistent (a
     * consumer then delivers none of it). No allocation.
     */
    public static int countTuples(org.agrona.DirectBuffer buffer, int tuplesOffset, int tuplesLength) {
        int cursor = tuplesOffset;
        int end = tuplesOffset + tuplesLength;
        int count = 0;
        while (cursor < end) {
            if (end - cursor < BATCH_TUPLE_HEADER_LENGTH) {
                return -1;
            }
            int length = buffer.getInt(cursor + TUPLE_LENGTH_OFFSET, java.nio.ByteOrder.BIG_ENDIAN);
            if (length < 0 || length > end - cursor - BATCH_TUPLE_HEADER_LENGTH) {
                return -1;
            }
            cursor += BATCH_TUPLE_HEADER_LENGTH + length;
            count++;
        }
        return count;
    }

    public static int align(int value) {
        return (value + ALIGNMENT - 1) & -ALIGNMENT;
    }
}
