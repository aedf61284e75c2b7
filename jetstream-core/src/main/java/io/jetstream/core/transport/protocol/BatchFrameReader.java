package io.jetstream.core.transport.protocol;

import static io.jetstream.core.transport.protocol.ProtocolDescriptor.*;

import io.jetstream.core.transport.RecordConsumer;
import io.netty.buffer.ByteBuf;
import java.util.function.IntPredicate;
import java.util.function.LongConsumer;
import java.util.zip.CRC32C;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Validates a whole BATCH frame before any record of it is delivered (a bad batch is refused as a
 * unit: no half-delivered batch), then hands the records to a {@link RecordConsumer} through one
 * reused flyweight — zero-copy when the frame is in direct memory. A QoS tag record is checked like
 * any other but handed to a tag consumer instead, when the records around it are delivered.
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
        int at = records;
        int end = records + remaining;
        boolean tagged = false;
        for (int i = 0, delivered = 0; delivered < count; i++) {
            if (end - at < RECORD_HEADER_LENGTH) {
                throw new ProtocolException("truncated BATCH " + sequence + ": record " + i + " of " + count + " has no header");
            }
            int target = frame.getInt(at);
            int length = frame.getInt(at + 4);
            if (length < 0 || length > end - at - RECORD_HEADER_LENGTH) {
                throw new ProtocolException("BATCH " + sequence + " record " + i + " length " + length + " outside [0, "
                        + (end - at - RECORD_HEADER_LENGTH) + "]");
            }
            if (target == TAG_TARGET) {
                if (length != TAG_LENGTH) {
                    throw new ProtocolException("BATCH " + sequence + " record " + i + " is a QoS tag of " + length
                            + " B; a tag has " + TAG_LENGTH);
                }
                if (tagged) {
                    throw new ProtocolException("BATCH " + sequence + " carries more than one QoS tag");
                }
                tagged = true;
            } else if (!knownTarget.test(target)) {
                throw new ProtocolException("BATCH " + sequence + " record " + i + " has unknown target id " + target);
            } else {
                delivered++;
            }
            at += RECORD_HEADER_LENGTH + length;
        }
        if (at != end) {
            throw new ProtocolException("BATCH " + sequence + " has " + (end - at) + " bytes after its " + count + " records");
        }
        if (checksum) {
            crc.reset();
            crc.update(frame.nioBuffer(records, remaining));
            int actual = (int) crc.getValue();
            if (actual != expectedCrc) {
                throw new ProtocolException(String.format("BATCH %d checksum 0x%08x, computed 0x%08x: corrupted in transit",
                        sequence, expectedCrc, actual));
            }
        }
    }

    public long sequence() {
        return sequence;
    }

    /** Records of the last validated frame (a QoS tag is not one). */
    public int count() {
        return count;
    }

    /**
     * Delivers the records of a validated frame whose reader index is at its first record (a frame
     * validated by any reader), and its QoS tag, if any, to {@code tags} when the records before it
     * have been delivered; consumes them.
     */
    public void deliver(ByteBuf frame, RecordConsumer consumer, LongConsumer tags) {
        int at = frame.readerIndex();
        int end = frame.writerIndex();
        long base;
        if (frame.hasMemoryAddress()) {
            view.wrap(frame.memoryAddress() + at, end - at);
            base = at;
        } else {
            int n = end - at;
            if (heapCopy.length < n) {
                heapCopy = new byte[Math.min(maxFrameLength, Math.max(n, heapCopy.length * 2))];
            }
            frame.getBytes(at, heapCopy, 0, n);
            view.wrap(heapCopy, 0, n);
            base = at;
        }
        while (at < end) {
            int target = frame.getInt(at);
            int length = frame.getInt(at + 4);
            if (target == TAG_TARGET) {
                tags.accept(frame.getLong(at + RECORD_HEADER_LENGTH));
            } else {
                consumer.accept(target, view, (int) (at + RECORD_HEADER_LENGTH - base), length);
            }
            at += RECORD_HEADER_LENGTH + length;
        }
        frame.readerIndex(end);
        view.wrap(0, 0);
    }
}
