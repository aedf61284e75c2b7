package io.jetstream.core.ring;

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
 * +16  payload; for BATCH a sequence of [int length][bytes] tuples (inner head = length only)
 * </pre>
 */
public final class RecordDescriptor {
    private RecordDescriptor() {}

    public static final int HEADER_LENGTH = 16;
    public static final int ALIGNMENT = 16;
    public static final int TARGET_OFFSET = 8;
    public static final int GENERATION_OFFSET = 12;
    /** Inner head of each tuple of a BATCH record. */
    public static final int BATCH_TUPLE_HEADER_LENGTH = 4;

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

    public static int align(int value) {
        return (value + ALIGNMENT - 1) & -ALIGNMENT;
    }
}
