package io.jetstream.core.transport.netty;

import static io.jetstream.core.transport.protocol.ProtocolDescriptor.*;

import io.jetstream.core.ring.RingConsumer;
import io.jetstream.core.ring.RingSettings;
import io.jetstream.core.transport.DeliveryHandler;
import io.jetstream.core.transport.ReceiverMetrics;
import io.jetstream.core.transport.SequenceStore;
import io.jetstream.core.transport.StreamKey;
import io.jetstream.core.transport.TransportOptions.Ordering;
import io.jetstream.core.transport.protocol.BatchFrameReader;
import io.jetstream.core.transport.protocol.FrameDecoder;
import io.jetstream.core.transport.protocol.Frames;
import io.jetstream.core.transport.protocol.ProtocolException;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving end: accepts connections, challenges each (nonce, host token), checks the HELLO
 * (version, shared secret), then validates every BATCH as a whole (lengths, targets, checksum)
 * before its stream delivers it in order and acknowledges it. A connection that breaks the
 * protocol is told why (ERROR frame), logged, counted and closed; the others go on.
 *
 * <p>Thread-safe. Connections run on the transport's I/O threads; {@link #broadcast} and
 * {@link #setOrdering} may be called from any thread.
 */
public final class StreamReceiver implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StreamReceiver.class);
    private static final SecureRandom NONCES = new SecureRandom();
    /** Most streams one receiver tracks (each HELLO with a new peer and stream id adds one). */
    static final int MAX_STREAMS = 65_536;

    private final NettyTransport transport;
    private final DeliveryHandler handler;
    private final IntPredicate knownTargets;
    private final SequenceStore store;
    private final ReceiverMetrics metrics = new ReceiverMetrics();
    private final ChannelGroup ready = new DefaultChannelGroup("jetstream-receiver", GlobalEventExecutor.INSTANCE);
    private final ChannelGroup all = new DefaultChannelGroup("jetstream-receiver-all", GlobalEventExecutor.INSTANCE);
    private final Map<StreamKey, InboundStream> streams = new ConcurrentHashMap<>();
    private final Map<Integer, InboundStream> ringStreams = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicInteger nextRingTarget = new java.util.concurrent.atomic.AtomicInteger();
    private RingConsumer ring;
    private String ringName;
    private Thread ringThread;
    private volatile boolean running = true;
    private volatile Ordering ordering;
    private volatile Supplier<ByteBuf> welcomeControl;
    private Channel server;

    /** Not bound: {@link #bind} or {@link #connectionInitializer} next. */
    StreamReceiver(NettyTransport transport, DeliveryHandler handler, IntPredicate knownTargets, SequenceStore store) {
        this.transport = transport;
        this.handler = handler;
        this.knownTargets = knownTargets;
        this.store = store;
        this.ordering = transport.settings.ordering();
    }

    /** The pipeline of an accepted connection (also used by tests on an EmbeddedChannel). */
    ChannelInitializer<Channel> connectionInitializer() {
        return new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                all.add(ch);
                transport.tls.server.ifPresent(ssl -> ch.pipeline().addLast(ssl.newHandler(ch.alloc())));
                ch.pipeline().addLast(new FlushConsolidationHandler(64, true));
                ch.pipeline().addLast(new FrameDecoder(transport.settings.maxFrameBytes()));
                ch.pipeline().addLast(new Connection());
            }
        };
    }

    void bind(InetSocketAddress address) throws InterruptedException {
        ServerBootstrap b = new ServerBootstrap()
                .group(transport.group)
                .channel(transport.serverChannelClass)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(ChannelOption.ALLOCATOR, transport.alloc)
                .childHandler(connectionInitializer());
        if (transport.settings.tls().isPresent() && transport.tls.server.isEmpty()) {
            throw new IllegalStateException("TLS is enabled but transport.tls.key-store is not set: a receiver needs it");
        }
        server = b.bind(address).sync().channel();
        LOG.info("JetStream receiver {} listening on {}", transport.peerId, server.localAddress());
        if (transport.settings.ring().isPresent()) {
            openRing(transport.settings.ring().get());
        }
    }

    /**
     * Creates this receiver's shared-memory ring, which senders on this host write their batches to
     * (named in WELCOME), and the thread that consumes it. If the ring cannot be created, senders
     * stay on TCP.
     */
    private void openRing(RingSettings settings) {
        String name = "rx-" + transport.peerId.replaceAll("[^A-Za-z0-9._-]", "_") + "-" + localAddress().getPort();
        try {
            ring = RingConsumer.create(settings, name);
        } catch (RuntimeException e) {
            LOG.warn("JetStream receiver {}: no shared-memory ring ({}); same-host senders use TCP", transport.peerId,
                    e.getMessage());
            return;
        }
        ringName = name;
        BatchFrameReader ringReader = new BatchFrameReader(transport.settings.maxFrameBytes());
        ringThread = new Thread(() -> {
            ByteBuf scratch = transport.alloc.directBuffer(64 << 10, transport.settings.maxFrameBytes() + LENGTH_FIELD);
            try {
                ring.run((target, buffer, offset, length) -> onRingFrame(ringReader, scratch, target, buffer, offset, length),
                        () -> running);
            } finally {
                scratch.release();
            }
        }, "jetstream-ring-" + name);
        ringThread.setDaemon(true);
        ringThread.start();
        LOG.info("JetStream receiver {}: same-host senders write to ring {}", transport.peerId, ring.file());
    }

    /**
     * One BATCH frame from the ring (ring consumer thread). The ring's memory is valid during the
     * call only: the frame is copied into {@code scratch} (one copy per batch, a reused buffer) and
     * copied again only if it has to wait for a gap.
     */
    private void onRingFrame(BatchFrameReader reader, ByteBuf scratch, int target, org.agrona.DirectBuffer buffer,
            int offset, int length) {
        InboundStream s = ringStreams.get(target);
        if (s == null) {
            metrics.onProtocolError();
            LOG.error("Ring {}: batch for unknown ring target {} dropped", ringName, target);
            return;
        }
        try {
            if (length < LENGTH_FIELD + TYPE_FIELD || length > transport.settings.maxFrameBytes() + LENGTH_FIELD) {
                throw new ProtocolException("ring record of " + length + " B is no frame of at most "
                        + transport.settings.maxFrameBytes() + " B");
            }
            scratch.clear().ensureWritable(length);
            buffer.getBytes(offset, scratch.nioBuffer(0, length), 0, length);
            scratch.writerIndex(length);
            int declared = scratch.readInt();
            if (declared != length - LENGTH_FIELD) {
                throw new ProtocolException("ring record of " + length + " B holds a frame declaring " + declared + " B");
            }
            reader.validate(scratch, s.checksum(), knownTargets);
            metrics.onReceived(length);
            s.acknowledge(s.onBatch(scratch, reader, true));
        } catch (ProtocolException e) {
            metrics.onProtocolError();
            LOG.error("Ring {}: bad batch of stream {}: {}; closing its connection", ringName, s.key, e.getMessage());
            s.closeConnection();
        } catch (RuntimeException e) {
            // The delivery handler failed: as on TCP, the connection closes and the batch stays unacknowledged.
            LOG.error("Ring {}: delivering a batch of stream {} failed; closing its connection", ringName, s.key, e);
            s.closeConnection();
        }
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) server.localAddress();
    }

    public ReceiverMetrics metrics() {
        return metrics;
    }

    /** Switches every stream's ordering (strict ↔ relaxed) at run time; going relaxed delivers what was held. */
    public void setOrdering(Ordering newOrdering) {
        ordering = newOrdering;
        BatchFrameReader reader = new BatchFrameReader(transport.settings.maxFrameBytes());
        streams.values().forEach(s -> s.setOrdering(newOrdering, reader));
    }

    /** Sends a CONTROL frame to every connected sender (back-pressure status, load). */
    public void broadcast(int tag, byte[] payload) {
        for (Channel ch : ready) {
            ch.writeAndFlush(Frames.control(ch.alloc(), tag, payload), ch.voidPromise());
        }
    }

    /** A CONTROL frame sent to each sender right after WELCOME (Storm's connect response). */
    public void setWelcomeControl(int tag, Supplier<byte[]> payload) {
        welcomeControl = () -> Frames.control(transport.alloc, tag, payload.get());
    }

    /** Highest sequence delivered in order for each stream seen. */
    public Map<StreamKey, Long> watermarks() {
        Map<StreamKey, Long> m = new java.util.HashMap<>();
        streams.forEach((k, s) -> m.put(k, s.watermark()));
        return m;
    }

    @Override
    public void close() {
        if (server != null) {
            server.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        running = false;
        if (ringThread != null) {
            try {
                ringThread.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ring.close();
        }
        all.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        streams.values().forEach(InboundStream::release);
        transport.forget(this);
        LOG.info("JetStream receiver {} closed: {}", transport.peerId, metrics);
    }

    /**
     * The stream of {@code key}, created on its first HELLO; a new epoch of the same (peer, stream)
     * replaces the old incarnation's state. Synchronized: the routes of one stream say HELLO on
     * different I/O threads at once and must all find the same state.
     */
    private synchronized InboundStream streamFor(StreamKey key) {
        InboundStream s = streams.get(key);
        if (s != null) {
            return s;
        }
        streams.entrySet().removeIf(e -> {
            StreamKey k = e.getKey();
            boolean older = k.peerId().equals(key.peerId()) && k.streamId().equals(key.streamId()) && k.epoch() != key.epoch();
            if (older) {
                e.getValue().release();
                ringStreams.remove(e.getValue().ringTarget);
            }
            return older;
        });
        s = new InboundStream(key, nextRingTarget.incrementAndGet(), handler, store, metrics, ordering,
                (long) transport.settings.windowBytes() + transport.settings.maxFrameBytes(), transport.epochClock);
        streams.put(key, s);
        return s;
    }

    /** One accepted connection. Event loop only. */
    private final class Connection extends SimpleChannelInboundHandler<ByteBuf> {
        private final byte[] nonce = new byte[NONCE_LENGTH];
        private final BatchFrameReader reader = new BatchFrameReader(transport.settings.maxFrameBytes());
        private InboundStream stream;
        private boolean checksum;

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            metrics.onConnection();
            NONCES.nextBytes(nonce);
            ctx.writeAndFlush(Frames.challenge(ctx.alloc(), nonce, transport.hostToken));
            ctx.executor().schedule(() -> {
                if (stream == null && ctx.channel().isActive()) {
                    refuse(ctx, "no HELLO within transport.connect-timeout-ms");
                }
            }, transport.settings.connectTimeoutNanos(), TimeUnit.NANOSECONDS);
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
                    reader.validate(frame, checksum, knownTargets);
                    metrics.onReceived(bytes + LENGTH_FIELD);
                    long ack = stream.onBatch(frame, reader, false);
                    ctx.writeAndFlush(Frames.ack(ctx.alloc(), ack), ctx.voidPromise());
                }
                case PROBE -> ctx.writeAndFlush(Frames.probeAck(ctx.alloc(), Frames.readLongBody(frame, PROBE)), ctx.voidPromise());
                case ERROR -> {
                    LOG.warn("Sender {} of {} closes: {}", ctx.channel().remoteAddress(), stream.key, Frames.readError(frame));
                    ctx.close();
                }
                default -> throw new ProtocolException("unexpected " + typeName(type) + " from a sender");
            }
        }

        private void onHello(ChannelHandlerContext ctx, Frames.Hello h) {
            if (transport.secret != null && !transport.secret.verify(nonce, h.peerId(), h.streamId(), h.mac())) {
                metrics.onAuthenticationFailure();
                throw new ProtocolException("authentication failed for peer '" + h.peerId() + "' (transport.auth.secret-file "
                        + (h.mac().length == 0 ? "is not set on the sender)" : "differs)"));
            }
            StreamKey key = new StreamKey(h.peerId(), h.streamId(), h.epoch());
            if (streams.size() >= MAX_STREAMS && !streams.containsKey(key)) {
                throw new ProtocolException("receiver already tracks " + MAX_STREAMS + " streams; refusing " + key);
            }
            InboundStream s = streamFor(key);
            long watermark = s.onHello(h.firstSequence(), reader, ctx.channel(), h.checksum());
            stream = s;
            checksum = h.checksum();
            boolean sameHost = java.util.Arrays.equals(h.hostToken(), transport.hostToken);
            boolean viaRing = sameHost && ring != null;
            if (viaRing) {
                ringStreams.put(s.ringTarget, s);
            }
            ctx.write(Frames.welcome(ctx.alloc(), new Frames.Welcome(watermark, viaRing ? s.ringTarget : -1,
                    viaRing ? ringName : "")));
            Supplier<ByteBuf> wc = welcomeControl;
            if (wc != null) {
                ctx.write(wc.get());
            }
            ctx.flush();
            ready.add(ctx.channel());
            LOG.info("Stream {} route {}/{} accepted from {} (resumes after {}, {} delivery)", key, h.route(), h.routes(),
                    ctx.channel().remoteAddress(), watermark, h.acknowledged() ? "acknowledged" : "best-effort");
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            ready.remove(ctx.channel());
            if (stream != null) {
                stream.onRouteClosed();
            }
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            Throwable c = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
            if (c instanceof ProtocolException || cause instanceof DecoderException) {
                refuse(ctx, c instanceof ProtocolException ? c.getMessage() : c.toString());
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
            metrics.onProtocolError();
            LOG.error("Closing connection from {}{}: {}", ctx.channel().remoteAddress(),
                    stream == null ? "" : " (stream " + stream.key + ")", reason);
            if (ctx.channel().isActive()) {
                ctx.writeAndFlush(Frames.error(ctx.alloc(), reason)).addListener(ChannelFutureListener.CLOSE);
            }
        }
    }
}
