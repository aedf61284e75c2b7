package io.jetstream.core.internal.transport.inbound;

/**
 * What an {@link InboundStream} needs of one of its connections (routes): the way back to the
 * sender. Implemented by the receiver's TCP connection; ring-borne batches are acknowledged over it
 * too.
 *
 * <p>Thread-safe: called from the connection's I/O thread, another route's, or the ring thread.
 */
public interface InboundConnection {
    /** Everything up to {@code watermark} was delivered. */
    void acknowledge(long watermark);

    /** A tagged record's channel latency, for the sender's latency constraint. */
    void reportLatency(long nanos);

    /** The receiver's ring stopped: the sender resends over this connection what follows {@code watermark}. */
    void ringFailed(long watermark, String reason);

    /** Closes the connection, logging {@code reason} (a bad ring-borne batch, an evicted incarnation). */
    void close(String reason);

    boolean isActive();
}
