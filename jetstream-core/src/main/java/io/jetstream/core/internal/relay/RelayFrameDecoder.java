package io.jetstream.core.internal.relay;

import io.jetstream.core.internal.transport.protocol.ProtocolDescriptor;
import io.jetstream.core.internal.transport.protocol.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Cuts a relayed byte stream into whole frames, length field included, so the relay writes each
 * one to the other side as it came. A length below one byte or above the current limit is refused
 * before a byte of the frame is buffered: {@link ProtocolDescriptor#PRE_AUTH_MAX_FRAME_LENGTH} until
 * the relay handshake accepted the sender ({@link #raiseLimit}), {@code relay.max-frame-bytes} after.
 *
 * <p>Emits retained slices of the cumulation (no copy). One instance per channel, event loop.
 */
final class RelayFrameDecoder extends ByteToMessageDecoder {
    private int limit = ProtocolDescriptor.PRE_AUTH_MAX_FRAME_LENGTH;

    RelayFrameDecoder() {}

    RelayFrameDecoder(int limit) {
        this.limit = limit;
    }

    void raiseLimit(int maxFrameBytes) {
        limit = maxFrameBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (in.readableBytes() >= ProtocolDescriptor.LENGTH_FIELD) {
            int length = in.getInt(in.readerIndex());
            if (length < ProtocolDescriptor.TYPE_FIELD || length > limit) {
                in.skipBytes(in.readableBytes());
                throw new ProtocolException("frame length " + length + " outside [1, " + limit + "] at the relay");
            }
            if (in.readableBytes() < ProtocolDescriptor.LENGTH_FIELD + length) {
                return;
            }
            out.add(in.readRetainedSlice(ProtocolDescriptor.LENGTH_FIELD + length));
        }
    }
}
