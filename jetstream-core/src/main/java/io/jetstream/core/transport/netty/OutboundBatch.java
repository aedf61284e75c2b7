package io.jetstream.core.transport.netty;

import io.netty.buffer.ByteBuf;

/** A sealed BATCH frame in a sender's outbox. Guarded by the sender's outbox lock. */
final class OutboundBatch {
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

    OutboundBatch(long sequence, ByteBuf frame, int records, long sealedNanos) {
        this.sequence = sequence;
        this.frame = frame;
        this.records = records;
        this.bytes = frame.readableBytes();
        this.sealedNanos = sealedNanos;
    }
}
