package io.jetstream.core.internal.transport.netty;

import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.*;

import io.jetstream.core.internal.transport.handshake.AckAuthenticator;
import io.jetstream.core.internal.transport.handshake.Handshake;
import io.jetstream.core.internal.transport.inbound.InboundConnection;
import io.jetstream.core.internal.transport.inbound.InboundStream;
import io.jetstream.core.internal.transport.inbound.StreamRegistry;
import io.jetstream.core.internal.transport.protocol.BatchFrameReader;
import io.jetstream.core.internal.transport.protocol.ChecksumMismatchException;
import io.jetstream.core.internal.transport.protocol.FrameDecoder;
import io.jetstream.core.internal.transport.protocol.Frames;
import io.jetstream.core.internal.transport.protocol.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One accepted connection of a {@link StreamReceiver}: challenges the peer, authenticates and admits
 * its HELLO ({@link Handshake}, {@link StreamRegistry}), answers WELCOME (naming the ring when the
 * sender shares the host), then validates each BATCH whole and hands it to its stream, acknowledging
 * the watermark. Until the handshake completes the peer may send only small frames, and it must
 * complete within {@code transport.handshake-timeout-ms}. A connection that breaks the protocol is
 * told why (ERROR), logged, counted and closed; the others go on.
 *
 * <p>Threading: the handler runs on the channel's event loop; the {@link InboundConnection} methods
 * may be called from other routes' I/O threads and the ring thread (Netty hands the writes over).
 */
final class ReceiverConnection extends SimpleChannelInboundHandler<ByteBuf> implements InboundConnection {
    private static final Logger LOG = LoggerFactory.getLogger(ReceiverConnection.class);

    private final StreamReceiver receiver;
    private final byte[] nonce = Handshake.newNonce();
    private final BatchFrameReader reader;
    private volatile Channel channel;
    private InboundStream stream;
    private boolean checksum;
    /** The route of the stream this connection carries (its HELLO's), -1 before it; for messages. */
    private int route = -1;
    /** Whether the HELLO asked for authenticated acknowledgements (it came through a relay). */
    private boolean relayed;
    /** Signs this connection's ACKs when its HELLO asked for it (through a relay, with a secret); else null. */
    private volatile AckAuthenticator ackSigner;
    private boolean counted;
    private volatile String tlsSession = "";

    ReceiverConnection(StreamReceiver receiver) {
        this.receiver = receiver;
        this.reader = new BatchFrameReader(receiver.settings().maxFrameBytes());
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        if (!receiver.admitConnection()) {
            receiver.counters().onConnectionRefused();
            LOG.warn("Refusing connection from {}: transport.max-connections ({}) are open", ctx.channel().remoteAddress(),
                    receiver.settings().maxConnections());
            ctx.close();
            return;
        }
        counted = true;
        receiver.counters().onConnection();
        ctx.writeAndFlush(Frames.challenge(ctx.alloc(), nonce, receiver.hostToken()));
        ctx.executor().schedule(() -> {
            if (stream == null && ctx.channel().isActive()) {
                refuse(ctx, "no authenticated HELLO within transport.handshake-timeout-ms");
            }
        }, receiver.settings().handshakeTimeoutNanos(), TimeUnit.NANOSECONDS);
        ctx.fireChannelActive();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
        byte type = frame.getByte(frame.readerIndex());
        if (stream == null) {
            if (type == HELLO) {
                onHello(ctx, Frames.readHello(frame));
                return;
            }
            if (type == ERROR) {
                LOG.warn("Sender {} gave up the handshake: {}", ctx.channel().remoteAddress(), Frames.readError(frame));
                ctx.close();
                return;
            }
            throw new ProtocolException("expected HELLO, got " + typeName(type));
        }
        switch (type) {
            case BATCH -> {
                int bytes = frame.readableBytes();
                reader.validate(frame, checksum, receiver.knownTargets());
                receiver.counters().onReceived(bytes + LENGTH_FIELD);
                long ack = stream.onBatch(reader.sequence(), reader.count(), reader.records(), 0, reader.recordsLength(), frame,
                        frame.readerIndex());
                // One per batch: their timing is the sender's measure of the drain under backlog. The
                // flush consolidation handler makes the acknowledgements of one read burst one write.
                ctx.writeAndFlush(ackFrame(ctx.alloc(), ack), ctx.voidPromise());
                receiver.counters().onAcknowledgementSent();
            }
            case PROBE -> ctx.writeAndFlush(Frames.probeAck(ctx.alloc(), Frames.readLongBody(frame, PROBE)), ctx.voidPromise());
            case CLOSE -> stream.onClose();
            case ERROR -> {
                LOG.warn("Sender {} of {} closes: {}", ctx.channel().remoteAddress(), stream.key(), Frames.readError(frame));
                ctx.close();
            }
            default -> throw new ProtocolException("unexpected " + typeName(type) + " from a sender");
        }
    }

