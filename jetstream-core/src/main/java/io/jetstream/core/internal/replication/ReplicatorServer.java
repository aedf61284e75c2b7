package io.jetstream.core.internal.replication;

import io.jetstream.core.api.DeliveryHandler;
import io.jetstream.core.api.InboundEndpoint;
import io.jetstream.core.api.MulticastDestination;
import io.jetstream.core.api.MulticastDestinationStats;
import io.jetstream.core.api.MulticastStream;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.Replicator;
import io.jetstream.core.api.ReplicatorSettings;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.StreamKey;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.internal.multicast.MulticastRecords;
import io.jetstream.core.internal.multicast.MulticastSender;
import io.jetstream.core.internal.transport.netty.NettyTransport;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.agrona.DirectBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Replicator}: one transport receives the senders' streams, another (its own I/O threads, so that
 * a delivery waiting for room never holds the acknowledgements that make room) carries one forwarding
 * multicast per received stream to the site's receivers; a timer confirms upstream.
 *
 * <p>Threading contract: a received stream is delivered on one I/O thread at a time, and only that thread
 * offers into its multicast (the multicast's single producer).
 */
public final class ReplicatorServer implements Replicator, DeliveryHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicatorServer.class);
    private static final long BACK_PRESSURE_PARK_NANOS = 50_000;

    private final ReplicatorSettings settings;
    private final long sendTimeoutNanos;
    private final NettyTransport inbound;
    private final NettyTransport outbound;
    private final List<MulticastDestination> destinations;
    private final Map<String, Forwarded> streams = new ConcurrentHashMap<>();
    private final ScheduledExecutorService confirmer;
    private volatile InboundEndpoint endpoint;
    private volatile boolean closed;

    /** One received stream and the multicast that carries it on. */
    private static final class Forwarded {
        final String upstreamStreamId;
        final MulticastSender multicast;
        volatile long originEpoch = -1;
        long lastConfirmed;

        Forwarded(String upstreamStreamId, MulticastSender multicast) {
            this.upstreamStreamId = upstreamStreamId;
            this.multicast = multicast;
        }
    }

    private ReplicatorServer(ReplicatorSettings settings, TransportSettings transport, String peerId) {
        this.settings = settings;
        this.sendTimeoutNanos = transport.sendTimeoutNanos();
        this.inbound = new NettyTransport(transport, peerId);
        this.outbound = new NettyTransport(transport, peerId);
        List<MulticastDestination> ds = new ArrayList<>();
        for (InetSocketAddress a : settings.destinations()) {
            ds.add(MulticastDestination.direct(a.getHostString() + ":" + a.getPort(), 0, StreamRoutes.direct(a)));
        }
        this.destinations = List.copyOf(ds);
        this.confirmer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "jetstream-replicator-confirm");
            t.setDaemon(true);
            return t;
        });
    }

    public static ReplicatorServer start(ReplicatorSettings settings, TransportSettings transport, String peerId)
            throws InterruptedException {
        if (!settings.enabled()) {
            throw new IllegalArgumentException("replicator.port is -1: no replicating node configured");
        }
        ReplicatorServer r = new ReplicatorServer(settings, transport, peerId);
        try {
            r.endpoint = r.inbound.bind(settings.port(), r, target -> true, SequenceStore.inMemory());
        } catch (RuntimeException | InterruptedException e) {
            r.close();
            throw e;
        }
        long every = settings.confirmIntervalNanos();
        r.confirmer.scheduleWithFixedDelay(r::confirm, every, every, TimeUnit.NANOSECONDS);
        LOG.info("replicating node {} listening on {}, sending on to {}", peerId, r.endpoint.localAddress(), settings.destinations());
        return r;
    }

    @Override
    public void deliver(StreamKey stream, long sequence, DeliveredBatch records) {
        String key = stream.peerId() + "/" + stream.streamId();
        Forwarded f = streams.computeIfAbsent(key, k -> {
            if (closed) {
                throw new IllegalStateException("replicating node closed");
            }
            LOG.info("replicating node: stream {} arrived; sending it on to {} receivers", k, destinations.size());
            return new Forwarded(stream.streamId(),
                    outbound.openForwardingMulticast(k.replaceAll("[^A-Za-z0-9._-]", "_"), destinations, settings.multicast()));
        });
        long deadline = System.nanoTime() + sendTimeoutNanos;
        records.forEach((target, buffer, offset, length) -> forward(f, target, buffer, offset, length, deadline));
        f.multicast.endOfSend();
    }

    private void forward(Forwarded f, int target, DirectBuffer buffer, int offset, int length, long deadline) {
        if (length >= MulticastStream.HEADER_BYTES) {
            f.originEpoch = MulticastRecords.epoch(buffer, offset);
        }
        while (true) {
            int r = f.multicast.offer(target, buffer, offset, length);
            if (r == OutboundStream.ACCEPTED) {
                return;
            }
            if (r != OutboundStream.BACK_PRESSURED) {
                throw new IllegalStateException("the replicating node's stream " + f.upstreamStreamId + " is closed or failed ("
                        + r + ")" + f.multicast.failure().map(t -> ": " + t).orElse(""));
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the receivers of this site took nothing for transport.send-timeout-ms; stream "
                        + f.upstreamStreamId + " is refused until they do");
            }
            LockSupport.parkNanos(BACK_PRESSURE_PARK_NANOS);
        }
    }

    private void confirm() {
        InboundEndpoint e = endpoint;
        if (e == null) {
            return;
        }
        try {
            for (Forwarded f : streams.values()) {
                long epoch = f.originEpoch;
                long position = f.multicast.confirmedByAll();
                if (epoch >= 0 && position > f.lastConfirmed) {
                    f.lastConfirmed = position;
                    e.broadcast(MulticastRecords.CONFIRMED_TAG, MulticastRecords.confirmation(epoch, position, f.upstreamStreamId));
                }
            }
        } catch (RuntimeException ex) {
            LOG.warn("replicating node: a confirmation failed", ex);
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        return endpoint.localAddress();
    }

    @Override
    public Map<String, List<MulticastDestinationStats>> streams() {
        Map<String, List<MulticastDestinationStats>> out = new LinkedHashMap<>();
        streams.forEach((k, f) -> out.put(k, f.multicast.destinations()));
        return out;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        confirmer.shutdownNow();
        inbound.close();
        outbound.close();
    }
}
