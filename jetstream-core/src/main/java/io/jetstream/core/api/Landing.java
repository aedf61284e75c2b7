package io.jetstream.core.api;

import io.jetstream.core.internal.landing.LandingServer;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * A landing: the receiving end of streams from other sites (docs/cross-site.md, "Landing a
 * stream"). It accepts {@link LandingSender} streams, writes every batch to a journal per landed
 * stream before acknowledging it, releases records to {@link LandingSubscriber}s as the stream's
 * {@link LandingGuarantee} says (exactly once: when the epoch is committed), and deletes what its
 * readers have released. It decouples the transfer from processing (JetStream §4): the receiving
 * application may be down, restarted or restored from an older snapshot while the landing keeps
 * the stream.
 *
 * <p>Thread-safe.
 */
public interface Landing extends AutoCloseable {
    /** Starts a landing with its own transport (its secret, its TLS) on {@code settings}' address and port. */
    static Landing start(TransportSettings transport, LandingSettings settings) {
        return LandingServer.start(transport, settings);
    }

    /** The address it accepts streams on. */
    InetSocketAddress localAddress();

    /** Every landed stream it holds. */
    List<LandedStreamStats> streams();

    /** Stops accepting, closes every stream and its journals. Idempotent. */
    @Override
    void close();
}
