package io.jetstream.core.internal.transport.netty;

import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.DeliveryHandler;
import io.jetstream.core.api.MulticastDestination;
import io.jetstream.core.api.MulticastSettings;
import io.jetstream.core.api.MulticastSite;
import io.jetstream.core.api.MulticastStream;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.api.Transport;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.internal.multicast.MulticastSender;
import io.jetstream.core.internal.qos.QosListener;
import io.jetstream.core.internal.qos.QosService;
import io.jetstream.core.internal.transport.handshake.Handshake;
import io.jetstream.core.internal.transport.handshake.HostIdentity;
import io.jetstream.core.internal.transport.handshake.RelayAuthentication;
import io.jetstream.core.internal.transport.handshake.SharedSecret;
import io.jetstream.core.internal.transport.outbound.DeadlineFlusher;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One JetStream transport instance: its Netty I/O threads (epoll where available), its deadline
 * flusher thread, TLS and shared-secret settings; it opens {@link StreamSender}s to peers and binds
 * {@link StreamReceiver}s. A worker process typically has one.
 *
 * <p>Thread-safe. {@link #close()} closes every sender and receiver it created, then its threads.
 */
public final class NettyTransport implements Transport {
    private static final Logger LOG = LoggerFactory.getLogger(NettyTransport.class);

    final TransportSettings settings;
    final String peerId;
    final byte[] hostToken;
    final LongSupplier nanoClock;
    final EventLoopGroup group;
    final Class<? extends Channel> channelClass;
    final Class<? extends ServerChannel> serverChannelClass;
    final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
    final TlsContexts tls;
    /** The handshake of every connection: mutual authentication when a shared secret is configured. */
    final Handshake handshake;
    /** The handshake with relays ({@code transport.relay.auth.secret-file}); null without a relay secret. */
    final RelayAuthentication relayAuth;
    final DeadlineFlusher flusher;
    /** Nephele's output-buffer adaptation of this transport's sending streams; null without a latency bound. */
    final QosService qos;
    /**
     * Wall-clock nanoseconds since the epoch, stamped on tagged records and compared with the stamp by
     * the receiving transport: a channel's latency spans two hosts, so it needs their common clock.
     */
    final LongSupplier epochClock = NettyTransport::epochNanos;
    private final List<StreamSender> senders = new CopyOnWriteArrayList<>();
    private final List<StreamReceiver> receivers = new CopyOnWriteArrayList<>();
    private final List<MulticastStream> multicasts = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    /** A transport identified to its peers as {@code peerId} (a worker's host:port, say), on this host. */
    public NettyTransport(TransportSettings settings, String peerId) {
        this(settings, peerId, HostIdentity.THIS_HOST, System::nanoTime);
    }

    /**
     * @param hostToken 16 bytes compared with peers' to tell the same host (tests pass their own)
     * @param nanoClock the time source of batching deadlines and latency measurements
     */
    public NettyTransport(TransportSettings settings, String peerId, byte[] hostToken, LongSupplier nanoClock) {
        if (hostToken.length != 16) {
            throw new IllegalArgumentException("host token must have 16 bytes, has " + hostToken.length);
        }
        this.settings = settings;
        this.peerId = peerId;
        this.hostToken = hostToken.clone();
        this.nanoClock = nanoClock;
        IoSelection io = IoSelection.of(settings.io());
        boolean epoll = io.epoll();
        this.group = new MultiThreadIoEventLoopGroup(settings.ioThreads(),
                new DefaultThreadFactory("jetstream-io-" + peerId.replaceAll("[^A-Za-z0-9._-]", "_"), true), io.factory());
        this.channelClass = io.channelClass();
        this.serverChannelClass = io.serverChannelClass();
        this.tls = new TlsContexts(settings.tls());
        this.handshake = new Handshake(settings.secret().map(SharedSecret::new).orElse(null));
        this.relayAuth = settings.relaySecret().map(RelayAuthentication::new).orElse(null);
        this.flusher = new DeadlineFlusher(nanoClock, peerId.replaceAll("[^A-Za-z0-9._-]", "_"));
        if (settings.qos().enabled()) {
            this.qos = new QosService(settings.qos(), QosListener.NONE, nanoClock);
            qos.start(peerId.replaceAll("[^A-Za-z0-9._-]", "_"));
        } else {
            this.qos = null;
        }
        LOG.info("JetStream transport {} started: {} I/O threads ({}), TLS {}, authentication {}, {} batches, {}, "
                        + "latency constraint {}",
                peerId, settings.ioThreads(), epoll ? "epoll" : "nio", settings.tls().isPresent() ? "on" : "off",
                handshake.authenticates() ? "mutual, shared secret" : "off (any peer that reaches a receiver may deliver)",
                settings.batch().mode(), settings.reliability(),
                qos != null ? settings.qos().latencyBoundMillis() + " ms" : "off");
    }

    /**
     * Opens a stream to the receiver at {@code remote}: its routes connect in the background (and
     * reconnect with back-off); records offered before a route is ready are held or dropped as the
     * reliability mode says.
     *
     * @param streamId names the stream at the receiver (unique per sending peer and receiver)
     */
    @Override
    public StreamSender openSender(String streamId, InetSocketAddress remote, ControlListener controls) {
        return openSender(streamId, java.util.List.of(remote), controls);
    }

    /**
     * A stream whose route {@code i} connects to {@code routeAddresses[i % size]}: one receiver reached
     * over several paths (JetStream's multi-route streaming over distinct links or interfaces).
     */
    @Override
    public StreamSender openSender(String streamId, List<InetSocketAddress> routeAddresses, ControlListener controls) {
        checkOpen();
        if (routeAddresses.isEmpty()) {
            throw new IllegalArgumentException("no receiver address for stream " + streamId);
        }
        if (settings.tls().isPresent() && tls.client.isEmpty()) {
            throw new IllegalStateException("TLS is enabled but transport.tls.trust-store is not set: a sender needs it to verify "
                    + "receivers, and never falls back to plaintext");
        }
        StreamSender s = new StreamSender(this, streamId, routeAddresses, controls);
        senders.add(s);
        s.start();
        return s;
    }

    /**
     * A stream over the direct route 0 and route {@code i} through relay {@code i - 1} (same TLS and
     * end-to-end authentication as a direct stream; relays authenticated with the relay secret).
     *
     * @throws IllegalStateException with relays and no {@code transport.relay.auth.secret-file}
     */
    @Override
    public StreamSender openSender(String streamId, StreamRoutes routes, ControlListener controls) {
        if (routes.relays().isEmpty()) {
            return openSender(streamId, routes.receiver(), controls);
        }
        checkOpen();
        if (relayAuth == null) {
            throw new IllegalStateException("stream " + streamId + " goes through relays " + routes.relays()
                    + " but transport.relay.auth.secret-file is not set: a sender proves the relay secret to its relays");
        }
        if (settings.tls().isPresent() && tls.client.isEmpty()) {
            throw new IllegalStateException("TLS is enabled but transport.tls.trust-store is not set: a sender needs it to verify "
                    + "receivers and relays, and never falls back to plaintext");
        }
        StreamSender s = new StreamSender(this, streamId, java.util.List.of(routes.receiver()), routes, controls);
        senders.add(s);
        s.start();
        return s;
    }

    @Override
    public MulticastStream openMulticast(String streamId, List<MulticastDestination> destinations, MulticastSettings multicast,
            MulticastStream.DestinationControlListener controls) {
        checkOpen();
        MulticastStream m = MulticastSender.open(this, streamId, destinations, multicast, settings.closeTimeoutNanos(), controls);
        multicasts.add(m);
        return m;
    }

    @Override
    public MulticastStream openPlannedMulticast(String streamId, List<MulticastSite> sites, MulticastSettings multicast) {
        checkOpen();
        MulticastStream m = MulticastSender.planned(this, streamId, sites, multicast, settings.closeTimeoutNanos(),
                settings.batch().maxRoutes());
        multicasts.add(m);
        return m;
    }

    /** A replicating node's stream: forwards records that carry their origin's multicast header. */
    public MulticastSender openForwardingMulticast(String streamId,
            List<MulticastDestination> destinations, MulticastSettings multicast) {
        checkOpen();
        MulticastSender m = MulticastSender.forwarding(
                this, streamId, destinations, multicast, settings.closeTimeoutNanos());
        multicasts.add(m);
        return m;
    }

    /**
     * Binds a receiver on {@code port} (0 for any) of the configured bind address.
     *
     * @param knownTargets target ids this receiver accepts; a batch with any other closes its connection
     * @param store where each stream's delivered sequence is kept (see {@link SequenceStore})
     */
    @Override
    public StreamReceiver bind(int port, DeliveryHandler handler, IntPredicate knownTargets, SequenceStore store)
            throws InterruptedException {
        checkOpen();
        StreamReceiver r = new StreamReceiver(this, handler, knownTargets, store);
        r.bind(new InetSocketAddress(bindAddress(), port));
        receivers.add(r);
        return r;
    }

    InetAddress bindAddress() {
        try {
            return settings.bindAddress().isEmpty() ? InetAddress.getLocalHost() : InetAddress.getByName(settings.bindAddress());
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("transport.bind-address '" + settings.bindAddress() + "' does not resolve", e);
        }
    }

    private static long epochNanos() {
        java.time.Instant now = java.time.Instant.now(); // microseconds on Linux; once per tag, not per record
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /** Nephele's output-buffer adaptation of this transport's sending streams, if a latency bound is set. */
    public java.util.Optional<QosService> qos() {
        return java.util.Optional.ofNullable(qos);
    }

    void forget(StreamSender s) {
        senders.remove(s);
    }

    void forget(StreamReceiver r) {
        receivers.remove(r);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("transport " + peerId + " is closed");
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (MulticastStream m : multicasts) {
            m.close();
        }
        for (StreamSender s : senders) {
            s.close();
        }
        for (StreamReceiver r : receivers) {
            r.close();
        }
        flusher.close();
        if (qos != null) {
            qos.close();
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        LOG.info("JetStream transport {} closed", peerId);
    }
}
