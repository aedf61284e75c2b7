package io.jetstream.core.internal.relay;

import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.*;

import io.jetstream.core.internal.transport.handshake.Handshake;
import io.jetstream.core.internal.transport.handshake.HostIdentity;
import io.jetstream.core.internal.transport.protocol.Frames;
import io.jetstream.core.internal.transport.protocol.ProtocolException;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.DecoderException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The relay's side of a sender's connection until it forwards: sends CHALLENGE, checks the
 * RELAY_REQUEST's MAC (constant time) against the relay secret, connects the destination it names
 * (on the same event loop), answers RELAY_ACCEPTED and hands both channels to a {@link RelayedStream}.
 * A wrong secret is {@code authentication failed at relay …}, an unreachable destination
 * {@code relay … cannot reach …}: either is an ERROR to the sender, a log line, a count, and the
 * connection closed. Nothing but a CHALLENGE is sent and at most 4 KiB buffered before the sender
 * proved the secret.
 *
 * <p>One instance per accepted channel, on its event loop.
 */
final class RelayHandshake extends SimpleChannelInboundHandler<ByteBuf> {
    private final RelayServer server;
    private final byte[] nonce = Handshake.newNonce();
    private boolean requested;

    RelayHandshake(RelayServer server) {
        this.server = server;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.writeAndFlush(Frames.challenge(ctx.alloc(), nonce, HostIdentity.THIS_HOST));
        ctx.executor().schedule(() -> {
            if (ctx.pipeline().get(RelayHandshake.class) != null && ctx.channel().isActive()) {
                refuse(ctx, "no authenticated RELAY_REQUEST within relay.handshake-timeout-ms");
            }
        }, server.settings().handshakeTimeoutNanos(), TimeUnit.NANOSECONDS);
        ctx.fireChannelActive();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
        if (requested) {
            throw new ProtocolException("a frame before RELAY_ACCEPTED");
        }
        frame.skipBytes(LENGTH_FIELD);
        byte type = frame.getByte(frame.readerIndex());
        if (type != RELAY_REQUEST) {
            throw new ProtocolException("expected RELAY_REQUEST, got " + typeName(type) + " (is this sender pointed at a relay "
                    + "as if it were a receiver?)");
        }
        Frames.RelayRequest request = Frames.readRelayRequest(frame);
        if (!server.authentication().verifyRequest(request, nonce)) {
            server.onAuthenticationFailure();
            refuse(ctx, "authentication failed at relay " + server.localAddress() + " (transport.relay.auth.secret-file "
                    + "differs from relay.auth.secret-file)");
            return;
        }
        requested = true;
        ctx.channel().config().setAutoRead(false); // nothing more until the destination is connected
        connect(ctx, request);
    }

    private void connect(ChannelHandlerContext ctx, Frames.RelayRequest request) {
        Channel source = ctx.channel();
        InetSocketAddress destination = new InetSocketAddress(request.host(), request.port());
        int memory = (int) Math.min(Integer.MAX_VALUE, server.settings().streamMemoryBytes());
        long started = System.nanoTime();
        Bootstrap b = new Bootstrap()
                .group(source.eventLoop())
                .channel(server.io().channelClass())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(memory / 2, memory))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
                        (int) Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(server.settings().connectTimeoutNanos())))
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        server.tls().client.ifPresent(ssl -> ch.pipeline().addLast(
                                ssl.newHandler(ch.alloc(), request.host(), request.port())));
                        ch.pipeline().addLast(new RelayFrameDecoder(Math.max(server.settings().maxFrameBytes(),
                                MAX_RECEIVER_FRAME_LENGTH)));
                    }
                });
        b.connect(destination).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                server.onUnreachable();
                Throwable cause = f.cause();
                refuse(ctx, "relay " + server.localAddress() + " cannot reach " + destination + ": " + cause);
                return;
            }
            if (!source.isActive()) {
                f.channel().close();
                return;
            }
            long connectMicros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - started);
            RelayedStream stream = new RelayedStream(request.label(), source, f.channel(), destination, server.interceptor(),
                    connectMicros);
            source.pipeline().get(RelayFrameDecoder.class).raiseLimit(server.settings().maxFrameBytes());
            source.writeAndFlush(server.authentication().accepted(source.alloc(), request.senderNonce(), nonce));
            source.pipeline().remove(this);
            server.onForwarding(stream);
            stream.start();
        });
    }

    private void refuse(ChannelHandlerContext ctx, String reason) {
        if (reason.startsWith("authentication") || reason.startsWith("relay ")) {
            RelayServer.LOG.warn("Relay: refusing {}: {}", ctx.channel().remoteAddress(), reason);
        } else {
            RelayServer.LOG.warn("Relay: closing {}: {}", ctx.channel().remoteAddress(), reason);
        }
        ctx.channel().config().setAutoRead(false);
        if (ctx.channel().isActive()) {
            ctx.writeAndFlush(Frames.error(ctx.alloc(), reason)).addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable c = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (c instanceof ProtocolException) {
            refuse(ctx, c.getMessage());
        } else {
            RelayServer.LOG.debug("Relay: connection from {} failed: {}", ctx.channel().remoteAddress(), c.toString());
            ctx.close();
        }
    }
}
