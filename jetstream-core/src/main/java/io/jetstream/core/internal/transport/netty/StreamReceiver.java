package io.jetstream.core.internal.transport.netty;

import io.jetstream.core.api.DeliveryHandler;
import io.jetstream.core.api.InboundEndpoint;
import io.jetstream.core.api.ReceiverMetrics;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.StreamKey;
import io.jetstream.core.api.TransportOptions.Ordering;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.internal.metrics.ReceiverCounters;
import io.jetstream.core.internal.transport.handshake.Handshake;
import io.jetstream.core.internal.transport.inbound.RingInbound;
import io.jetstream.core.internal.transport.inbound.StreamRegistry;
import io.jetstream.core.internal.transport.protocol.FrameDecoder;
import io.jetstream.core.internal.transport.protocol.Frames;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntPredicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving end of the Netty transport: accepts connections ({@link ReceiverConnection} each,
 * at most {@code transport.max-connections}), keeps the streams they open ({@link StreamRegistry}),
 * and, with {@code transport.ring.enabled}, a shared-memory ring same-host senders write to
 * ({@link RingInbound}). Records reach the {@link DeliveryHandler} in each stream's order, from
 * the I/O threads (TCP) or the ring thread.
 *
 * <p>Thread-safe. {@link #broadcast}, {@link #setOrdering} and {@link #close} may be called from any
 * thread.
 */
public final class StreamReceiver implements InboundEndpoint {
    private static final Logger LOG = LoggerFactory.getLogger(StreamReceiver.class);

    private final NettyTransport transport;
    private final IntPredicate knownTargets;
    private final ReceiverCounters metrics = new ReceiverCounters();
    private final StreamRegistry registry;
    private final ChannelGroup ready = new DefaultChannelGroup("jetstream-receiver", GlobalEventExecutor.INSTANCE);
    private final ChannelGroup all = new DefaultChannelGroup("jetstream-receiver-all", GlobalEventExecutor.INSTANCE);
    private final AtomicInteger openConnections = new AtomicInteger();
    /** Orders this receiver's CONTROL frames across its connections (a sender keeps the latest per tag). */
    private final AtomicLong controlSequence = new AtomicLong();
    private volatile RingInbound ring;
    private volatile int welcomeTag;
    private volatile Supplier<byte[]> welcomePayload;
    private Channel server;
    private ScheduledFuture<?> pruning;

    /** Not bound: {@link #bind} or {@link #connectionInitializer} next. */
    StreamReceiver(NettyTransport transport, DeliveryHandler handler, IntPredicate knownTargets, SequenceStore store) {
        this.transport = transport;
        this.knownTargets = knownTargets;
        TransportSettings s = transport.settings;
        this.registry = new StreamRegistry(handler, store, metrics, s.ordering(), s.maxStreams(),
                (long) s.windowBytes() + s.maxFrameBytes(), s.streamIdleTimeoutNanos(), transport.nanoClock, transport.epochClock,
                transport.alloc);
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
                ch.pipeline().addLast(new ReceiverConnection(StreamReceiver.this));
            }
        };
    }

    void bind(InetSocketAddress address) throws InterruptedException {
        if (transport.settings.tls().isPresent() && transport.tls.server.isEmpty()) {
            throw new IllegalStateException("TLS is enabled but transport.tls.key-store is not set: a receiver needs it");
        }
        ServerBootstrap b = new ServerBootstrap()
                .group(transport.group)
                .channel(transport.serverChannelClass)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(ChannelOption.ALLOCATOR, transport.alloc)
                .childHandler(connectionInitializer());
        server = b.bind(address).sync().channel();
        long period = Math.max(TimeUnit.SECONDS.toNanos(1), Math.min(TimeUnit.MINUTES.toNanos(1),
                transport.settings.streamIdleTimeoutNanos() / 2));
        pruning = transport.group.next().scheduleAtFixedRate(registry::prune, period, period, TimeUnit.NANOSECONDS);
        LOG.info("JetStream receiver {} listening on {} ({}, at most {} connections)", transport.peerId, server.localAddress(),
                transport.handshake.authenticates() ? "peers authenticated with the shared secret"
                        : "no authentication: any peer that reaches this address may deliver records",
                transport.settings.maxConnections());
        if (transport.settings.ring().isPresent()) {
            String name = "rx-" + transport.peerId.replaceAll("[^A-Za-z0-9._-]", "_") + "-" + localAddress().getPort();
            ring = RingInbound.open(transport.settings.ring().get(), name, registry, knownTargets, metrics, transport.nanoClock);
        }
    }

    // ------------------------------------------------------------------ for connections

    TransportSettings settings() {
        return transport.settings;
    }

    Handshake handshake() {
        return transport.handshake;
    }

    byte[] hostToken() {
        return transport.hostToken;
    }

    IntPredicate knownTargets() {
        return knownTargets;
    }

    StreamRegistry registry() {
        return registry;
    }

    /** The ring's name for a same-host sender's WELCOME, or null when there is no usable ring. */
    String ringName() {
        RingInbound r = ring;
        return r != null && r.usable() ? r.name() : null;
    }

    boolean admitConnection() {
        if (openConnections.incrementAndGet() > transport.settings.maxConnections()) {
            openConnections.decrementAndGet();
            return false;
        }
        return true;
    }

    void releaseConnection() {
        openConnections.decrementAndGet();
    }

    void onReady(Channel ch) {
        ready.add(ch);
    }

    /** The sequence of the last CONTROL frame this receiver built (broadcast or welcome). Any thread. */
    long controlSequenceNow() {
        return controlSequence.get();
    }

    /** The CONTROL frame sent right after WELCOME, or null. */
    ByteBuf welcomeControl(ByteBufAllocator alloc) {
        Supplier<byte[]> payload = welcomePayload;
        byte[] bytes = payload == null ? null : payload.get();
        return bytes == null ? null : Frames.control(alloc, controlSequence.incrementAndGet(), welcomeTag, bytes);
    }

    // ------------------------------------------------------------------ API

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) server.localAddress();
    }

    @Override
    public ReceiverMetrics metrics() {
        return metrics;
    }

    /** The counters behind {@link #metrics()}, for the receiver's connections to update. */
    ReceiverCounters counters() {
        return metrics;
    }

    /** Whether same-host senders are offered the shared-memory ring now (it exists and has not failed). */
    @Override
    public boolean ringUsable() {
        return ringName() != null;
    }

    /** Switches every stream's ordering (strict ↔ relaxed) at run time; going relaxed delivers what was held. */
    @Override
    public void setOrdering(Ordering newOrdering) {
        registry.setOrdering(newOrdering);
    }

    /** Sends a CONTROL frame to every connected sender (back-pressure status, load); later ones supersede earlier ones per tag. */
    @Override
    public void broadcast(int tag, byte[] payload) {
        long sequence = controlSequence.incrementAndGet();
        for (Channel ch : ready) {
            ch.writeAndFlush(Frames.control(ch.alloc(), sequence, tag, payload), ch.voidPromise());
        }
    }

    /** A CONTROL frame sent to each sender right after WELCOME (Storm's connect response); none when the payload is null. */
    @Override
    public void setWelcomeControl(int tag, Supplier<byte[]> payload) {
        welcomeTag = tag;
        welcomePayload = payload;
    }

    /** Highest sequence delivered in order for each stream known now. */
    @Override
    public Map<StreamKey, Long> watermarks() {
        return registry.watermarks();
    }

    /** The negotiated TLS protocol and cipher suite of each connection that completed its handshake ("" without TLS). */
    @Override
    public java.util.List<String> tlsSessions() {
        java.util.List<String> sessions = new java.util.ArrayList<>();
        for (Channel ch : ready) {
            ReceiverConnection c = ch.pipeline().get(ReceiverConnection.class);
            if (c != null) {
                sessions.add(c.tlsSession());
            }
        }
        return sessions;
    }

    /** Streams known now (pruned when closed by their senders or idle). */
    @Override
    public int streams() {
        return registry.size();
    }

    @Override
    public void close() {
        RingInbound r = ring;
        if (r != null) {
            r.closeForProducers(); // first: the ring file goes even if the process is halted during the waits below
        }
        if (pruning != null) {
            pruning.cancel(false);
        }
        if (server != null) {
            server.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        boolean ringStopped = r == null || r.close();
        all.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        if (ringStopped) {
            registry.releaseAll();
        } else {
            // A delivery still runs in the handler and holds its stream: release when it returns, not here.
            GlobalEventExecutor.INSTANCE.execute(registry::releaseAll);
        }
        transport.forget(this);
        LOG.info("JetStream receiver {} closed: {}", transport.peerId, metrics);
    }
}
