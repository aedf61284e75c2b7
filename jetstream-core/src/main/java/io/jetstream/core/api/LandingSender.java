package io.jetstream.core.api;

import io.jetstream.core.internal.landing.LandingMulticastSender;
import io.jetstream.core.internal.landing.LandingSenderStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One sending application's stream into a landing at another site (a Flink sink subtask's): records
 * land, in order, in the landed stream {@code name}; with {@link LandingGuarantee#EXACTLY_ONCE} they
 * are grouped into epochs by {@link #mark} and released to readers when the epoch is committed
 * ({@link LandingCommitter#commit}).
 *
 * <p>An <em>attempt</em> is one run of the sender (a random id chosen when it opens); a sender
 * restored from a snapshot names the attempt and epoch it restored, and the landing discards what
 * the earlier attempts sent after that epoch (it was never committed and is sent again).
 *
 * <p>One sender may land the same stream at the landings of several sites ({@link #open(Transport, Map, String,
 * LandingGuarantee, long, long, long, MulticastSettings)}): its records go through one {@link MulticastStream}, once
 * into its log and then to every landing, and a record counts as landed once every landing journaled it.
 *
 * <p>Threading contract: {@link #offer}, {@link #mark} and {@link #awaitLanded} are for one thread at
 * a time (the sink's task thread); {@link #offer} allocates nothing. {@link #close} may race them.
 * The stream is acknowledged ({@code transport.reliability} acknowledged or durable): a batch is
 * acknowledged once the landing has written it to its journal.
 */
public interface LandingSender extends AutoCloseable {
    /**
     * Opens the stream over {@code routes} and sends its BEGIN.
     *
     * @param name the landed stream's name at the landing (unique per landing: one per sink subtask)
     * @param attempt this run's id (not 0)
     * @param restoredAttempt the attempt of the snapshot this run was restored from (0: none)
     * @param restoredEpoch the last epoch marked in that snapshot (0: none)
     */
    static LandingSender open(Transport transport, StreamRoutes routes, String name, LandingGuarantee guarantee,
            long attempt, long restoredAttempt, long restoredEpoch) {
        return LandingSenderStream.open(transport, routes, name, guarantee, attempt, restoredAttempt, restoredEpoch);
    }

    /**
     * Opens one multicast stream to the landings of several sites and sends its BEGIN to each: every landing gets
     * every record, in order, as the landed stream {@code name}. A landing that is full holds the sender (as one
     * landing does); {@code multicast} says how long a landing that takes nothing is waited for
     * ({@code multicast.hold-timeout-ms}) before it is dropped, which {@link #awaitLanded} then reports. Only the
     * {@code hold} slow-destination policy is accepted: leaving a landing behind would lose its records.
     *
     * @param landings the routes to each site's landing, by site name (which names it in messages and stats)
     * @throws IllegalArgumentException without landings, or with {@code multicast.slow-destination} leave-behind
     */
    static LandingSender open(Transport transport, Map<String, StreamRoutes> landings, String name,
            LandingGuarantee guarantee, long attempt, long restoredAttempt, long restoredEpoch, MulticastSettings multicast) {
        return LandingMulticastSender.open(transport, landings, name, guarantee, attempt, restoredAttempt, restoredEpoch,
                multicast);
    }

    /**
     * Adds one record, stamped with the wall-clock time it was sent (for the landing's replication
     * latency), without blocking.
     *
     * @return {@link OutboundStream#ACCEPTED} or why not (see {@link OutboundStream#offer})
     */
    int offer(byte[] src, int offset, int length);

    /**
     * Ends epoch {@code epoch} (greater than the last one marked): the records offered since the last
     * mark belong to it. Exactly-once only.
     *
     * @return {@link OutboundStream#ACCEPTED} or why not
     */
    int mark(long epoch);

    /**
     * Sends what is pending and waits until the landing has journaled all of it.
     *
     * @return false if that did not happen within {@code timeoutNanos}
     * @throws IllegalStateException if the stream failed or was closed (naming why)
     */
    boolean awaitLanded(long timeoutNanos) throws InterruptedException;

    /** This run's attempt id. */
    long attempt();

    /** The landed stream's name. */
    String name();

    /** Each landing it sends to, as it stands (one for a sender opened with one landing's routes). */
    List<LandingSenderStats> landings();

    /** Why the sender cannot land what it was offered, if it cannot: its stream failed, or a landing was dropped. */
    Optional<Throwable> failure();

    /** Closes the stream: what was not landed within {@code transport.close-timeout-ms} is dropped. */
    @Override
    void close();
}
