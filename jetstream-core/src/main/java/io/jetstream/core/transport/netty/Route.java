package io.jetstream.core.transport.netty;

import static io.jetstream.core.transport.protocol.ProtocolDescriptor.*;

import io.jetstream.core.ring.RingClosedException;
import io.jetstream.core.ring.RingFileException;
import io.jetstream.core.ring.RingProducer;
import io.jetstream.core.transport.protocol.FrameDecoder;
import io.jetstream.core.transport.protocol.Frames;
import io.jetstream.core.transport.protocol.ProtocolException;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection of a {@link StreamSender} to its receiver: connects, answers the receiver's
 * challenge, and after WELCOME carries batches; reconnects with exponential back-off (reset by a
 * completed handshake) until the stream closes.
 *
 * <p>One connection attempt at a time: {@link #channel} is the current attempt, made current before
 * it is even connected, and events of any earlier channel (a late close, a failed connect, a stray
 * frame) are ignored, so exactly one reconnection is scheduled per lost channel. An attempt runs on
 * any event loop of the group: when {@link #channel} was set only after {@code connect} returned,
 * the new connection could complete its handshake on another event loop first, and the batches
 * written on WELCOME went to the previous, failed attempt's channel and were lost (seen as a receiver
 * holding every later batch behind the missing ones until the sender gave up).
 *
 * <p>Threading: its channel handler runs on the channel's event loop; {@link #write} and
 * {@link #isReady} are called by the sender under its outbox lock from any thread.
 */
final class Route {
    private static final Logger LOG = LoggerFactory.getLogger(Route.class);

    final StreamSender sender;
    final int index;
    final int count;
    final InetSocketAddress remote;
    private final Bootstrap bootstrap;
    private final UnsafeBuffer probeScratch = new UnsafeBuffer(new byte[16]);
    /** The current connection attempt (or connection); events of any other channel are stale. */
    private volatile Channel channel;
    /** The channel whose loss has scheduled the next attempt (at most one reconnection per channel). */
    private Channel reconnectScheduledFor;
    private volatile boolean ready;
    /** Wire size of the probe in flight (one at a time per route; a later one replaces it). */
    private volatile int probeBytes;
    /** The receiver's ring when it shares our host; guarded by the sender's outbox lock. */
    private volatile RingProducer ring;
    private int ringTarget;
    private long ringBatches;
    volatile boolean sameHost;
    /** HELLO sent, WELCOME not yet received. Guarded by the sender's outbox lock. */
    boolean handshaking;
    private long backoffNanos;
    private boolean everConnected;

    Route(StreamSender sender, int index, int count, InetSocketAddress remote) {
        this.sender = sender;
        this.remote = remote;
        this.index = index;
        this.count = count;
        NettyTransport t = sender.transport;
        this.backoffNanos = t.settings.reconnectMinBackoffNanos();
        this.bootstrap = new Bootstrap()
                .group(t.group)
                .channel(t.channelClass)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.ALLOCATOR, t.alloc)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
                        (int) Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(t.settings.connectTimeoutNanos())))
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        t.tls.client.ifPresent(ssl -> ch.pipeline().addLast(
                                ssl.newHandler(ch.alloc(), remote.getHostString(), remote.getPort())));
                        ch.pipeline().addLast(new FlushConsolidationHandler(64, true));
                        ch.pipeline().addLast(new FrameDecoder(t.settings.maxFrameBytes()));
                        ch.pipeline().addLast(new Handler());
                    }
                });
    }

    boolean isReady() {
        return ready;
    }

    void connect() {
        if (sender.isClosing()) {
            return;
        }
        // Register first and make the channel current before it can connect: its first frame may be
        // read on another event loop at once, and must not be taken for a superseded channel's.
        ChannelFuture registered = bootstrap.register();
        Channel ch = registered.channel();
        channel = ch;
        registered.addListener(r -> {
            if (!r.isSuccess()) {
                onConnectFailed(ch, r.cause());
                return;
            }
            InetSocketAddress target = remote.isUnresolved() ? new InetSocketAddress(remote.getHostString(), remote.getPort()) : remote;
            ch.connect(target).addListener(done -> {
                if (!done.isSuccess()) {
                    onConnectFailed(ch, done.cause());
                    return;
                }
                ch.eventLoop().schedule(() -> {
                    if ((ch != channel || !ready) && ch.isActive()) {
                        LOG.warn("Stream {} route {}: no handshake within transport.connect-timeout-ms; closing", sender, index);
                        ch.close();
                    }
                }, sender.settings.connectTimeoutNanos(), TimeUnit.NANOSECONDS);
            });
        });
    }

    private void onConnectFailed(Channel ch, Throwable cause) {
        sender.metrics().onConnectFailure();
        LOG.debug("Stream {} route {}: connect failed: {}", sender, index, cause.toString());
        ch.close();
        scheduleReconnect(ch);
    }

    /** Schedules the next attempt after {@code old} was lost, unless {@code old} is stale or already handled. */
    private void scheduleReconnect(Channel old) {
        synchronized (this) {
            if (old != channel || reconnectScheduledFor == old) {
                LOG.debug("Stream {} route {}: ignoring the loss of superseded channel {}", sender, index, old);
                return;
            }
            reconnectScheduledFor = old;
        }
        if (sender.isClosing()) {
            return;
        }
        long wait = backoffNanos;
        backoffNanos = Math.min(sender.settings.reconnectMaxBackoffNanos(), backoffNanos * 2);
        try {
            sender.transport.group.next().schedule(this::connect, wait, TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException shuttingDown) {
            LOG.debug("Stream {} route {}: not reconnecting, the transport is shutting down", sender, index);
        }
    }

    /**
     * Sends a sealed frame: into the receiver's ring when this route has one and the frame fits a
     * ring record, else over TCP. Returns false if the ring is full (the frame is released; the
     * sender keeps its batch and retries). Called under the sender's outbox lock, which also makes
     * the ring producer's one-thread-at-a-time rule hold.
     */
    boolean write(ByteBuf frame) {
        RingProducer p = ring;
        int length = frame.readableBytes();
        if (p != null && length <= p.maxRecordLength()) {
            try {
                int index = p.tryClaim(ringTarget, length);
                if (index < 0) {
                    frame.release();
                    return false;
                }
                java.nio.ByteBuffer src = frame.nioBuffer();
                p.buffer().putBytes(index, src, src.position(), length);
                p.commit();
                frame.release();
                ringBatches++;
                return true;
            } catch (RingClosedException | RingFileException e) {
                LOG.warn("Stream {} route {}: the receiver's ring is gone ({}); back to TCP", sender, index, e.getMessage());
                detachRing();
            }
        }
        Channel ch = channel;
        if (ch == null) {
            frame.release();
            return true;
        }
        ch.writeAndFlush(frame, ch.voidPromise());
        return true;
    }

    private void attachRing(Frames.Welcome w) {
        detachRing();
        if (w.ringName().isEmpty() || !sameHost || sender.settings.ring().isEmpty()) {
            return;
        }
        try {
            ring = RingProducer.attach(sender.settings.ring().get(), w.ringName());
            ringTarget = w.ringTarget();
            sender.onRingAttached(ring.maxRecordLength());
        } catch (RuntimeException e) {
            LOG.warn("Stream {} route {}: cannot attach to the receiver's ring {} ({}); data stays on TCP", sender, index,
                    w.ringName(), e.getMessage());
        }
    }

    /** Lock held (or the route is closing). */
    void detachRing() {
        RingProducer p = ring;
        ring = null;
        if (p != null) {
            p.close();
        }
    }

    /** Batches this route wrote into the shared-memory ring. */
    long ringBatches() {
        return ringBatches;
    }

    boolean usesRing() {
        return ring != null;
    }

    void sendProbe(long id, int bytes) {
        Channel ch = channel;
        if (ch != null && ready) {
            probeBytes = bytes;
            ch.writeAndFlush(Frames.probe(ch.alloc(), id, bytes, sender.settings.maxFrameBytes()), ch.voidPromise());
        }
    }

    void close() {
        Channel ch = channel;
        ready = false;
        detachRing();
        if (ch != null) {
            ch.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
    }

    private final class Handler extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            if (ctx.channel() != channel) {
                LOG.debug("Stream {} route {}: closing superseded channel {}", sender, index, ctx.channel());
                ctx.close();
                return;
            }
            byte type = frame.getByte(frame.readerIndex());
            switch (type) {
                case CHALLENGE -> onChallenge(ctx, Frames.readChallenge(frame));
                case WELCOME -> {
                    if (ready) {
                        throw new ProtocolException("second WELCOME");
                    }
                    Frames.Welcome w = Frames.readWelcome(frame);
                    long lastDelivered = w.lastDelivered();
                    attachRing(w);
                    ready = true;
                    backoffNanos = sender.settings.reconnectMinBackoffNanos();
                    if (everConnected) {
                        sender.metrics().onReconnect();
                    }
                    everConnected = true;
                    LOG.info("Stream {} route {}/{} ready (receiver delivered up to {}, same host: {}, data over {})", sender,
                            index, count, lastDelivered, sameHost, ring != null ? "the shared-memory ring " + w.ringName() : "TCP");
                    sender.onRouteReady(Route.this, lastDelivered);
                }
                case ACK -> {
                    requireReady(type);
                    sender.onAck(Frames.readLongBody(frame, ACK));
                }
                case LATENCY -> {
                    requireReady(type);
                    long nanos = Frames.readLongBody(frame, LATENCY);
                    if (nanos < 0) {
                        throw new ProtocolException("LATENCY of " + nanos + " ns < 0");
                    }
                    sender.onChannelLatency(nanos);
                }
                case PROBE_ACK -> {
                    requireReady(type);
                    sender.onProbeAck(Frames.readLongBody(frame, PROBE_ACK), probeBytes, probeScratch);
                }
                case CONTROL -> {
                    requireReady(type);
                    int tag = Frames.readControlHeader(frame);
                    byte[] payload = new byte[frame.readableBytes()]; // bounded by MAX_CONTROL_LENGTH
                    frame.readBytes(payload);
                    sender.controls.onControl(tag, new UnsafeBuffer(payload), 0, payload.length);
                }
                case ERROR -> {
                    LOG.error("Stream {} route {}: the receiver refused the connection: {}", sender, index,
                            Frames.readError(frame));
                    ctx.close();
                }
                default -> throw new ProtocolException("unexpected " + typeName(type) + " from a receiver");
            }
        }

        private void onChallenge(ChannelHandlerContext ctx, Frames.Challenge c) {
            NettyTransport t = sender.transport;
            sameHost = Arrays.equals(c.hostToken(), t.hostToken);
            int flags = (sender.settings.checksum() ? FLAG_CHECKSUM : 0)
                    | (sender.settings.reliability() == io.jetstream.core.transport.TransportOptions.Reliability.ACKNOWLEDGED
                            ? FLAG_ACKNOWLEDGED : 0);
            byte[] mac = t.secret == null ? new byte[0] : t.secret.mac(c.nonce(), t.peerId, sender.streamId);
            ctx.writeAndFlush(Frames.hello(ctx.alloc(), new Frames.Hello(flags, sender.epoch, sender.beginHandshake(Route.this),
                    index, count, t.peerId, sender.streamId, t.hostToken, mac)));
        }

        private void requireReady(byte type) {
            if (!ready) {
                throw new ProtocolException(typeName(type) + " before WELCOME");
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (ctx.channel() != channel) {
                return; // a superseded attempt: the current one owns the route's state
            }
            boolean wasReady = ready;
            ready = false;
            sender.detachRing(Route.this);
            if (wasReady) {
                LOG.warn("Stream {} route {}: connection lost", sender, index);
            }
            sender.onRouteLost(Route.this);
            scheduleReconnect(ctx.channel());
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            Throwable c = cause.getCause() instanceof ProtocolException ? cause.getCause() : cause;
            if (c instanceof ProtocolException) {
                LOG.error("Stream {} route {}: protocol error from {}, closing: {}", sender, index, ctx.channel().remoteAddress(),
                        c.getMessage());
            } else if (ctx.channel().isOpen()) {
                LOG.warn("Stream {} route {}: {}; closing", sender, index, c.toString());
            }
            ctx.close();
        }
    }
}
