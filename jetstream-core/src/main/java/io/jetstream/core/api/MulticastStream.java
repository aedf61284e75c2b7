package io.jetstream.core.api;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.agrona.DirectBuffer;

/**
 * One stream of records to several destinations ({@link Transport#openMulticast}): every record
 * reaches every destination once, in the order offered, over one {@link OutboundStream} per
 * destination (Aeron's multi-destination cast: per-destination unicast under one flow control). A
 * destination is a receiver reached directly or a site reached through its replicating node
 * ({@link MulticastDestination}); what a slow destination does to the others is
 * {@code multicast.slow-destination}. Each record carries a 16-byte header (the stream's epoch and the
 * record's position, little-endian) that {@link MulticastReceiver} reads to deliver each record once when a
 * destination is reached again by another path.
 *
 * <p>Threading contract: {@link #offer}, {@link #endOfSend} and {@link #flush} are for one producer
 * thread at a time; {@link #offer} takes no lock and allocates nothing: it copies the record into a
 * single-producer ring the multicast's own sending thread drains into the destinations' streams. That thread,
 * when idle, takes new records within a millisecond, or at once after {@link #endOfSend} or {@link #flush}.
 * {@link #join}, {@link #leave}, {@link #destinations} and {@link #close} are for any thread.
 */
public interface MulticastStream extends AutoCloseable {
    /** Bytes each record carries before its payload (see {@link MulticastReceiver}). */
    int HEADER_BYTES = 16;

    /**
     * Receives the CONTROL frames each destination's receiver broadcasts (a landing's "full", for instance), naming the
     * destination, on that destination stream's I/O thread. A replicating node's confirmations are the multicast's own
     * and are not passed on.
     */
    @FunctionalInterface
    interface DestinationControlListener {
        DestinationControlListener NONE = (destination, tag, buffer, offset, length) -> {};

        /** @param buffer valid only during this call */
        void onControl(String destination, int tag, DirectBuffer buffer, int offset, int length);
    }

    /**
     * Adds one record for every destination without blocking.
     *
     * @return {@link OutboundStream#ACCEPTED}, {@link OutboundStream#BACK_PRESSURED} (the hand-over ring is
     *     full: the slowest destination holds the stream, or its sending thread is behind) or
     *     {@link OutboundStream#CLOSED}
     * @throws IllegalArgumentException if the record is longer than {@code multicast.buffer-bytes} / 8 allows
     */
    int offer(int target, byte[] src, int offset, int length);

    /** {@link #offer(int, byte[], int, int)} from a buffer. */
    int offer(int target, DirectBuffer src, int offset, int length);

    /**
     * The producer has nothing more to offer for now (the end of one send, see {@link OutboundStream#endOfSend}): once
     * what it offered before is handed over, the destinations' streams may send what they hold at once. Without it they
     * batch as their {@code batch.*} options say.
     */
    void endOfSend();

    /** Asks every destination's stream to send what it holds now. */
    void flush();

    /** Whether an offer would be refused now. */
    boolean isBackPressured();

    /**
     * Adds a destination: it gets the records offered from now on.
     *
     * @throws IllegalArgumentException if a destination of that name is already in the stream
     */
    void join(MulticastDestination destination);

    /**
     * Removes a destination after it took what was offered before this call: its stream is closed
     * (waiting up to {@code transport.close-timeout-ms} for acknowledgements). Blocks the caller.
     *
     * @return whether the destination was in the stream
     */
    boolean leave(String name) throws InterruptedException;

    /**
     * Stops ({@code held}) or resumes handing records to the destination {@code name}, because its receiver asked to
     * be held back (a landing whose stream is full, say). The others go on as {@code multicast.slow-destination} says:
     * with {@code hold}, until the held one trails by {@code multicast.max-lag-bytes}, and a destination held longer
     * than {@code multicast.hold-timeout-ms} is dropped. Does not block: for any thread, a
     * {@link DestinationControlListener} included. Takes effect at the stream's next pass; unknown names are ignored.
     */
    void hold(String name, boolean held);

    /** Each destination's state now, and those dropped (with their reason). For gauges. */
    List<MulticastDestinationStats> destinations();

    /** Counters of the stream as a whole, by name (dashed): records offered, back-pressured offers, drops, failovers. */
    Map<String, Long> metrics();

    /**
     * A planned multicast's decisions and the model's predictions beside what it measured, by name
     * ({@code plan.predicted-latency-ms}, {@code plan.measured-latency-ms}, {@code plan.predicted-outbound-bytes-per-s},
     * {@code plan.measured-outbound-bytes-per-s}, {@code plan.predicted-spend-per-hour}, {@code plan.measured-spend-per-hour},
     * {@code plan.fan-out-bound}, {@code plan.direct-connections}, {@code plan.predicted-routes}, {@code plan.routes-in-use},
     * {@code plan.replicated-sites}, {@code plan.changes});
     * empty for a multicast whose destinations were given. The measured latency is half a batch's fill time plus half
     * the destination streams' acknowledgement round trip (a replicated site's: to its node). A snapshot, for gauges.
     */
    Map<String, Double> planGauges();

    /** This incarnation of the stream: the epoch in every record's header. */
    long epoch();

    /** Why the stream failed (its sending thread died), if it did. */
    Optional<Throwable> failure();

    /**
     * Hands every offered record to the destinations' streams (up to {@code transport.close-timeout-ms}),
     * then closes them, each waiting for its acknowledgements. Idempotent.
     */
    @Override
    void close();
}
