package io.jetstream.core.internal.transport.outbound;

import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.BATCH_FRAME_OVERHEAD;

import io.netty.buffer.ByteBuf;

/**
 * A sealed BATCH frame in a stream's outbox, from its sequence number until its acknowledgement.
 * Guarded by the outbox's lock.
 */
public final class OutboundBatch {
    final long sequence;
    final ByteBuf frame;
    final int records;
    final int bytes;
    final long sealedNanos;
    /** Route it was last written to, or -1 while unsent. */
    int route = -1;
    boolean sentBefore;
    /** When it was last written to a route (the sender's clock). */
    long sentNanos;
    /**
     * Where the route that last took it placed it, for {@link Route#delivered}: a ring route, the ring
     * position just past its record; -1 for a route that does not track delivery.
     */
    long routePosition = -1;

    OutboundBatch(long sequence, ByteBuf frame, int records, long sealedNanos) {
        this.sequence = sequence;
        this.frame = frame;
        this.records = records;
        this.bytes = frame.readableBytes();
        this.sealedNanos = sealedNanos;
    }

    public long sequence() {
        return sequence;
    }

    /** The whole frame, length field first; readable bytes untouched by routes (they write duplicates). */
    public ByteBuf frame() {
        return frame;
    }

    /** Index of the first record in {@link #frame()}. */
    public int recordsIndex() {
        return frame.readerIndex() + BATCH_FRAME_OVERHEAD;
    }

    /** Bytes of the records (their heads included), as a ring batch record's tuples take them. */
    public int recordsLength() {
        return bytes - BATCH_FRAME_OVERHEAD;
    }

    public int records() {
        return records;
    }
}
