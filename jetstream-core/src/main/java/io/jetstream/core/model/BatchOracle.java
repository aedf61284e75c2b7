package io.jetstream.core.model;

/**
 * JetStream's batch oracle (Algorithm 2): chooses the number of routes and the batch size that
 * minimises the predicted per-event latency on them.
 *
 * <ul>
 *   <li>The user's maximum event delay caps the batch: the first event of a batch waits
 *       (b − 1) / rate for the last, so b ≤ maxDelay · rate + 1 (line 3).
 *   <li>A route count is considered only while another batch can be formed during one transfer:
 *       Ratio_CPU · batching · routes &lt; transfer₁ + encoding (line 10, no idle routes).
 *   <li>Routes are counted by the rate: the fewest routes on which some batch size is sustainable
 *       (§3.6's no idle routes, taken to its end: at a rate one route carries, one route, as
 *       relays cost the site's bandwidth and reorder the stream); more only when fewer cannot carry
 *       it. (Minimising latency over every route count instead used three or four routes at a
 *       tenth of one route's capacity, where extra routes shave a few percent off a modelled
 *       transfer.)
 *   <li>The search probes batch sizes in doubling steps, then searches exhaustively between the
 *       neighbours of every local optimum (the paper's coarse probing plus local exhaustive search)
 *       and keeps the minimum.
 *   <li>Ours: the predicted latency includes {@link LatencyModel#queueing}, and a point counts as
 *       sustainable only below {@code maxUtilisation} of its modelled capacity.
 *   <li>Ours: if no point is sustainable (saturated: the producer outruns every setting), the choice
 *       is for throughput, but not blindly for the largest batch: of the points reaching
 *       {@value #SATURATED_CAPACITY_SHARE} of the highest capacity, the one with the lowest modelled
 *       latency (the smallest batch near the top of the throughput curve). Line 3's cap assumes
 *       batches form at the measured rate and no longer binds when events wait anyway; instead a
 *       batch may add at most the user's maximum delay to one event's transfer on one route, or
 *       every event in it would be late by more than the bound the user set on batching alone.
 *       What a single event's transfer costs is paid whatever the batch, so it is not counted
 *       against that bound: capping the whole transfer instead chose single-event batches whenever
 *       the measured per-batch latency exceeded the bound (seen on a CPU-starved host, where probe
 *       round trips of 100+ ms made every batch one record and the per-batch work then starved the
 *       host further). The decision says it is not sustainable.
 * </ul>
 *
 * <p>Stateless apart from its limits; thread-safe. {@link #decide} allocates only its result.
 */
public final class BatchOracle {
    private final int maxBatchSize;
    private final int maxRoutes;
    private final double serviceVariation;
    private final double maxUtilisation;

    /** Default share of the modelled capacity a choice may use. */
    public static final double DEFAULT_MAX_UTILISATION = 0.95;

    /** Share of the highest capacity a saturated choice must reach. */
    public static final double SATURATED_CAPACITY_SHARE = 0.95;

    /** As {@link #BatchOracle(int, int, double, double)} with {@link #DEFAULT_MAX_UTILISATION}. */
    public BatchOracle(int maxBatchSize, int maxRoutes, double serviceVariation) {
        this(maxBatchSize, maxRoutes, serviceVariation, DEFAULT_MAX_UTILISATION);
    }

    /**
     * @param maxBatchSize largest batch the transport accepts
     * @param maxRoutes most parallel routes available (JetStream's MaxNodesConsidered)
     * @param serviceVariation coefficient of variation of a batch's transfer time (link jitter)
     * @param maxUtilisation highest share of the modelled capacity a choice may use: estimates of
     *     the link are never exact, and near saturation a small error means an unbounded queue. The
     *     variability of the load and of the link is priced by the queueing term; this margin is for
     *     the error of the estimates only
     */
    public BatchOracle(int maxBatchSize, int maxRoutes, double serviceVariation, double maxUtilisation) {
        if (maxBatchSize < 1 || maxRoutes < 1 || serviceVariation < 0 || !(maxUtilisation > 0 && maxUtilisation <= 1)) {
            throw new IllegalArgumentException("invalid oracle limits");
        }
        this.maxBatchSize = maxBatchSize;
        this.maxRoutes = maxRoutes;
        this.serviceVariation = serviceVariation;
        this.maxUtilisation = maxUtilisation;
    }

    /** Line 3: the largest batch whose first event still meets the user's maximum delay. */
    public int maxBatchByDelay(StreamContext c) {
        double bound = c.maxEventDelaySeconds() * c.eventsPerSecond() + 1;
        return (int) Math.max(1, Math.min(maxBatchSize, Math.floor(bound)));
    }

    public BatchDecision decide(StreamContext c) {
        int maxBatch = maxBatchByDelay(c);
        Search best = new Search();
        for (int routes = 1; routes <= maxRoutes; routes++) {
            searchRoutes(c, routes, maxBatch, best);
            if (best.sustainable) {
                break; // §3.6's no idle routes, to its end: the fewest routes that carry the rate, then the best batch there
            }
        }
        if (!best.sustainable) {
            nearTopCapacity(c, maxBatch, best);
        }
        LatencyEstimate estimate = LatencyModel.estimate(c, best.batch, best.routes);
        double queueing = LatencyModel.queueing(c, best.batch, best.routes, serviceVariation);
        return new BatchDecision(estimate, queueing, best.sustainable, maxBatch, best.evaluated);
    }

    /** Best point so far: sustainable points rank by latency, unsustainable ones by capacity. */
    private static final class Search {
        int batch = 1;
        int routes = 1;
        boolean sustainable;
        double score = Double.POSITIVE_INFINITY; // latency if sustainable, -capacity otherwise
        int evaluated;
    }

