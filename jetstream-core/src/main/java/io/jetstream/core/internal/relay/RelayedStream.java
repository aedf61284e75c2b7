package io.jetstream.core.internal.relay;

import io.jetstream.core.internal.transport.protocol.Frames;
import io.jetstream.core.internal.transport.protocol.ProtocolException;
import io.jetstream.core.api.RelayStreamStats;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.time.Instant;

/**
 * One route a relay carries: the sender's connection and the destination's, both on one event loop,
 * each frame read on one side written unchanged to the other (Netty's proxy pattern). Memory is
 * bounded per direction: when the side written to goes over its high-water mark
 * ({@code relay.stream-memory-bytes}) the relay stops reading the other side, and reads again once
 * it drains; TCP pushes back on whoever sends too fast. Closing either side closes the other at once
 * (the receiver handles a lost route).
 *
 * <p>Threading: the handlers run on the pair's event loop; {@link #stats} from any thread.
 */
final class RelayedStream {
    private final String label;
    private final Channel source;
    private final Channel destination;
    private final InetSocketAddress destinationAddress;
    private final FrameInterceptor interceptor;
    private final long connectMicros;
    private final Instant connectedSince = Instant.now();
    /** Written on the event loop, read by stats. */
    private volatile long bytesIn;
    private volatile long bytesOut;
    private volatile long bytesBack;

    RelayedStream(String label, Channel source, Channel destination, InetSocketAddress destinationAddress,
            FrameInterceptor interceptor, long connectMicros) {
        this.label = label;
        this.source = source;
        this.destination = destination;
        this.destinationAddress = destinationAddress;
        this.interceptor = interceptor;
        this.connectMicros = connectMicros;
    }

    /** Installs the forwarding handlers on both channels (the source's last, replacing its handshake). Event loop. */
    void start() {
        destination.pipeline().addLast("forward", new Forwarder(destination, source, false));
        source.pipeline().addLast("forward", new Forwarder(source, destination, true));
        source.config().setAutoRead(true);
        destination.config().setAutoRead(true);
    }

    Channel source() {
        return source;
    }

    void close() {
        source.close();
        destination.close();
    }

    RelayStreamStats stats() {
        long rtt = connectMicros;
        if (destination instanceof EpollSocketChannel epoll && epoll.isActive()) {
            try {
                rtt = epoll.tcpInfo().rtt();
            } catch (RuntimeException closedMeanwhile) {
                // keep the connect time
            }
        }
        return new RelayStreamStats(label, (InetSocketAddress) source.remoteAddress(), destinationAddress, bytesIn, bytesOut,
                pending(source) + pending(destination), rtt, connectedSince);
    }

    long bytesBack() {
        return bytesBack;
    }

    private static long pending(Channel ch) {
        ChannelOutboundBuffer b = ch.unsafe().outboundBuffer();
        return b == null ? 0 : b.totalPendingWriteBytes();
    }

    /** Reads frames on {@code self}, writes them to {@code other}; resumes reading {@code other} when {@code self} drains. */
    private final class Forwarder extends ChannelInboundHandlerAdapter {
        private final Channel self;
        private final Channel other;
        private final boolean fromSender;

        Forwarder(Channel self, Channel other, boolean fromSender) {
            this.self = self;
            this.other = other;
            this.fromSender = fromSender;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf frame = (ByteBuf) msg;
            int bytes = frame.readableBytes();
            if (fromSender) {
                bytesIn += bytes;
                frame = interceptor.toDestination(frame);
            } else {
                frame = interceptor.toSender(frame);
            }
            if (frame == null) {
                return;
            }
            if (!other.isActive()) {
                ReferenceCountUtil.release(frame);
                return;
            }
            if (fromSender) {
                bytesOut += bytes;
            } else {
                bytesBack += bytes;
            }
            other.write(frame, other.voidPromise());
            if (!other.isWritable()) {
                self.config().setAutoRead(false); // back-pressure: read again when other drains
                other.flush();
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            other.flush();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (self.isWritable()) {
                other.config().setAutoRead(true);
            }
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            other.close();
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            Throwable c = cause.getCause() instanceof ProtocolException ? cause.getCause() : cause;
            RelayServer.LOG.warn("Relayed stream {} ({} side): {}; closing both sides", label, fromSender ? "sender" : "destination",
                    c.toString());
            if (fromSender && c instanceof ProtocolException && self.isActive()) {
                // Tell the sender why its route ends (it logs the relay's ERROR), then close.
                self.writeAndFlush(Frames.error(self.alloc(), "relay: " + c.getMessage())).addListener(f -> self.close());
            } else {
                self.close();
            }
            other.close();
        }
    }
}
