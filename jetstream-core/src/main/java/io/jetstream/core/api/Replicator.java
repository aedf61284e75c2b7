package io.jetstream.core.api;

import io.jetstream.core.internal.replication.ReplicatorServer;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;

/**
 * A replicating node of a destination site (JetStream §3.4, replication at the destination site): it
 * receives each multicast stream sent to it once, over the sites' link, and sends every record on to the
 * receivers of its site ({@code replicator.destinations}) as a multicast stream of its own that keeps the
 * origin's headers, so the receivers ({@link MulticastReceiver}) deliver each record once even when the
 * sender, having lost this node, sends to them directly. It confirms to each sender, every
 * {@code replicator.confirm-interval-ms}, the position every receiver of its site acknowledged; the sender
 * keeps what follows until then.
 *
 * <p>Acknowledgements: a batch from the sender is acknowledged once its records are in this node's
 * multicast (memory); what the sender may forget is only what the site's receivers confirmed.
 *
 * <p>Thread-safe.
 */
public interface Replicator extends AutoCloseable {
    /**
     * Starts a node on {@code settings.port()}, its connections configured by {@code transport}.
     *
     * @param peerId how it names itself to the site's receivers
     */
    static Replicator start(ReplicatorSettings settings, TransportSettings transport, String peerId) throws InterruptedException {
        return ReplicatorServer.start(settings, transport, peerId);
    }

    /** The address it receives on. */
    InetSocketAddress localAddress();

    /** Per stream it replicates (sending peer / stream id), its destinations as they stand. */
    Map<String, List<MulticastDestinationStats>> streams();

    /** Closes its streams (each handing on what it holds, up to {@code transport.close-timeout-ms}), then its threads. */
    @Override
    void close();
}
