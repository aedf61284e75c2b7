package io.jetstream.core.api;

import io.jetstream.core.internal.relay.RelayServer;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * A relay: an intermediate node of a sender's site (JetStream §3.2, Fig. 2) that carries routes of
 * streams to receivers of another site. A sender authenticates to it with the relay secret and names
 * the destination; the relay connects there and from then on forwards frames both ways unchanged,
 * with bounded memory per route (back-pressure reaches the sender through TCP). The end-to-end
 * handshake, the batches' checksums and (with a stream secret) the acknowledgements' MACs pass
 * through it untouched: a relay cannot act as the receiver (docs/cross-site.md).
 *
 * <p>Thread-safe.
 */
public interface Relay extends AutoCloseable {
    /** Starts a relay listening on {@code settings}' address and port. */
    static Relay start(RelaySettings settings) {
        return RelayServer.start(settings);
    }

    /** The address it listens on (the bound port when {@code relay.port} was 0). */
    InetSocketAddress localAddress();

    /** The routes it carries now. */
    List<RelayStreamStats> streams();

    /** RELAY_REQUESTs whose MAC did not prove the relay secret. */
    long authenticationFailures();

    /** Requests whose destination the relay could not connect to. */
    long unreachableDestinations();

    /** Closes every route and the listening socket, then its threads. Idempotent. */
    @Override
    void close();
}
