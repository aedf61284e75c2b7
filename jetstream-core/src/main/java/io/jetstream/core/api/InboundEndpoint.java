package io.jetstream.core.api;

import io.jetstream.core.api.TransportOptions.Ordering;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A bound receiver ({@link Transport#bind}): it accepts streams, authenticates them as the transport
 * is configured, delivers their batches to its {@link DeliveryHandler} in each stream's order, and
 * sends control messages back to every connected sender.
 *
 * <p>Thread-safe.
 */
public interface InboundEndpoint extends AutoCloseable {
    /** The address it listens on (its port when bound to 0). */
    InetSocketAddress localAddress();

    ReceiverMetrics metrics();

    /** Whether senders on this host can write into this endpoint's shared-memory ring. */
    boolean ringUsable();

    /** Strict (in sequence order) or weak (as batches arrive) delivery, for the streams it accepts from now. */
    void setOrdering(Ordering ordering);

    /** Sends a control message ({@code tag}, {@code payload}) to every stream's sender. */
    void broadcast(int tag, byte[] payload);

    /** A control message each newly accepted stream's sender gets with its welcome (the current value of a status). */
    void setWelcomeControl(int tag, Supplier<byte[]> payload);

    /** The last delivered sequence of every stream it knows. */
    Map<StreamKey, Long> watermarks();

    /** The TLS protocol and cipher suite of each current connection (empty without TLS). */
    List<String> tlsSessions();

    /** How many streams are connected now. */
    int streams();

    /** Stops accepting and closes every connection. Idempotent. */
    @Override
    void close();
}
