package io.jetstream.core.api;

import io.jetstream.core.internal.transport.netty.NettyTransport;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * JetStream's transport, the door an engine adapter goes through: it opens {@link OutboundStream}s
 * to receivers and binds {@link InboundEndpoint}s that deliver what other peers' streams send. A
 * process typically starts one ({@link #start}) and closes it at shutdown; what it opened is closed
 * with it.
 *
 * <p>Thread-safe.
 */
public interface Transport extends AutoCloseable {
    /**
     * Starts a transport identified to its peers as {@code peerId} (a worker's host:port, say): its
     * I/O threads, its deadline flusher, and whatever {@code settings} ask for (TLS, a shared secret,
     * the shared-memory ring for receivers on this host, a journal).
     */
    static Transport start(TransportSettings settings, String peerId) {
        return new NettyTransport(settings, peerId);
    }

    /**
     * A stream to the receiver at {@code receiver}: it connects at once (and reconnects), and takes
     * records before a route is ready as its reliability mode says.
     *
     * @param streamId names the stream at the receiver (unique per sending peer and receiver)
     * @param controls receives the receiver's control messages (a back-pressure status, say)
     */
    OutboundStream openSender(String streamId, InetSocketAddress receiver, ControlListener controls);

    /**
     * A stream whose route {@code i} connects to {@code routes[i % size]}: one receiver reached over
     * several paths (JetStream's multi-route streaming).
     */
    OutboundStream openSender(String streamId, List<InetSocketAddress> routes, ControlListener controls);

    /**
     * A stream to {@code routes.receiver()} over the direct route and one route through each of
     * {@code routes.relays()} (JetStream's intermediate nodes). Relays are authenticated with
     * {@code transport.relay.auth.secret-file}; the receiver, end to end, with
     * {@code transport.auth.secret-file}.
     */
    OutboundStream openSender(String streamId, StreamRoutes routes, ControlListener controls);

    /**
     * A stream to several destinations ({@link MulticastStream}): one {@link OutboundStream} per destination,
     * named {@code streamId + "/" + destination name}, under one flow control ({@code settings}).
     */
    default MulticastStream openMulticast(String streamId, List<MulticastDestination> destinations, MulticastSettings settings) {
        return openMulticast(streamId, destinations, settings, MulticastStream.DestinationControlListener.NONE);
    }

    /**
     * {@link #openMulticast(String, List, MulticastSettings)}, passing the control frames each destination's receiver
     * broadcasts to {@code controls}.
     */
    MulticastStream openMulticast(String streamId, List<MulticastDestination> destinations, MulticastSettings settings,
            MulticastStream.DestinationControlListener controls);

    /**
     * A multicast stream to the receivers of {@code sites} that decides itself, per site, between direct multicast
     * and replication through the site's node (JetStream §3.4), from what it measures and the goal of
     * {@code settings.plan()}, within Atmosphere's bound on its direct connections; it re-decides every
     * {@code multicast.plan.interval-ms}. Its decisions and the model's predictions beside what it measured are in
     * {@link MulticastStream#metrics()}.
     */
    MulticastStream openPlannedMulticast(String streamId, List<MulticastSite> sites, MulticastSettings settings);

    /**
     * Binds a receiver on {@code port} (0 for any) of {@code transport.bind-address}.
     *
     * @param knownTargets target ids this receiver accepts; a batch naming any other closes its connection
     * @param store where each stream's delivered sequence is kept (see {@link SequenceStore})
     */
    InboundEndpoint bind(int port, DeliveryHandler handler, IntPredicate knownTargets, SequenceStore store)
            throws InterruptedException;

    /** Closes every stream and endpoint it opened, then its threads. Idempotent. */
    @Override
    void close();
}