    private void onHello(ChannelHandlerContext ctx, Frames.Hello h) {
        boolean authenticated;
        try {
            authenticated = receiver.handshake().verifyHello(h, nonce);
        } catch (ProtocolException e) {
            receiver.counters().onAuthenticationFailure();
            throw e;
        }
        boolean sameHost = Arrays.equals(h.hostToken(), receiver.hostToken());
        String ringName = sameHost ? receiver.ringName() : null;
        StreamRegistry.Admission admission = receiver.registry().admit(h, authenticated, this, ringName != null);
        InboundStream s = admission.stream();
        stream = s;
        checksum = h.checksum();
        route = h.route();
        relayed = (h.flags() & FLAG_AUTHENTICATED_ACKS) != 0;
        if (relayed && authenticated) {
            ackSigner = new AckAuthenticator(receiver.handshake().sessionKey(h.senderNonce(), nonce));
        }
        ctx.pipeline().get(FrameDecoder.class).authenticated();
        ctx.write(receiver.handshake().welcome(ctx.alloc(), admission.watermark(), ringName != null ? ringTargetOf(s) : -1,
                ringName != null ? ringName : "", h.senderNonce(), nonce));
        long sequenceBefore = receiver.controlSequenceNow();
        ByteBuf control = receiver.welcomeControl(ctx.alloc());
        if (control != null) {
            ctx.write(control);
        }
        ctx.flush();
        receiver.onReady(ctx.channel());
        if (control != null && receiver.controlSequenceNow() != sequenceBefore + 1) {
            // a broadcast may have gone out after the welcome's control was built and before this connection joined the
            // broadcasts (a landing's new stream, missed by a reader's enumerator): send the current value again
            ByteBuf again = receiver.welcomeControl(ctx.alloc());
            if (again != null) {
                ctx.writeAndFlush(again);
            }
        }
        LOG.info("Stream {} route {}/{} accepted from {} (resumes after {}, {} delivery, {}{}{})", s.key(), h.route(), h.routes(),
                ctx.channel().remoteAddress(), admission.watermark(),
                h.durable() ? "durable" : h.acknowledged() ? "acknowledged" : "best-effort",
                authenticated ? "authenticated" : "unauthenticated", ringName != null ? ", data over ring " + ringName : "",
                tlsSession.isEmpty() ? "" : ", TLS " + tlsSession);
    }

    private static int ringTargetOf(InboundStream s) {
        return s.ringTarget();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent e) {
            if (e.isSuccess()) {
                var session = ctx.pipeline().get(SslHandler.class).engine().getSession();
                tlsSession = session.getProtocol() + " " + session.getCipherSuite();
            } else {
                LOG.warn("TLS handshake with {} failed: {}", ctx.channel().remoteAddress(), e.cause().toString());
            }
        }
        super.userEventTriggered(ctx, evt);
    }

    /** The negotiated TLS protocol and cipher suite, or "" without TLS. */
    String tlsSession() {
        return tlsSession;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (counted) {
            receiver.releaseConnection();
        }
        if (stream != null) {
            receiver.registry().onRouteClosed(stream, this);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable c = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (c instanceof ChecksumMismatchException) {
            receiver.counters().onChecksumFailure();
            refuse(ctx, c.getMessage() + " (route " + (route < 0 ? "?" : route) + " from " + ctx.channel().remoteAddress()
                    + (relayed ? ", through a relay" : "") + ")");
        } else if (c instanceof ProtocolException || cause instanceof DecoderException) {
            refuse(ctx, c instanceof ProtocolException ? c.getMessage() : c.toString());
        } else if (stream != null && !(c instanceof IOException)) {
            stream.onDeliveryFailed(c, ctx.channel().remoteAddress()); // not the connection: the stream's handler threw
            ctx.close();
        } else if (ctx.channel().isOpen()) {
            LOG.warn("Connection from {} failed: {}", ctx.channel().remoteAddress(), c.toString());
            ctx.close();
        }
    }

    private void refuse(ChannelHandlerContext ctx, String reason) {
        if (!ctx.channel().config().isAutoRead()) {
            return; // already refused
        }
        ctx.channel().config().setAutoRead(false);
        receiver.counters().onProtocolError();
        LOG.error("Closing connection from {}{}: {}", ctx.channel().remoteAddress(),
                stream == null ? "" : " (stream " + stream.key() + ")", reason);
        if (ctx.channel().isActive()) {
            ctx.writeAndFlush(Frames.error(ctx.alloc(), reason)).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private ByteBuf ackFrame(io.netty.buffer.ByteBufAllocator alloc, long watermark) {
        AckAuthenticator signer = ackSigner;
        return signer == null ? Frames.ack(alloc, watermark) : Frames.ack(alloc, watermark, signer);
    }

    // ------------------------------------------------------------------ InboundConnection

    @Override
    public void acknowledge(long watermark) {
        Channel ch = channel;
        if (ch != null && ch.isActive()) {
            ch.writeAndFlush(ackFrame(ch.alloc(), watermark), ch.voidPromise());
            receiver.counters().onAcknowledgementSent();
        }
    }

    @Override
    public void reportLatency(long nanos) {
        Channel ch = channel;
        if (ch != null && ch.isActive()) {
            ch.writeAndFlush(Frames.latency(ch.alloc(), nanos), ch.voidPromise());
        }
    }

    @Override
    public void ringFailed(long watermark, String reason) {
        Channel ch = channel;
        if (ch != null && ch.isActive()) {
            ch.writeAndFlush(Frames.ringFailed(ch.alloc(), watermark, reason), ch.voidPromise());
        }
    }

    @Override
    public void close(String reason) {
        Channel ch = channel;
        if (ch != null && ch.isActive()) {
            LOG.warn("Closing connection from {} (stream {}): {}", ch.remoteAddress(), stream == null ? "?" : stream.key(), reason);
            ch.writeAndFlush(Frames.error(ch.alloc(), reason)).addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public boolean isActive() {
        Channel ch = channel;
        return ch != null && ch.isActive();
    }
}
