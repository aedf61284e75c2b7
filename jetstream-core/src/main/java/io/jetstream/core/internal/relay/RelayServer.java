package io.jetstream.core.internal.relay;

import io.jetstream.core.api.Relay;
import io.jetstream.core.api.RelaySettings;
import io.jetstream.core.api.RelayStreamStats;
import io.jetstream.core.api.TransportOptions.Io;
import io.jetstream.core.internal.transport.handshake.RelayAuthentication;
import io.jetstream.core.internal.transport.netty.IoSelection;
import io.jetstream.core.internal.transport.netty.TlsContexts;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The accepting side of a relay: its I/O threads, the listening socket, the relay secret and TLS
 * contexts, the routes it carries ({@link RelayedStream}) and its counters; logs one line per route
 * every {@code relay.metrics-log-interval-ms} and when a route ends. Each accepted connection gets a
 * {@link RelayHandshake}; at most {@code relay.max-streams} connections are open at once.
 *
 * <p>Thread-safe.
 */
public final class RelayServer implements Relay {
    static final Logger LOG = LoggerFactory.getLogger(RelayServer.class);

    private final RelaySettings settings;
    private final RelayAuthentication authentication;
    private final TlsContexts tls;
    private final IoSelection io;
    private final FrameInterceptor interceptor;
    private final EventLoopGroup group;
    private final Set<RelayedStream> streams = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicLong authenticationFailures = new AtomicLong();
    private final AtomicLong unreachable = new AtomicLong();
    private final Channel server;
    private final InetSocketAddress address;
    private final ScheduledFuture<?> metricsLog;
    private volatile boolean closed;

    private RelayServer(RelaySettings settings, FrameInterceptor interceptor) {
        this.settings = settings;
        this.authentication = new RelayAuthentication(settings.secret());
        this.tls = new TlsContexts(settings.tls());
        this.io = IoSelection.of(Io.AUTO);
        this.interceptor = interceptor;
        this.group = new MultiThreadIoEventLoopGroup(settings.ioThreads(), new DefaultThreadFactory("jetstream-relay", true),
                io.factory());
        int memory = (int) Math.min(Integer.MAX_VALUE, settings.streamMemoryBytes());
        try {
            this.server = new ServerBootstrap()
                    .group(group)
                    .channel(io.serverChannelClass())
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.SO_KEEPALIVE, true)
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(memory / 2, memory))
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            if (connections.incrementAndGet() > settings.maxStreams() || closed) {
                                connections.decrementAndGet();
                                LOG.warn("Relay: refusing {}: relay.max-streams ({}) routes are open", ch.remoteAddress(),
                                        settings.maxStreams());
                                ch.close();
                                return;
                            }
                            ch.closeFuture().addListener(f -> connections.decrementAndGet());
                            tls.server.ifPresent(ssl -> ch.pipeline().addLast(ssl.newHandler(ch.alloc())));
                            ch.pipeline().addLast(new RelayFrameDecoder());
                            ch.pipeline().addLast(new RelayHandshake(RelayServer.this));
                        }
                    })
                    .bind(new InetSocketAddress(settings.bindAddress(), settings.port())).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IllegalStateException("relay cannot listen on " + settings.bindAddress() + ":" + settings.port() + ": " + e, e);
        }
        this.address = (InetSocketAddress) server.localAddress();
        long interval = settings.metricsLogIntervalNanos();
        this.metricsLog = interval > 0
                ? group.next().scheduleAtFixedRate(this::logStreams, interval, interval, TimeUnit.NANOSECONDS)
                : null;
        LOG.info("JetStream relay listening on {} ({} I/O threads, {}, TLS {}, {} B per route and direction)", localAddress(),
                settings.ioThreads(), io.epoll() ? "epoll" : "nio", settings.tls().isPresent() ? "on both legs" : "off",
                settings.streamMemoryBytes());
    }

    public static RelayServer start(RelaySettings settings) {
        return new RelayServer(settings, FrameInterceptor.NONE);
    }

    /** A relay whose routes pass every frame through {@code interceptor} (tests: a faulty relay). */
    public static RelayServer start(RelaySettings settings, FrameInterceptor interceptor) {
        return new RelayServer(settings, interceptor);
    }

    RelaySettings settings() {
        return settings;
    }

    RelayAuthentication authentication() {
        return authentication;
    }

    TlsContexts tls() {
        return tls;
    }

    IoSelection io() {
        return io;
    }

    FrameInterceptor interceptor() {
        return interceptor;
    }

    void onAuthenticationFailure() {
        authenticationFailures.incrementAndGet();
    }

    void onUnreachable() {
        unreachable.incrementAndGet();
    }

    /** A route passed its handshake: counted and logged until it ends. Event loop. */
    void onForwarding(RelayedStream stream) {
        streams.add(stream);
        RelayStreamStats s = stream.stats();
        LOG.info("Relay: forwarding {} from {} to {}", s.label(), s.source(), s.destination());
        stream.source().closeFuture().addListener(f -> {
            streams.remove(stream);
            LOG.info("Relay: route ended: {}", describe(stream.stats()));
        });
        if (closed) {
            stream.close();
        }
    }

    private void logStreams() {
        for (RelayedStream s : streams) {
            LOG.info("Relay: {}", describe(s.stats()));
        }
    }

    private static String describe(RelayStreamStats s) {
        return s.label() + " " + s.source() + " -> " + s.destination() + ": " + s.bytesIn() + " B in, " + s.bytesOut() + " B out, "
                + s.queuedBytes() + " B queued, rtt " + s.roundTripMicros() + " us, since " + s.connectedSince();
    }

    @Override
    public InetSocketAddress localAddress() {
        return address;
    }

    @Override
    public List<RelayStreamStats> streams() {
        List<RelayStreamStats> out = new ArrayList<>(streams.size());
        for (RelayedStream s : streams) {
            out.add(s.stats());
        }
        return out;
    }

    @Override
    public long authenticationFailures() {
        return authenticationFailures.get();
    }

    @Override
    public long unreachableDestinations() {
        return unreachable.get();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (metricsLog != null) {
            metricsLog.cancel(false);
        }
        server.close().syncUninterruptibly();
        for (RelayedStream s : streams) {
            s.close();
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        LOG.info("JetStream relay {} closed ({} authentication failures, {} unreachable destinations)", localAddress(),
                authenticationFailures.get(), unreachable.get());
    }
}
