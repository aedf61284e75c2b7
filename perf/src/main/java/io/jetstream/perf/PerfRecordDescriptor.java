package io.jetstream.perf;

import java.nio.ByteOrder;

/**
 * The layout of the records jetstream-perf sends, all fields big-endian:
 *
 * <pre>
 *   0: long sequence          0, 1, 2... per sending stream (an END record: how many data records were sent)
 *   8: long send time         the sender's wall clock when it wrote the record, in ns since the epoch ({@link WallClock})
 *  16: long check             sequence XOR {@link #CHECK_MAGIC}: a record whose check does not match is counted as malformed
 *  24: padding                zeros, up to the record size
 * </pre>
 *
 * Data records go to target {@link #DATA_TARGET}; the one END record a sender offers after its last
 * data record goes to {@link #END_TARGET} and is {@link #MIN_LENGTH} long.
 */
public final class PerfRecordDescriptor {
    public static final int SEQUENCE_OFFSET = 0;
    public static final int SEND_TIME_OFFSET = 8;
    public static final int CHECK_OFFSET = 16;
    /** The shortest record: its three fields. */
    public static final int MIN_LENGTH = 24;
    public static final long CHECK_MAGIC = 0x4a65_7453_7472_6561L; // "JetStrea"
    public static final ByteOrder BYTE_ORDER = ByteOrder.BIG_ENDIAN;
    /** The target id of data records. */
    public static final int DATA_TARGET = 0;
    /** The target id of the END record. */
    public static final int END_TARGET = 1;

    private PerfRecordDescriptor() {}

    /** The check word of a record carrying {@code sequence}. */
    public static long check(long sequence) {
        return sequence ^ CHECK_MAGIC;
    }
}
