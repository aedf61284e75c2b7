package io.jetstream.core.internal.transport.protocol;

import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.*;

import io.netty.buffer.ByteBuf;
import java.util.function.IntPredicate;
import java.util.zip.CRC32C;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Validates a whole BATCH frame before any record of it is delivered (a bad batch is refused as a
 * unit: no half-delivered batch): the header, then every record through {@link BatchRecords}, then
 * the checksum. Afterwards {@link #records()} is a flyweight over the frame's records — zero-copy
 * when the frame is in direct memory — valid while the frame is.
 *
 * <p>Not thread-safe: one per connection, used on its event loop.
 */
public final class BatchFrameReader {
    private final CRC32C crc = new CRC32C();
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private final int maxFrameLength;
    private byte[] heapCopy = new byte[0];

    private long sequence;
    private int count;
    private int recordsLength;

    public BatchFrameReader(int maxFrameLength) {
        this.maxFrameLength = maxFrameLength;
    }

    /**
     * Reads and validates the header and every record of {@code frame} (type byte first); its reader
     * index is left at the first record.
     *
     * @throws ProtocolException naming what is wrong
     */
    public void validate(ByteBuf frame, boolean checksum, IntPredicate knownTarget) {
        Frames.expectType(frame, BATCH);
        Frames.need(frame, BATCH_HEADER_LENGTH, "BATCH header");
        sequence = frame.readLong();
        count = frame.readInt();
        int expectedCrc = frame.readInt();
        if (sequence < 1) {
            throw new ProtocolException("BATCH sequence " + sequence + " < 1");
        }
        int records = frame.readerIndex();
        int remaining = frame.readableBytes();
        if (count < 0 || (long) count * RECORD_HEADER_LENGTH > remaining) {
            throw new ProtocolException("BATCH of " + count + " records cannot fit in " + remaining + " bytes");
        }
        if (frame.hasMemoryAddress()) {
            view.wrap(frame.memoryAddress() + records, remaining);
        } else {
            if (heapCopy.length < remaining) {
                heapCopy = new byte[Math.min(maxFrameLength, Math.max(remaining, heapCopy.length * 2))];
            }
            frame.getBytes(records, heapCopy, 0, remaining);
            view.wrap(heapCopy, 0, remaining);
        }
        recordsLength = remaining;
        if (checksum) {
            crc.reset();
            crc.update(frame.nioBuffer(records, remaining));
            int actual = (int) crc.getValue();
            if (actual != expectedCrc) {
                throw new ChecksumMismatchException(String.format("BATCH %d checksum 0x%08x, computed 0x%08x: corrupted in transit",
                        sequence, expectedCrc, actual));
            }
        }
        BatchRecords.validate(view, 0, remaining, sequence, count, knownTarget);
    }

    public long sequence() {
        return sequence;
    }

    /** Records of the last validated frame (a QoS tag is not one). */
    public int count() {
        return count;
    }

    /** The last validated frame's records, from offset 0 to {@link #recordsLength()}; valid while the frame is. */
    public DirectBuffer records() {
        return view;
    }

    public int recordsLength() {
        return recordsLength;
    }
}
