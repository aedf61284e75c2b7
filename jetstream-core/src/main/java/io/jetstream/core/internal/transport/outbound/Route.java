package io.jetstream.core.internal.transport.outbound;

/**
 * One way a stream's batches reach the receiver: a TCP connection, or the receiver's shared-memory
 * ring (JetStream's routes, TurboStream's OSRBuffer as a route of its own). The {@link Outbox}
 * writes batches to whichever routes are ready and never asks which kind carries them; a route
 * reports readiness and loss through the outbox ({@link Outbox#onRouteReady}, {@link Outbox#onRouteLost},
 * {@link Outbox#onRouteReplaced}).
 *
 * <p>Threading: {@link #write} and {@link #probe} are called under the outbox's lock, one call at a
 * time per route, from whichever thread holds that lock.
 */
public interface Route {
    /**
     * The batch was handed to the route; its acknowledgement will come over the stream's connection
     * (or, best-effort, the route shows its delivery: {@link #delivered}).
     */
    int WRITTEN = 0;
    /** The route has no room now (a full ring): the outbox keeps the batch and retries. */
    int FULL = 1;
    /** The route cannot carry batches any more: the outbox keeps the batch and the route reports its loss. */
    int UNAVAILABLE = 2;

    /** Which of the stream's routes this is (the HELLO's route number). */
    int index();

    /** Writes a sealed batch ({@link OutboundBatch#frame()} is not consumed). */
    int write(OutboundBatch batch);

    /** Sends a link probe of {@code bytes} identified by {@code id}, if the route can. */
    void probe(long id, int bytes);

    /**
     * Whether {@code batch}, last written to this route, has been taken by the receiver as the route
     * itself shows it — a ring: its consumer's head has passed the batch's record, which it passes
     * only after delivering it — so that a best-effort stream frees the batch without waiting for an
     * acknowledgement. False for a route that only an acknowledgement confirms (TCP).
     */
    default boolean delivered(OutboundBatch batch) {
        return false;
    }

    /**
     * Bytes handed to this route and not yet on their way (a TCP channel's outbound buffer; a ring
     * route writes synchronously and has none). Any thread; a snapshot.
     */
    default long queuedBytes() {
        return 0;
    }

    /** What carries the data, for logs and metrics ("tcp", "ring"). */
    String kind();
}
