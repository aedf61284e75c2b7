package io.jetstream.core.internal.transport.protocol;

import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.*;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Writes records straight into a BATCH frame: {@link #begin} reserves the header, {@link #append}
 * copies one record behind it, {@link #seal} fills in length, sequence, count and checksum. The frame
 * buffer is the batch buffer: there is no intermediate copy and no allocation per record.
 *
 * <p>Not thread-safe: owned by the thread that currently holds the sender's batch.
 */
public final class BatchFrameBuilder {
    private final CRC32C crc = new CRC32C();
    private final int maxFrameLength;
    private int limit;
    private ByteBuf frame;
    private int count;
    private boolean tagged;

    public BatchFrameBuilder(int maxFrameLength) {
        this.maxFrameLength = maxFrameLength;
        this.limit = maxFrameLength;
    }

    /**
     * Seals batches at {@code bytes} (length field included) instead of the maximum frame, for
     * example to fit the records of a shared-memory ring; a single larger record still gets a frame.
     */
    public void limit(int bytes) {
        limit = Math.min(maxFrameLength, bytes - LENGTH_FIELD);
    }

    public void begin(ByteBuf buffer) {
        frame = buffer;
        count = 0;
        tagged = false;
        frame.writeInt(0).writeByte(BATCH).writeLong(0).writeInt(0).writeInt(0);
    }

    public boolean isOpen() {
        return frame != null;
    }

    /** Whether a record of {@code length} bytes still fits under the limit (the maximum frame length unless lowered). */
    public boolean fits(int length) {
        return frame.writerIndex() - LENGTH_FIELD + RECORD_HEADER_LENGTH + (long) length <= limit;
    }

    public void append(int target, byte[] src, int offset, int length) {
        frame.writeInt(target).writeInt(length).writeBytes(src, offset, length);
        count++;
    }

    public void append(int target, ByteBuffer src) {
        frame.writeInt(target).writeInt(src.remaining()).writeBytes(src);
        count++;
    }

    /**
     * Appends a QoS tag: the record appended next was emitted at {@code emittedEpochNanos} (wall
     * clock). The caller checks that the tag and that record fit ({@link #fits} of their sum).
     *
     * @throws IllegalStateException if the frame has a tag already (a frame carries at most one)
     */
    public void appendTag(long emittedEpochNanos) {
        if (tagged) {
            throw new IllegalStateException("the frame has a QoS tag already");
        }
        frame.writeInt(TAG_TARGET).writeInt(TAG_LENGTH).writeLong(emittedEpochNanos);
        tagged = true;
    }

    /** Whether the open frame carries a QoS tag. */
    public boolean isTagged() {
        return tagged;
    }

    /** Records appended so far (a tag is not one). */
    public int recordCount() {
        return count;
    }

    /** Bytes on the wire so far, length field included. */
    public int frameBytes() {
        return frame.writerIndex();
    }

    /** Completes the frame and hands it over; the builder is empty afterwards. */
    public ByteBuf seal(long sequence, boolean checksum) {
        ByteBuf f = frame;
        int body = LENGTH_FIELD + TYPE_FIELD;
        f.setInt(0, f.writerIndex() - LENGTH_FIELD);
        f.setLong(body + BATCH_SEQUENCE_OFFSET, sequence);
        f.setInt(body + BATCH_COUNT_OFFSET, count);
        f.setInt(body + BATCH_CHECKSUM_OFFSET, checksum ? checksum(f, BATCH_FRAME_OVERHEAD, f.writerIndex() - BATCH_FRAME_OVERHEAD) : 0);
        frame = null;
        count = 0;
        tagged = false;
        return f;
    }

    /** Drops the open frame (its buffer is released). */
    public void discard() {
        if (frame != null) {
            frame.release();
            frame = null;
            count = 0;
            tagged = false;
        }
    }

    int checksum(ByteBuf b, int index, int length) {
        crc.reset();
        crc.update(b.nioBuffer(index, length));
        return (int) crc.getValue();
    }
}
