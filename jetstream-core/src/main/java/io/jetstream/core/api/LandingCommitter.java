package io.jetstream.core.api;

import io.jetstream.core.internal.landing.LandingCommitStream;

/**
 * Commits epochs of landed streams ({@link LandingSender#mark}) at a landing: a Flink committer's
 * connection. A commit of epoch {@code e} of an attempt releases that attempt's records up to the
 * end of {@code e}; committing again, or an earlier epoch, changes nothing (commits are idempotent,
 * as Flink requires of committers, which retry after recovery).
 *
 * <p>Threading contract: one thread at a time.
 */
public interface LandingCommitter extends AutoCloseable {
    /** Opens a commit stream named {@code name} (unique per landing: one per committer subtask). */
    static LandingCommitter open(Transport transport, StreamRoutes routes, String name) {
        return LandingCommitStream.open(transport, routes, name);
    }

    /**
     * Commits {@code epoch} of {@code attempt} of landed stream {@code stream} and waits until the
     * landing has journaled the commit.
     *
     * @return false if that did not happen within {@code timeoutNanos} (retry later)
     * @throws IllegalStateException if the commit stream failed (naming why)
     */
    default boolean commit(String stream, long attempt, long epoch, long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        return send(stream, attempt, epoch, timeoutNanos) && awaitJournaled(deadline - System.nanoTime());
    }

    /**
     * Sends the commit of {@code epoch} of {@code attempt} of landed stream {@code stream} without waiting for the
     * landing to journal it ({@link #awaitJournaled}): commits at several landings then take one round trip.
     *
     * @return false if the commit stream pushed back for {@code timeoutNanos}
     * @throws IllegalStateException if the commit stream failed (naming why)
     */
    boolean send(String stream, long attempt, long epoch, long timeoutNanos) throws InterruptedException;

    /**
     * Waits until the landing has journaled every commit sent.
     *
     * @return false if that did not happen within {@code timeoutNanos} (retry later)
     * @throws IllegalStateException if the commit stream failed (naming why)
     */
    boolean awaitJournaled(long timeoutNanos) throws InterruptedException;

    /** Whether the commit stream is connected to the landing now. */
    boolean isConnected();

    @Override
    void close();
}
