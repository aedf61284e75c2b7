package io.jetstream.core.internal.relay;

import io.netty.buffer.ByteBuf;

/**
 * What a relay does to each frame it forwards after the relay handshake: nothing in production
 * ({@link #NONE}); tests put a faulty relay in its place (corrupting a batch, forging an
 * acknowledgement, hanging). A frame is given whole, length field first; the interceptor returns the
 * frame to forward (possibly the same one, changed in place) or null to swallow it (releasing it).
 *
 * <p>Called on the route's event loop.
 */
public interface FrameInterceptor {
    FrameInterceptor NONE = new FrameInterceptor() {};

    /** A frame from the sender, on its way to the destination. */
    default ByteBuf toDestination(ByteBuf frame) {
        return frame;
    }

    /** A frame from the destination, on its way to the sender. */
    default ByteBuf toSender(ByteBuf frame) {
        return frame;
    }
}
