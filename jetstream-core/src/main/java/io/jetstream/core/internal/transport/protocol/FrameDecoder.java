package io.jetstream.core.internal.transport.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Cuts the byte stream into frames of {@code [type][body]} (length field stripped), refusing any
 * length below one byte or above the current limit before a byte of the frame is buffered: the
 * cumulation never grows past the limit + 4 bytes, whatever a peer claims. The limit starts at
 * {@link ProtocolDescriptor#PRE_AUTH_MAX_FRAME_LENGTH}, enough for the handshake, and is raised by
 * {@link #authenticated} once the handshake has accepted the peer: an unauthenticated peer cannot
 * make this side buffer a large frame.
 *
 * <p>Emits retained slices of the cumulation (no copy); the next handler releases them. One
 * instance per channel (not sharable), called on the channel's event loop.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
    private final int maxFrameLength;
    private int limit = ProtocolDescriptor.PRE_AUTH_MAX_FRAME_LENGTH;
    private String limitName = "before the handshake";

    /** @param maxFrameLength the limit after the handshake ({@code transport.max-frame-bytes} on a receiver) */
    public FrameDecoder(int maxFrameLength) {
        if (maxFrameLength < ProtocolDescriptor.MIN_MAX_FRAME_LENGTH) {
            throw new IllegalArgumentException("max frame length " + maxFrameLength + " < "
                    + ProtocolDescriptor.MIN_MAX_FRAME_LENGTH);
        }
        this.maxFrameLength = maxFrameLength;
    }

    /** The handshake accepted the peer: frames up to the configured maximum are allowed from now. Event loop. */
    public void authenticated() {
        limit = maxFrameLength;
        limitName = "(transport.max-frame-bytes)";
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (in.readableBytes() >= ProtocolDescriptor.LENGTH_FIELD) {
            int length = in.getInt(in.readerIndex());
            if (length < ProtocolDescriptor.TYPE_FIELD || length > limit) {
                // Stop reading this connection: nothing after a bad length can be framed.
                in.skipBytes(in.readableBytes());
                throw new ProtocolException("frame length " + length + " outside [1, " + limit + "] " + limitName);
            }
            if (in.readableBytes() < ProtocolDescriptor.LENGTH_FIELD + length) {
                return;
            }
            in.skipBytes(ProtocolDescriptor.LENGTH_FIELD);
            out.add(in.readRetainedSlice(length));
        }
    }
}
