package io.jetstream.core.model;

/**
 * JetStream's per-event latency model (Tudoran et al., FGCS 2016, §3.3 and §3.6) as pure functions
 * of a {@link StreamContext}. With b events per batch, s bytes per event and B = b·s bytes per batch:
 *
 * <pre>
 *   batching   = (b − 1) / 2 / rate                             the mean wait for the batch's last event
 *   encoding   = (tHe + tDe·B) / b                              and decoding alike
 *   transfer   = (sOt + sOe + B) / thr(B, routes)               every event waits for its batch
 *              = T(sOt + sOe + B) / routes                       with T(W) = α + max(0, W − burst)/β
 *   reordering = Σ_{i=2..routes} Σ_{j=1..L} Poisson(j,1)·j·transfer1 / (b·L)    (L = 10)
 *   Ratio_CPU  = encoding / ((batching + encoding) · cores)
 *   capacity   = min(routes · b / max(T(W), W/β), b / (tHe + tDe·B))   (W = sOt + sOe + B; encoding pipelined with sending)
 *   queueing   = Wq · exp(−ρ · slack / Wq),  Wq = ρ/(1−ρ) · (ca²/b + cs²)/2 · service
 *                                                         (Kingman; ∞ when ρ ≥ 1; slack = max(0, burst − W)/β)
 * </pre>
 *
 * The queueing term is ours, not the paper's: Algorithm 2 alone would happily pick batches the link
 * cannot carry at the measured rate, or ones so close to its capacity that waiting for the link
 * dominates. With ρ = rate / capacity, cs the coefficient of variation of a batch's service time
 * (link jitter) and ca that of the time between events (a batch of b independent gaps varies as
 * ca/√b), Kingman's approximation prices that wait, and batches the link cannot keep up with cost
 * infinity. A paced source (ca = 0) can run a steady link close to its capacity; a bursty one pays
 * for every small batch near it.
 *
 * <p>On a shaped link the wait is only the backlog beyond the bucket. A token bucket of depth d
 * filled at β is a queue served at β whose first d bytes of backlog pass undelayed: a send of W
 * bytes that finds a backlog V (seconds of work at β) waits max(0, V − slack) beyond its own
 * transfer, slack = max(0, d − W)/β (a send as deep as the bucket empties it and waits for all of
 * V). With the backlog taken as Kingman's heavy-traffic form — positive with probability ρ, then
 * exponential with mean Wq/ρ — the mean of that is Wq·exp(−ρ·slack/Wq). On a plain link (d = 0)
 * it is Wq. Without it, a paced stream of small sends at 87 % of a 100 Mbit/s tbf link with a
 * 4 KiB bucket was modelled at 5.1 µs where it measured 2.9: the bucket never ran dry.
 *
 * Readings of the paper's notation, stated once: the paper writes batching as b/2 · 1/rate; the
 * events of a batch wait 0, 1, …, b − 1 inter-arrival times for its last event, (b − 1)/2 on average,
 * which is the same for large batches but, unlike b/2, says that an event sent alone waits for
 * nothing (measured on real sockets, b/2 overstates small batches' latency by half an inter-arrival);
 * {@code batch_SizeMB} is read as the batch's bytes
 * B (so its Size_Total is B); {@code thr(B, routes)} is the aggregate of {@code routes} independent
 * routes, each following the fitted {@link ThroughputCurve}; the batch latency in the reordering
 * penalty is the one-route transfer time of a batch.
 *
 * <p>Stateless and thread-safe.
 */
public final class LatencyModel {
    /** Batches regarded as possibly overtaking the expected one on a route (the paper's L). */
    public static final int REORDER_HORIZON = 10;

    /** Σ_{j=1..L} Poisson(j, 1)·j, precomputed. */
    static final double POISSON_PENALTY_SUM;

    static {
        double sum = 0;
        double factorial = 1;
        for (int j = 1; j <= REORDER_HORIZON; j++) {
            factorial *= j;
            sum += Math.exp(-1) / factorial * j;
        }
        POISSON_PENALTY_SUM = sum;
    }

    private LatencyModel() {}

    public static double batchBytes(StreamContext c, int batchSize) {
        return batchSize * c.eventBytes();
    }

