package io.jetstream.core.internal.transport.netty;

import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.*;

import io.jetstream.core.api.ControlListener;
import io.jetstream.core.internal.metrics.SenderCounters;
import io.jetstream.core.internal.transport.handshake.AckAuthenticator;
import io.jetstream.core.internal.transport.handshake.Handshake;
import io.jetstream.core.internal.transport.outbound.Outbox;
import io.jetstream.core.internal.transport.outbound.RecordAccumulator;
import io.jetstream.core.internal.transport.outbound.RingRoute;
import io.jetstream.core.internal.transport.outbound.Route;
import io.jetstream.core.internal.transport.protocol.FrameDecoder;
import io.jetstream.core.internal.transport.protocol.Frames;
import io.jetstream.core.internal.transport.protocol.ProtocolException;
import io.jetstream.core.ring.RingProducer;
import io.jetstream.core.ring.RingSettings;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TCP connection of a stream to its receiver, route {@code index} of {@code count}: connects,
 * answers the receiver's challenge (HELLO), checks the receiver's WELCOME (mutual authentication with
 * a shared secret), then offers the {@link Outbox} a route — a {@link TcpRoute}, or a
 * {@link RingRoute} when the receiver shares the host and names its ring — and carries the receiver's
 * acknowledgements, control frames and probe answers back. Reconnects with exponential back-off
 * (reset by a completed handshake) until the stream closes.
 *
 * <p>One connection attempt at a time: {@link #channel} is the current attempt, made current before
 * it is even connected, and events of any earlier channel (a late close, a failed connect, a stray
 * frame) are ignored, so exactly one reconnection is scheduled per lost channel. (When the channel
 * was made current only after {@code connect} returned, a new connection could complete its
 * handshake on another event loop first, and the batches written on WELCOME went to the previous,
 * failed attempt's channel.)
 *
 * <p>Threading: the handler runs on the channel's event loop; {@link #connect} and {@link #close}
 * from any thread.
 */
final class SenderConnection {
    private static final Logger LOG = LoggerFactory.getLogger(SenderConnection.class);

    private final String stream;
    private final int index;
    private final int count;
    private final InetSocketAddress remote;
    /** The relay this route goes through, or null for a direct route. */
    private final InetSocketAddress relay;
    /** Where the connection goes: the relay, or the receiver. */
    private final InetSocketAddress connectTo;
    private final NettyTransport transport;
    private final Handshake handshake;
    private final Outbox outbox;
    private final RecordAccumulator accumulator;
    private final SenderCounters metrics;
    private final ControlListener controls;
    private final HelloFields hello;
    private final Bootstrap bootstrap;
    private final UnsafeBuffer probeScratch = new UnsafeBuffer(new byte[16]);
    /** The current connection attempt (or connection); events of any other channel are stale. */
    private volatile Channel channel;
    /** The channel whose loss has scheduled the next attempt (at most one reconnection per channel). Guarded by this. */
    private Channel reconnectScheduledFor;
    /** The route the outbox holds for this connection (TCP or ring), null until WELCOME. Event loop. */
    private volatile Route route;
    private volatile TcpRoute tcp;
    private volatile boolean sameHost;
    private volatile String tlsSession = "";
    private byte[] receiverNonce;
    private byte[] senderNonce;
    /** Relay route: the relay's CHALLENGE nonce and this side's RELAY_REQUEST nonce; null before. Event loop. */
    private byte[] relayNonce;
    private byte[] relaySenderNonce;
    /** Relay route: the relay proved the relay secret and forwards from now on. Event loop. */
    private boolean relayAccepted;
    /** Verifies the ACKs of a relay route with a stream secret (HELLO flag authenticated-acks); null otherwise. Event loop. */
    private AckAuthenticator ackVerifier;
    /** Frames read on the current channel (the route-stall check compares it between rounds). Event loop. */
    private long framesRead;
    /** Highest control sequence applied per tag (a later status is never overwritten by an earlier one). Event loop. */
    private final Map<Integer, Long> controlSequences = new HashMap<>();
    private final ReconnectBackoff backoff;
    private boolean everConnected;
    private volatile boolean closing;

    /** What this stream says in every HELLO. */
    record HelloFields(int flags, long epoch, String peerId, String streamId) {}

    SenderConnection(NettyTransport transport, String stream, int index, int count, InetSocketAddress remote, Outbox outbox,
            RecordAccumulator accumulator, SenderCounters metrics, ControlListener controls, HelloFields hello) {
        this(transport, stream, index, count, remote, null, outbox, accumulator, metrics, controls, hello);
    }

    /** A route to {@code remote} through {@code relay} (null: direct). */
    SenderConnection(NettyTransport transport, String stream, int index, int count, InetSocketAddress remote,
            InetSocketAddress relay, Outbox outbox, RecordAccumulator accumulator, SenderCounters metrics, ControlListener controls,
            HelloFields hello) {
        this.transport = transport;
        this.stream = stream;
        this.index = index;
        this.count = count;
        this.remote = remote;
        this.relay = relay;
        this.connectTo = relay != null ? relay : remote;
        if (relay != null && transport.relayAuth == null) {
            throw new IllegalStateException("stream " + stream + " route " + index + " goes through relay " + relay
                    + " but transport.relay.auth.secret-file is not set");
        }
        this.handshake = transport.handshake;
        this.outbox = outbox;
        this.accumulator = accumulator;
        this.metrics = metrics;
        this.controls = controls;
        this.hello = hello;
        this.backoff = new ReconnectBackoff(transport.settings.reconnectMinBackoffNanos(), transport.settings.reconnectMaxBackoffNanos());
        this.bootstrap = new Bootstrap()
                .group(transport.group)
                .channel(transport.channelClass)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.ALLOCATOR, transport.alloc)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
                        (int) Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(transport.settings.connectTimeoutNanos())))
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        transport.tls.client.ifPresent(ssl -> ch.pipeline().addLast(
                                ssl.newHandler(ch.alloc(), connectTo.getHostString(), connectTo.getPort())));
                        ch.pipeline().addLast(new FlushConsolidationHandler(64, true));
                        ch.pipeline().addLast(new FrameDecoder(MAX_RECEIVER_FRAME_LENGTH));
                        ch.pipeline().addLast(new Handler());
                    }
                });
    }

    /** The route this connection offers the outbox now, if its handshake completed. */
    Optional<Route> route() {
        return Optional.ofNullable(route);
    }

    boolean isReady() {
        return route != null;
    }

    boolean sameHost() {
        return sameHost;
    }

    /** The negotiated TLS protocol and cipher suite of the current connection, or "" without TLS. */
    String tlsSession() {
        return tlsSession;
    }

    void connect() {
        if (closing) {
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
            InetSocketAddress target = connectTo.isUnresolved()
                    ? new InetSocketAddress(connectTo.getHostString(), connectTo.getPort()) : connectTo;
            ch.connect(target).addListener(done -> {
                if (!done.isSuccess()) {
                    onConnectFailed(ch, done.cause());
                    return;
                }
                ch.eventLoop().schedule(() -> {
                    if ((ch != channel || route == null) && ch.isActive()) {
                        LOG.warn("Stream {} route {}: no WELCOME from {}{} within transport.handshake-timeout-ms; closing", stream,
                                index, remote, via());
                        ch.close();
                    }
                }, transport.settings.handshakeTimeoutNanos(), TimeUnit.NANOSECONDS);
            });
        });
    }

    private void onConnectFailed(Channel ch, Throwable cause) {
        metrics.onConnectFailure();
        LOG.debug("Stream {} route {}: connect to {} failed: {}", stream, index, connectTo, cause.toString());
        ch.close();
        scheduleReconnect(ch, true);
    }

    /**
     * Schedules the next attempt after {@code old} was lost, or found nothing listening
     * ({@code noListener}), unless {@code old} is stale or already handled.
     */
    private void scheduleReconnect(Channel old, boolean noListener) {
        synchronized (this) {
            if (old != channel || reconnectScheduledFor == old) {
                LOG.debug("Stream {} route {}: ignoring the loss of superseded channel {}", stream, index, old);
                return;
            }
            reconnectScheduledFor = old;
        }
        if (closing) {
            return;
        }
        long wait = noListener ? backoff.afterNoListener() : backoff.afterFailure();
        try {
            transport.group.next().schedule(this::connect, wait, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException shuttingDown) {
            LOG.debug("Stream {} route {}: not reconnecting, the transport is shutting down", stream, index);
        }
    }

    /** Tells the receiver the stream ends (CLOSE), then closes the connection. */
    void close() {
        closing = true;
        Channel ch = channel;
        if (ch != null) {
            if (route != null && ch.isActive()) {
                ch.writeAndFlush(Frames.close(ch.alloc()));
            }
            ch.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        Route r = route;
        route = null;
        if (r instanceof RingRoute ring) {
            ring.close();
        }
    }

    /** A WELCOME accepted the stream: offer the outbox a route, into the receiver's ring if it named one. */
    private void onWelcome(Channel ch, Frames.Welcome w) {
        TcpRoute tcpRoute = new TcpRoute(index, ch, transport.settings.maxFrameBytes());
        tcp = tcpRoute;
        Route offered = tcpRoute;
        Optional<RingSettings> ringSettings = transport.settings.ring();
        if (relay == null && !w.ringName().isEmpty() && sameHost && ringSettings.isPresent()) {
            try {
                RingProducer producer = RingProducer.attach(ringSettings.get(), w.ringName());
                RingRoute ring = new RingRoute(producer, w.ringTarget(), tcpRoute, metrics,
                        cause -> ch.eventLoop().execute(() -> onRingLost(ch, -1, cause.getMessage())));
                accumulator.limitFrames(ring.maxFrameBytes());
                offered = ring;
            } catch (RuntimeException e) {
                LOG.warn("Stream {} route {}: cannot attach to the receiver's ring {} ({}); data stays on TCP", stream, index,
                        w.ringName(), e.getMessage());
            }
        }
        route = offered;
        backoff.connected();
        if (everConnected) {
            metrics.onReconnect();
        }
        everConnected = true;
        scheduleStallCheck(ch, tcpRoute);
        LOG.info("Stream {} route {}/{} ready (receiver {}{} delivered up to {}, same host: {}, data over {}{})", stream, index,
                count, remote, via(), w.lastDelivered(), sameHost, offered instanceof RingRoute ? "the shared-memory ring " + w.ringName() : "TCP",
                tlsSession.isEmpty() ? "" : ", TLS " + tlsSession);
        outbox.onRouteReady(offered, w.lastDelivered());
    }

    /** A relay route with a stream secret asks for acknowledgements the relay cannot forge. */
    private boolean authenticatedAcks() {
        return relay != null && handshake.authenticates();
    }

    private String via() {
        return relay == null ? "" : " through relay " + relay;
    }

    /**
     * On a relay route, closes {@code ch} as lost when its TCP route has written batches and no frame came back for
     * {@code transport.route-stall-timeout-ms} (a hung relay or peer keeps the connection open): its
     * batches then go to the other routes. Checked on the channel's event loop at a coarse period; the
     * route's only cost per batch is its write counter.
     */
    private void scheduleStallCheck(Channel ch, TcpRoute tcpRoute) {
        long timeout = transport.settings.routeStallTimeoutNanos();
        if (timeout <= 0 || relay == null) {
            // Direct routes are left alone: a receiver whose delivery callback blocks (an engine's own
            // back-pressure, Storm's full receive queue) also sends nothing for a while, and closing its
            // route would replay (or, best-effort, drop) what it is about to deliver.
            return;
        }
        long period = Math.max(TimeUnit.MILLISECONDS.toNanos(10), Math.min(timeout / 4, TimeUnit.SECONDS.toNanos(1)));
        long[] state = {framesRead, tcpRoute.batchesWritten(), transport.nanoClock.getAsLong()}; // frames, writes answered, since
        java.util.concurrent.Future<?>[] schedule = new java.util.concurrent.Future<?>[1];
        schedule[0] = ch.eventLoop().scheduleWithFixedDelay(new Runnable() {
            @Override
            public void run() {
                if (!ch.isActive() || ch != channel) {
                    schedule[0].cancel(false);
                    return;
                }
                long now = transport.nanoClock.getAsLong();
                long written = tcpRoute.batchesWritten();
                if (framesRead != state[0] || written == state[1]) {
                    state[0] = framesRead; // progress, or nothing unanswered: the stall clock starts now
                    state[1] = written;
                    state[2] = now;
                    return;
                }
                if (now - state[2] >= timeout) {
                    metrics.onRouteStall();
                    LOG.warn("Stream {} route {} to {}{}: {} batches sent and no frame received for {} ms "
                            + "(transport.route-stall-timeout-ms); closing it as lost, its batches go to the other routes",
                            stream, index, remote, via(), written - state[1], TimeUnit.NANOSECONDS.toMillis(now - state[2]));
                    schedule[0].cancel(false);
                    ch.close();
                }
            }
        }, period, period, TimeUnit.NANOSECONDS);
    }

    /**
     * The ring route of channel {@code ch} cannot go on (the receiver said RING_FAILED, or a write
     * found the ring closed or failed): its TCP route takes its place and resends what the ring
     * carried unacknowledged. Event loop.
     */
    private void onRingLost(Channel ch, long lastDelivered, String why) {
        Route r = route;
        if (ch != channel || !(r instanceof RingRoute ring)) {
            return;
        }
        route = ring.tcp();
        accumulator.unlimitFrames();
        metrics.onRingFallback();
        LOG.warn("Stream {} route {}: the receiver's ring is gone ({}); back to TCP, resending what it did not acknowledge", stream,
                index, why);
        outbox.onRouteReplaced(ring, ring.tcp(), lastDelivered);
        ring.close();
    }

    private final class Handler extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            if (ctx.channel() != channel) {
                LOG.debug("Stream {} route {}: closing superseded channel {}", stream, index, ctx.channel());
                ctx.close();
                return;
            }
            byte type = frame.getByte(frame.readerIndex());
            framesRead++;
            if (relay != null && !relayAccepted) {
                onRelayFrame(ctx, type, frame);
                return;
            }
            switch (type) {
                case CHALLENGE -> onChallenge(ctx, Frames.readChallenge(frame));
                case WELCOME -> {
                    if (route != null || receiverNonce == null) {
                        throw new ProtocolException(route != null ? "second WELCOME" : "WELCOME before CHALLENGE");
                    }
                    Frames.Welcome w = Frames.readWelcome(frame);
                    handshake.verifyWelcome(w, senderNonce, receiverNonce);
                    ackVerifier = authenticatedAcks() ? new AckAuthenticator(handshake.sessionKey(senderNonce, receiverNonce)) : null;
                    ctx.pipeline().get(FrameDecoder.class).authenticated();
                    onWelcome(ctx.channel(), w);
                }
                case ACK -> {
                    requireReady(type);
                    outbox.onAck(ackVerifier == null ? Frames.readLongBody(frame, ACK) : verifiedAck(frame));
                }
                case LATENCY -> {
                    requireReady(type);
                    long nanos = Frames.readLongBody(frame, LATENCY);
                    if (nanos < 0) {
                        throw new ProtocolException("LATENCY of " + nanos + " ns < 0");
                    }
                    accumulator.onChannelLatency(nanos);
                }
                case PROBE_ACK -> {
                    requireReady(type);
                    TcpRoute t = tcp;
                    accumulator.onProbeAck(Frames.readLongBody(frame, PROBE_ACK), t == null ? 0 : t.probeBytes(), probeScratch);
                }
                case CONTROL -> {
                    requireReady(type);
                    Frames.ControlHeader h = Frames.readControlHeader(frame);
                    Long applied = controlSequences.get(h.tag());
                    if (applied != null && h.sequence() <= applied) {
                        return; // an older status than one applied already (it came by another route)
                    }
                    controlSequences.put(h.tag(), h.sequence());
                    byte[] payload = new byte[frame.readableBytes()]; // bounded by MAX_CONTROL_LENGTH
                    frame.readBytes(payload);
                    controls.onControl(h.tag(), new UnsafeBuffer(payload), 0, payload.length);
                }
                case RING_FAILED -> {
                    requireReady(type);
                    Frames.RingFailed f = Frames.readRingFailed(frame);
                    onRingLost(ctx.channel(), f.lastDelivered(), "the receiver reports: " + f.reason());
                }
                case ERROR -> {
                    String reason = Frames.readError(frame);
                    metrics.onRefused(reason);
                    LOG.error("Stream {} route {}: the receiver {}{} refused the connection: {}", stream, index, remote, via(),
                            reason);
                    ctx.close();
                }
                default -> throw new ProtocolException("unexpected " + typeName(type) + " from a receiver");
            }
        }

        /**
         * The relay's part of a relay route: its CHALLENGE is answered by RELAY_REQUEST, its
         * RELAY_ACCEPTED checked; an ERROR (wrong secret, destination unreachable) fails the route,
         * which retries with its back-off while the stream goes on over its other routes.
         */
        private void onRelayFrame(ChannelHandlerContext ctx, byte type, ByteBuf frame) {
            switch (type) {
                case CHALLENGE -> {
                    if (relayNonce != null) {
                        throw new ProtocolException("second CHALLENGE from relay " + relay + " before RELAY_ACCEPTED");
                    }
                    relayNonce = Frames.readChallenge(frame).nonce();
                    relaySenderNonce = Handshake.newNonce();
                    ctx.writeAndFlush(transport.relayAuth.request(ctx.alloc(), remote.getHostString(), remote.getPort(),
                            hello.peerId() + "/" + hello.streamId(), relaySenderNonce, relayNonce));
                }
                case RELAY_ACCEPTED -> {
                    if (relayNonce == null) {
                        throw new ProtocolException("RELAY_ACCEPTED before the relay's CHALLENGE");
                    }
                    if (!transport.relayAuth.verifyAccepted(Frames.readRelayAccepted(frame), relaySenderNonce, relayNonce)) {
                        metrics.onRelayFailure();
                        throw new ProtocolException("relay " + relay + " did not prove the relay secret "
                                + "(transport.relay.auth.secret-file differs): not forwarding through it");
                    }
                    relayAccepted = true; // from now on the receiver speaks, through the relay
                }
                case ERROR -> {
                    metrics.onRelayFailure();
                    LOG.warn("Stream {} route {}: relay {} does not forward to {}: {}; retrying with back-off, the stream goes "
                            + "on over its other routes", stream, index, relay, remote, Frames.readError(frame));
                    ctx.close();
                }
                default -> throw new ProtocolException("unexpected " + typeName(type) + " from relay " + relay
                        + " before RELAY_ACCEPTED");
            }
        }

        private void onChallenge(ChannelHandlerContext ctx, Frames.Challenge c) {
            if (receiverNonce != null) {
                throw new ProtocolException("second CHALLENGE");
            }
            receiverNonce = c.nonce();
            senderNonce = Handshake.newNonce();
            // Never the ring through a relay: the relay may share this host, the receiver does not.
            sameHost = relay == null && Arrays.equals(c.hostToken(), transport.hostToken);
            ctx.writeAndFlush(handshake.hello(ctx.alloc(), hello.flags() | (authenticatedAcks() ? FLAG_AUTHENTICATED_ACKS : 0),
                    hello.epoch(), outbox.beginHandshake(index), index, count,
                    hello.peerId(), hello.streamId(), transport.hostToken, senderNonce, receiverNonce));
        }

        /** The watermark of an authenticated ACK, whose MAC a relay cannot forge. */
        private long verifiedAck(ByteBuf frame) {
            if (frame.readableBytes() != 1 + 8 + ACK_MAC_LENGTH) {
                metrics.onRelayFailure();
                throw new ProtocolException("ACK of " + frame.readableBytes() + " B through relay " + relay + "; an authenticated "
                        + "ACK has " + (1 + 8 + ACK_MAC_LENGTH));
            }
            long watermark = frame.getLong(frame.readerIndex() + 1);
            if (!ackVerifier.verify(watermark, frame, frame.readerIndex() + 1 + 8)) {
                metrics.onRelayFailure();
                throw new ProtocolException("ACK " + watermark + " through relay " + relay + " fails its MAC: forged or altered "
                        + "on the way; closing the route");
            }
            return watermark;
        }

        private void requireReady(byte type) {
            if (route == null) {
                throw new ProtocolException(typeName(type) + " before WELCOME");
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof SslHandshakeCompletionEvent e) {
                if (e.isSuccess()) {
                    var session = ctx.pipeline().get(SslHandler.class).engine().getSession();
                    tlsSession = session.getProtocol() + " " + session.getCipherSuite();
                } else {
                    metrics.onConnectFailure();
                    LOG.error("Stream {} route {}: TLS handshake with {} failed ({}); check transport.tls.trust-store against the "
                            + "receiver's certificate", stream, index, remote, e.cause().toString());
                }
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (ctx.channel() != channel) {
                return; // a superseded attempt: the current one owns the route's state
            }
            Route lost = route;
            route = null;
            tcp = null;
            receiverNonce = null;
            relayNonce = null;
            relayAccepted = false;
            controlSequences.clear();
            if (lost != null) {
                LOG.warn("Stream {} route {}: connection to {}{} lost", stream, index, remote, via());
            }
            outbox.onRouteLost(index, lost);
            if (lost instanceof RingRoute ring) {
                accumulator.unlimitFrames();
                ring.close();
            }
            scheduleReconnect(ctx.channel(), false);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            Throwable c = cause.getCause() instanceof ProtocolException ? cause.getCause() : cause;
            if (c instanceof ProtocolException) {
                LOG.error("Stream {} route {}: protocol error from {}{}, closing: {}", stream, index, ctx.channel().remoteAddress(),
                        relay != null ? " (relay " + relay + " to " + remote + ")" : "", c.getMessage());
            } else if (ctx.channel().isOpen()) {
                LOG.warn("Stream {} route {}: {}; closing", stream, index, c.toString());
            }
            ctx.close();
        }
    }
}
