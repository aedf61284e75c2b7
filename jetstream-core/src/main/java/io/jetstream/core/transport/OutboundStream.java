package io.jetstream.core.transport;

import io.jetstream.core.metrics.AdaptiveControlGauges;
import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * One stream of records from this process to one receiver: what an engine adapter holds per
 * connection (a Storm client connection, a Flink producer-to-TaskManager channel). Opened by the
 * transport ({@code NettyTransport.openSender}); records go in with {@link #offer}, leave in batches
 * when the stream's flush policy says so, and are delivered in order by the receiving transport.
 *
 * <p>Expected outcomes are return codes, never exceptions: {@link #offer} returns
 * {@link #ACCEPTED}, {@link #BACK_PRESSURED} (the stream's memory is full: try later),
 * {@link #NOT_CONNECTED} (a best-effort stream has no route: the record is dropped and counted, as
 * the engines' own transports do), {@link #CLOSED} or {@link #FAILED} ({@link #failure()} says
 * why). Exceptions are for bugs and bad arguments (a record longer than a frame).
 *
 * <p>Threading contract: {@link #offer}, {@link #endOfSend} and {@link #flush} are for one producer
 * thread at a time (Storm's transfer thread); they take no lock and allocate nothing per record.
 * {@link #close} may race them from another thread: they then return {@link #CLOSED}. Everything else
 * may be called from any thread.
 */
public interface OutboundStream extends AutoCloseable {
    /** The record was taken. */
    int ACCEPTED = 0;
    /** The stream's memory (and journal) budget is full; nothing was taken. */
    int BACK_PRESSURED = -1;
    /** Best-effort and no route is connected: the record was dropped and counted. */
    int NOT_CONNECTED = -2;
    /** The stream is closed; nothing was taken. */
    int CLOSED = -3;
    /** The stream failed ({@link #failure()}); nothing was taken. */
    int FAILED = -4;

    /**
     * Adds one record for {@code target} without blocking.
     *
     * @return {@link #ACCEPTED} or why not
     * @throws IllegalArgumentException if the record is longer than a frame can carry
     */
    int offer(int target, byte[] src, int offset, int length);

    /** {@link #offer(int, byte[], int, int)} of a buffer's remaining bytes (consumed only if taken). */
    int offer(int target, ByteBuffer src);

    /**
     * The producer has nothing more to offer for now (the end of one Storm {@code send()}): the flush
     * policy may send what is pending at once rather than wait for its batch to fill, when waiting
     * would only leave the link idle. A producer that calls it hands over its records in sends: in
     * adaptive mode the records of one send then travel together (the size target is checked at the
     * end of the send; only a full frame splits a send).
     */
    void endOfSend();

    /** Sends what is pending now, whatever the flush policy says. */
    void flush();

    /** Whether a route has completed its handshake and can carry batches. */
    boolean isReady();

    /** Whether an offer would be refused as {@link #BACK_PRESSURED} now. */
    boolean isBackPressured();

    /** Why the stream failed, if it did. */
    Optional<Throwable> failure();

    SenderMetrics metrics();

    /** The adaptive controller's and the latency constraint's decisions about this stream. */
    AdaptiveControlGauges controlGauges();

    /**
     * Sends what is pending, waits up to {@code transport.close-timeout-ms} for the receiver to
     * acknowledge it, then closes the routes; what is left is counted as dropped (kept in the journal
     * of a durable stream). Idempotent.
     */
    @Override
    void close();
}