    public static double batching(StreamContext c, int batchSize) {
        return (batchSize - 1) / 2.0 / c.eventsPerSecond();
    }

    public static double encoding(StreamContext c, int batchSize) {
        return (c.encodeHeaderSeconds() + c.encodeSecondsPerByte() * batchBytes(c, batchSize)) / batchSize;
    }

    public static double decoding(StreamContext c, int batchSize) {
        return (c.decodeHeaderSeconds() + c.decodeSecondsPerByte() * batchBytes(c, batchSize)) / batchSize;
    }

    /** Bytes one batch puts on the wire: sOe + B, plus sOt per segment ({@link StreamContext#wireBytes}). */
    public static double wireBytes(StreamContext c, int batchSize) {
        return c.wireBytes(c.encodingOverheadBytes() + batchBytes(c, batchSize));
    }

    /** Transfer latency over {@code routes} aggregated routes. */
    public static double transfer(StreamContext c, int batchSize, int routes) {
        return c.link().transferSeconds(wireBytes(c, batchSize)) / routes;
    }

    public static double reordering(StreamContext c, int batchSize, int routes) {
        if (routes < 2) {
            return 0;
        }
        double batchLatency = transfer(c, batchSize, 1);
        return (routes - 1) * POISSON_PENALTY_SUM * batchLatency / ((double) batchSize * REORDER_HORIZON);
    }

    public static double cpuRatio(StreamContext c, int batchSize) {
        double encoding = encoding(c, batchSize);
        double busy = batching(c, batchSize) + encoding;
        return busy == 0 ? 0 : encoding / (busy * c.cores());
    }

    /**
     * Events per second that batches of this size can carry over {@code routes}. Encoding and
     * sending are pipelined (the writer encodes the next batch while the routes carry earlier ones,
     * as in every transport here: the producer thread writes records into the frame, I/O threads
     * put frames on the wire), so the slower stage bounds it: each route sends one batch per
     * one-route transfer time — and no faster than its stable throughput, however much of the batch
     * a token bucket's burst lets through at once — and the one writer encodes one batch per
     * encode time.
     */
    public static double capacity(StreamContext c, int batchSize, int routes) {
        double encodeBatch = c.encodeHeaderSeconds() + c.encodeSecondsPerByte() * batchBytes(c, batchSize);
        double transferBatch = c.link().occupancySeconds(wireBytes(c, batchSize));
        return Math.min(routes * batchSize / transferBatch, encodeBatch > 0 ? batchSize / encodeBatch : Double.POSITIVE_INFINITY);
    }

    /** Waiting for a free route, per event (seconds); infinite when the link cannot keep up. */
    public static double queueing(StreamContext c, int batchSize, int routes, double serviceVariation) {
        double capacity = capacity(c, batchSize, routes);
        double utilisation = c.eventsPerSecond() / capacity;
        if (utilisation >= 1) {
            return Double.POSITIVE_INFINITY;
        }
        double service = routes * batchSize / capacity; // seconds the bottleneck stage is busy with one batch, per route
        double arrivals = c.arrivalVariation() * c.arrivalVariation() / batchSize;
        double wait = utilisation / (1 - utilisation) * (arrivals + serviceVariation * serviceVariation) / 2 * service;
        double wire = wireBytes(c, batchSize);
        boolean linkBound = capacity >= routes * batchSize / c.link().occupancySeconds(wire); // not the encoder
        double slack = linkBound ? c.link().slackSeconds(wire) : 0;
        if (slack > 0 && wait > 0) {
            wait *= Math.exp(-utilisation * slack / wait); // only the backlog beyond the bucket's tokens delays a send
        }
        return wait / routes;
    }

    public static LatencyEstimate estimate(StreamContext c, int batchSize, int routes) {
        if (batchSize < 1 || routes < 1) {
            throw new IllegalArgumentException("batch size and routes must be >= 1");
        }
        return new LatencyEstimate(batchSize, routes,
                batching(c, batchSize), encoding(c, batchSize), decoding(c, batchSize),
                transfer(c, batchSize, routes), reordering(c, batchSize, routes), cpuRatio(c, batchSize),
                transfer(c, batchSize, 1), capacity(c, batchSize, routes));
    }
}
