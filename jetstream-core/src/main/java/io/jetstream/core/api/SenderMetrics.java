package io.jetstream.core.api;

import io.jetstream.core.model.FlushPolicy;
import java.util.Map;

/**
 * What one sending stream has done so far: read-only, each counter read as it is now. Adapters bind
 * {@link #snapshot()} entries to the engine's gauges. The transport counts (once per batch, never
 * per record).
 *
 * <p>Threading contract: any thread reads; the counters are updated by the threads that seal, send
 * or acknowledge batches.
 */
public interface SenderMetrics {
    /** Why an end of send left its batch open (adaptive mode): what the link was observed doing. */
    enum HeldBy {
        /** Another thread held the outbox (an acknowledgement, a retry, a route change). */
        OUTBOX_BUSY,
        /** Sealed batches were waiting to be written (window full, route full, no route). */
        BATCHES_WAITING,
        /** Every route in use had bytes queued (a TCP channel's outbound buffer). */
        ROUTE_QUEUED
    }

    /** Batches sealed for {@code reason} so far. */
    long batchesSealed(FlushPolicy.Reason reason);

    /** Ends of sends that left their batch open for {@code why}. */
    long held(HeldBy why);

    /** Batches written into the receiver's shared-memory ring. */
    long ringBatches();

    /** Times a ring route gave way to TCP. */
    long ringFallbacks();

    /** Link probes sent (adaptive batching). */
    long probes();

    /** Batches sealed (for any reason). */
    long batchesSealed();

    /** Records in the batches sealed. */
    long recordsSealed();

    /** Bytes of the batches sealed, frame headers included. */
    long bytesSealed();

    /** Batch writes to a route, replays included. */
    long batchesSent();

    /** Batches the receiver acknowledged (or, best-effort over a ring, that the ring shows delivered). */
    long batchesAcknowledged();

    /**
     * Records in the batches acknowledged. In a stream delivered in strict order, the first this many
     * records offered are confirmed.
     */
    long recordsAcknowledged();

    /** Batches written again after their route was lost or replaced. */
    long batchesReplayed();

    /** Batches kept in the journal rather than in memory. */
    long batchesSpilled();

    /** Records given up: sealed while no route was connected (best-effort), or unconfirmed when a route was lost. */
    long recordsDropped();

    /** Connections re-established after a route was lost. */
    long reconnects();

    /** Connection attempts that failed (refused, timed out, TLS handshake failed). */
    long connectFailures();

    /**
     * Relay routes a relay did not carry: it refused the relay secret, could not reach the receiver, or
     * did not prove the relay secret itself, or an acknowledgement it forwarded failed its MAC.
     */
    long relayFailures();

    /** Routes closed as lost because they had batches in flight and received nothing for {@code transport.route-stall-timeout-ms}. */
    long routeStalls();

    /** Connections the receiver refused in its handshake (an ERROR: authentication failed, too many streams...). */
    long refusals();

    /** The receiver's reason for its last refusal ({@link #refusals()}), empty if it never refused. */
    String lastRefusal();

    /** Offers refused because the stream's memory (and journal) budget was full. */
    long backPressured();

    /** Smoothed time from sealing a batch to its acknowledgement, in µs. */
    long ackLatencyMicros();

    /** Routes that carry batches now: ready, and among those the oracle and the relay choice put in use. */
    int routesInUse();

    /** Bytes of the batches acknowledged that route {@code route} carried (0 for an unknown route). */
    long bytesAcknowledged(int route);

    /** Every counter by its name (dashed, as engines' gauges show them), read now: a snapshot. */
    Map<String, Long> snapshot();
}
