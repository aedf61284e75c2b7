package io.jetstream.core.internal.ring;

/**
 * Layout of a ring file: a header of {@link #HEADER_LENGTH} bytes followed by the data region of
 * {@code capacity} bytes (a power of two). All offsets are from the start of the file. Fields written
 * by different parties sit on separate 128-byte lines against false sharing.
 *
 * <pre>
 *   0  MAGIC (long)            "JSRING\0\1"
 *   8  VERSION (int)           {@link #VERSION}
 *  12  HEADER_LENGTH (int)
 *  16  CAPACITY (int)          data bytes, power of two
 *  20  MAX_PAYLOAD (int)
 *  24  CONSUMER_PID (long)
 *  32  CONSUMER_START (long)   consumer process start, epoch ms (pid reuse guard)
 *  40  STATE (int)             0 initialising, 1 open, 2 closed, 3 failed (the consumer gave up: see FAILURE)
 * 128  TAIL (long)             next position to claim; producers CAS it        [producer line]
 * 256  HEAD (long)             everything before it is consumed and zeroed      [consumer line]
 * 384  CONSUMER_PARKED (int)   reserved for a wake-up signal                    [consumer line]
 * 1024 PRODUCER_SLOTS          {@link #MAX_PRODUCERS} slots of {@link #SLOT_LENGTH} bytes
 * 5120 FAILURE_LENGTH (int)    UTF-8 bytes of the failure reason that follow (state failed only)
 * 5124 FAILURE_REASON          at most {@link #MAX_FAILURE_LENGTH} bytes
 * </pre>
 *
 * Positions (TAIL, HEAD, claim positions) are 64-bit and never wrap; the index in the data region
 * is {@code position & (capacity - 1)}.
 */
public final class RingDescriptor {
    private RingDescriptor() {}

    /** "JSRING" followed by 0x00 0x01. */
    public static final long MAGIC = 0x4A5352494E470001L;
    /** Bumped on any incompatible change of this layout or of {@link RecordDescriptor}. */
    public static final int VERSION = 2;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 8;
    public static final int HEADER_LENGTH_OFFSET = 12;
    public static final int CAPACITY_OFFSET = 16;
    public static final int MAX_PAYLOAD_OFFSET = 20;
    public static final int CONSUMER_PID_OFFSET = 24;
    public static final int CONSUMER_START_OFFSET = 32;
    public static final int STATE_OFFSET = 40;
    public static final int TAIL_OFFSET = 128;
    public static final int HEAD_OFFSET = 256;
    public static final int CONSUMER_PARKED_OFFSET = 384;
    public static final int PRODUCER_SLOTS_OFFSET = 1024;

    public static final int STATE_INITIALISING = 0;
    public static final int STATE_OPEN = 1;
    public static final int STATE_CLOSED = 2;
    /**
     * The consumer stopped reading for good (a corrupt record, a failed wake-up socket): producers
     * must stop writing and take another path; FAILURE_REASON says why.
     */
    public static final int STATE_FAILED = 3;

    /** Producers attached at once; the slot index travels in every record header (16 bits). */
    public static final int MAX_PRODUCERS = 64;
    public static final int SLOT_LENGTH = 64;

    // Producer slot fields, relative to the slot.
    public static final int SLOT_STATE_OFFSET = 0;
    public static final int SLOT_GENERATION_OFFSET = 4;
    public static final int SLOT_PID_OFFSET = 8;
    public static final int SLOT_START_OFFSET = 16;
    /** Position the producer is claiming or has claimed and not yet headed; -1 when none. */
    public static final int SLOT_CLAIM_POSITION_OFFSET = 24;
    /** Bytes of that claim (padding at the end of the ring included). */
    public static final int SLOT_CLAIM_LENGTH_OFFSET = 32;

    public static final int SLOT_FREE = 0;
    public static final int SLOT_ACTIVE = 1;
    public static final int SLOT_INITIALISING = 2;

    public static final int FAILURE_LENGTH_OFFSET = 5120;
    public static final int FAILURE_REASON_OFFSET = 5124;
    public static final int MAX_FAILURE_LENGTH = 1024;

    public static final int HEADER_LENGTH = 8192;

    /** Smallest and largest data capacity accepted. */
    public static final int MIN_CAPACITY = 4096;
    public static final int MAX_CAPACITY = 1 << 30;

    static {
        if (PRODUCER_SLOTS_OFFSET + MAX_PRODUCERS * SLOT_LENGTH > FAILURE_LENGTH_OFFSET
                || FAILURE_REASON_OFFSET + MAX_FAILURE_LENGTH > HEADER_LENGTH) {
            throw new AssertionError("producer slots or failure reason overflow the header");
        }
    }

    public static int slotOffset(int slot) {
        return PRODUCER_SLOTS_OFFSET + slot * SLOT_LENGTH;
    }

    /** File size of a ring with this data capacity. */
    public static long fileLength(int capacity) {
        return (long) HEADER_LENGTH + capacity;
    }
}
