package io.jetstream.core.api;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Optional;
import java.util.function.DoubleSupplier;

/**
 * One stream of records from this process to one receiver: what an engine adapter holds per
 * connection (a Storm client connection, a Flink producer-to-TaskManager channel). Opened by the
 * transport ({@link Transport#openSender}); records go in with {@link #offer}, leave in batches
 * when the stream's flush policy says so, and are delivered in order by the receiving transport.
 *
 * <p>Expected outcomes are return codes, never exceptions: {@link #offer} returns
 * {@link #ACCEPTED}, {@link #BACK_PRESSURED} (the stream's memory is full: try later),
 * {@link #NOT_CONNECTED} (a best-effort stream has no route: the record is dropped and counted, as
 * the engines' own transports do), {@link #CLOSED} or {@link #FAILED} ({@link #failure()} says
 * why). Exceptions are for bugs and bad arguments (a record longer than a frame).
 *
 * <p>Threading contract: {@link #offer}, {@link #send}, {@link #endOfSend} and {@link #flush} are for
 * one producer thread at a time (Storm's transfer thread); {@link #offer} takes no lock and allocates
 * nothing per record. {@link #close} may race them from another thread: they then return
 * {@link #CLOSED}. {@link #isReady}, {@link #isBackPressured}, {@link #carriedBySharedMemory} and
 * {@link #bufferLimitBytes} are one volatile read each, for any thread, as often as per record;
 * {@link #bufferedBytes} and {@link #batchesInFlight} take the stream's lock briefly (for gauges, not
 * per record).
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
     * As {@link #offer(int, byte[], int, int)}, waiting while the stream pushes back, up to
     * {@code transport.send-timeout-ms}.
     *
     * @throws java.util.concurrent.TimeoutException if the stream pushed back for the whole timeout
     * @throws IllegalStateException if the stream is closed or failed
     */
    void send(int target, byte[] src, int offset, int length) throws java.util.concurrent.TimeoutException, InterruptedException;

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

    /**
     * Whether the stream's batches go through the receiver's shared-memory ring now (the receiver is
     * on this host and every ready route is a ring; a failed ring falling back to TCP turns it false).
     */
    boolean carriedBySharedMemory();

    /** Bytes the stream holds in memory: records not yet sent, and batches sent but not yet confirmed. */
    long bufferedBytes();

    /** The stream's memory budget ({@code transport.memory-bytes}): beyond it, offers are pushed back. */
    long bufferLimitBytes();

    /** Batches sent and not yet confirmed by the receiver (acknowledged, or passed by its ring's reader). */
    long batchesInFlight();

    /** This incarnation of the stream (the receiver tells a restarted sender's batches from its predecessor's). */
    long epoch();

    /** What a durable stream recovered from its journal when it opened ({@link StreamRecovery#NONE} otherwise). */
    StreamRecovery recovery();

    /** Why the stream failed, if it did. */
    Optional<Throwable> failure();

    SenderMetrics metrics();

    /**
     * The adaptive controller's and the latency constraint's latest decisions about this stream, by
     * gauge name (decided batch size, predicted latency, output buffer size...): for the engine's
     * metric registry.
     */
    Map<String, DoubleSupplier> controlGauges();

    /**
     * Sends what is pending, waits up to {@code transport.close-timeout-ms} for the receiver to
     * acknowledge it, then closes the routes; what is left is counted as dropped (kept in the journal
     * of a durable stream). Idempotent.
     */
    @Override
    void close();
}