    /**
     * Saturated: first caps the batch so that it crosses one route within the user's maximum delay
     * of a single event's transfer (and takes the highest capacity under that cap), then replaces that point by the
     * lowest-latency one among those reaching {@link #SATURATED_CAPACITY_SHARE} of its capacity.
     * Capacity grows with the batch size, so for each route count the candidate is the smallest
     * batch that reaches it (binary search).
     */
    private void nearTopCapacity(StreamContext c, int maxBatch, Search best) {
        int byTransfer = largestBatchWithin(c, LatencyModel.transfer(c, 1, 1) + c.maxEventDelaySeconds(), maxBatch);
        if (byTransfer < maxBatch) {
            // The highest capacity among batches that cross one route within the delay.
            maxBatch = byTransfer;
            best.batch = byTransfer;
            best.routes = 1;
            best.score = -LatencyModel.capacity(c, byTransfer, 1);
            for (int routes = 2; routes <= maxRoutes; routes++) {
                double capacity = LatencyModel.capacity(c, byTransfer, routes);
                if (admissible(c, byTransfer, routes) && -capacity < best.score) {
                    best.routes = routes;
                    best.score = -capacity;
                }
            }
        }
        double needed = SATURATED_CAPACITY_SHARE * -best.score;
        double bestLatency = LatencyModel.estimate(c, best.batch, best.routes).total();
        for (int routes = 1; routes <= maxRoutes; routes++) {
            if (LatencyModel.capacity(c, maxBatch, routes) < needed) {
                continue;
            }
            int lo = 1;
            int hi = maxBatch;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                best.evaluated++;
                if (LatencyModel.capacity(c, mid, routes) >= needed) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            if (!admissible(c, lo, routes)) {
                continue;
            }
            double latency = LatencyModel.estimate(c, lo, routes).total();
            if (latency < bestLatency) {
                bestLatency = latency;
                best.batch = lo;
                best.routes = routes;
            }
        }
    }

    /** The largest batch (at least 1) whose one-route transfer takes at most {@code seconds}. */
    private static int largestBatchWithin(StreamContext c, double seconds, int maxBatch) {
        if (LatencyModel.transfer(c, maxBatch, 1) <= seconds) {
            return maxBatch;
        }
        int lo = 1;
        int hi = maxBatch;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (LatencyModel.transfer(c, mid, 1) <= seconds) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /**
     * Whether a route count may be used with this batch size: JetStream's line 10 (another batch
     * can be formed during one transfer, CPU ratio included) and §3.6's no-idle-routes condition.
     */
    private static boolean admissible(StreamContext c, int batch, int routes) {
        if (routes == 1) {
            return true;
        }
        double batching = LatencyModel.batching(c, batch);
        double encoding = LatencyModel.encoding(c, batch);
        double transferOne = LatencyModel.transfer(c, batch, 1);
        if (!(LatencyModel.cpuRatio(c, batch) * batching * routes < transferOne + encoding)) {
            return false; // the paper's literal line 10
        }
        double formation = batch / c.eventsPerSecond(); // time to form one batch
        return (routes - 1) * formation <= transferOne + encoding; // §3.6: no fewer batches per transfer than routes
    }

    private void searchRoutes(StreamContext c, int routes, int maxBatch, Search best) {
        // Coarse probe: 1, 2, 4, ... maxBatch.
        int probes = 0;
        for (long b = 1; b < maxBatch; b *= 2) {
            probes++;
        }
        probes++;
        int[] sizes = new int[probes];
        double[] scores = new double[probes];
        int i = 0;
        for (long b = 1; b < maxBatch; b *= 2) {
            sizes[i] = (int) b;
            scores[i++] = evaluate(c, (int) b, routes, best);
        }
        sizes[i] = maxBatch;
        scores[i] = evaluate(c, maxBatch, routes, best);
        // Exhaustive search between the neighbours of each local optimum.
        for (int k = 0; k < probes; k++) {
            boolean left = k == 0 || scores[k] <= scores[k - 1];
            boolean right = k == probes - 1 || scores[k] <= scores[k + 1];
            if (left && right && scores[k] < Double.POSITIVE_INFINITY) {
                int from = k == 0 ? 1 : sizes[k - 1] + 1;
                int to = k == probes - 1 ? maxBatch : sizes[k + 1] - 1;
                for (int b = from; b <= to; b++) {
                    evaluate(c, b, routes, best);
                }
            }
        }
    }

    /** Scores one point (lower is better) and records it if it beats the best. */
    private double evaluate(StreamContext c, int batch, int routes, Search best) {
        best.evaluated++;
        if (!admissible(c, batch, routes)) {
            return Double.POSITIVE_INFINITY;
        }
        double queueing = LatencyModel.queueing(c, batch, routes, serviceVariation);
        boolean sustainable = c.eventsPerSecond() <= maxUtilisation * LatencyModel.capacity(c, batch, routes);
        double score = sustainable
                ? LatencyModel.batching(c, batch) + LatencyModel.encoding(c, batch) + LatencyModel.decoding(c, batch)
                        + LatencyModel.transfer(c, batch, routes) + LatencyModel.reordering(c, batch, routes) + queueing
                : -LatencyModel.capacity(c, batch, routes);
        boolean better = sustainable
                ? !best.sustainable || score < best.score
                : !best.sustainable && score < best.score;
        if (better) {
            best.batch = batch;
            best.routes = routes;
            best.sustainable = sustainable;
            best.score = score;
        }
        return sustainable ? score : Double.POSITIVE_INFINITY;
    }
}
