package io.jetstream.core.internal.transport.netty;

import io.jetstream.core.internal.transport.outbound.OutboundBatch;
import io.jetstream.core.internal.transport.outbound.Route;
import io.jetstream.core.internal.transport.protocol.Frames;
import io.netty.channel.Channel;

/**
 * A route over one TCP connection: a batch is written as its BATCH frame (a retained duplicate of
 * the outbox's frame, no copy) and flushed; Netty's {@code FlushConsolidationHandler} lets several
 * writes share a system call.
 *
 * <p>Threading: called under the outbox lock from any thread; Netty hands the write to the channel's
 * event loop.
 */
final class TcpRoute implements Route {
    private final int index;
    private final Channel channel;
    private final int maxFrameBytes;
    /** Wire size of the probe in flight (one at a time per route), read by the connection when its answer comes. */
    private volatile int probeBytes;
    /** Batches written (the route-stall check's only input from the data path). Written under the outbox lock. */
    private volatile long batchesWritten;

    TcpRoute(int index, Channel channel, int maxFrameBytes) {
        this.index = index;
        this.channel = channel;
        this.maxFrameBytes = maxFrameBytes;
    }

    @Override
    public int index() {
        return index;
    }

    @Override
    public int write(OutboundBatch batch) {
        channel.writeAndFlush(batch.frame().retainedDuplicate(), channel.voidPromise());
        batchesWritten++; // under the outbox lock: one writer at a time
        return WRITTEN; // a closed channel drops it; its loss requeues the batch
    }

    @Override
    public void probe(long id, int bytes) {
        probeBytes = bytes;
        channel.writeAndFlush(Frames.probe(channel.alloc(), id, bytes, maxFrameBytes), channel.voidPromise());
    }

    /**
     * What Netty holds for this channel and has not written to the socket: its pending outbound bytes
     * (writes submitted from other threads count from the moment they are submitted).
     */
    @Override
    public long queuedBytes() {
        return Math.max(0, channel.config().getWriteBufferHighWaterMark() - channel.bytesBeforeUnwritable());
    }

    long batchesWritten() {
        return batchesWritten;
    }

    int probeBytes() {
        return probeBytes;
    }

    @Override
    public String kind() {
        return "tcp";
    }

    @Override
    public String toString() {
        return "tcp route " + index + " " + channel;
    }
}
