package io.jetstream.core.transport.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Cuts the byte stream into frames of {@code [type][body]} (length field stripped), refusing any
 * length below one byte or above the configured maximum before a byte of the frame is buffered: the
 * cumulation never grows past {@code maxFrameLength} + 4 bytes, whatever a peer claims.
 *
 * <p>Emits retained slices of the cumulation (no copy); the next handler releases them. One
 * instance per channel (not sharable), called on the channel's event loop.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
    private final int maxFrameLength;

    public FrameDecoder(int maxFrameLength) {
        if (maxFrameLength < ProtocolDescriptor.MIN_MAX_FRAME_LENGTH) {
            throw new IllegalArgumentException("max frame length " + maxFrameLength + " < "
                    + ProtocolDescriptor.MIN_MAX_FRAME_LENGTH);
        }
        this.maxFrameLength = maxFrameLength;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (in.readableBytes() >= ProtocolDescriptor.LENGTH_FIELD) {
            int length = in.getInt(in.readerIndex());
            if (length < ProtocolDescriptor.TYPE_FIELD || length > maxFrameLength) {
                // Stop reading this connection: nothing after a bad length can be framed.
                in.skipBytes(in.readableBytes());
                throw new ProtocolException("frame length " + length + " outside [1, " + maxFrameLength
                        + "] (transport.max-frame-bytes)");
            }
            if (in.readableBytes() < ProtocolDescriptor.LENGTH_FIELD + length) {
                return;
            }
            in.skipBytes(ProtocolDescriptor.LENGTH_FIELD);
            out.add(in.readRetainedSlice(length));
        }
    }
}
