package io.jetstream.core.model;

import java.util.ArrayList;
import java.util.List;

/**
 * How one stream reaches several destination sites (JetStream §3.4 and its cost model, §7): per
 * destination site, <em>direct multicast</em> (the sender's site sends every batch to every
 * destination there: lowest latency, outbound bytes × destinations) or <em>replication at the
 * destination site</em> (one copy crosses to a replicating node of that site, which sends it on
 * inside the site: the outbound bytes of one copy, plus the replication's latency); and over how many
 * routes. A pure function of what was measured and what the user asks: {@link #plan} is called again
 * when the measurements move.
 *
 * <p>The model, with {@code wire = sOt + sOe + batch} the bytes of one batch on the wire, {@code D} the
 * copies the sender sends (one per destination reached directly, one per replicating node), and the
 * link curves of {@link ThroughputCurve} ({@code thr(S, routes) = S / T(S / routes)}):
 * <pre>
 *   batching      = (batchEvents − 1) / (2 × eventsPerSecond)
 *   transfer      = wire × D / thr(wire × D, routes)                  (Latency_transferDMS)
 *   replication_s = wire × d_s / thr_intra(wire × d_s)                (Latency_destination replication)
 *   latency_s     = batching + transfer (+ replication_s for a replicated site)
 *   outbound      = D × eventsPerSecond × wire / batchEvents           bytes per second leaving the site
 *   spend         = outbound × 3600 / 10⁹ × price per GB                per hour
 * </pre>
 * A plan whose outbound bytes exceed {@code maxUtilisation} of what its routes carry (or a site's
 * replication what its intra-site link carries) cannot keep up: its latency is infinite.
 *
 * <p>The choice, over every assignment of strategies to sites (exhaustive: {@code 2^sites}, at most
 * {@value #MAX_SITES} sites) and, for each, the fewest routes within 1 % of its best latency (no idle
 * routes, as the oracle's Algorithm 2): with a latency bound, the cheapest plan whose every site meets
 * it; else, with a spend limit, the plan of lowest mean latency (per destination) within it; else the
 * plan of lowest mean latency. Every plan keeps the sender's direct connections ({@code D}) within
 * Atmosphere's bound {@code K_p} ({@link FanOutBound}): destinations beyond it are reached through
 * replicating nodes. When no plan satisfies the goal, the nearest one is returned (the lowest latency
 * for a bound, the cheapest for a limit) with the unmet flag set.
 *
 * <p>Stateless; thread-safe.
 */
public final class MulticastPlanner {
    /** Most destination sites one stream is planned for (the search is exhaustive). */
    public static final int MAX_SITES = 16;
    /** A plan counts as as fast as the best when within this factor of its latency. */
    static final double ROUTE_TOLERANCE = 1.01;

    private MulticastPlanner() {}

    /** How a destination site gets the stream. */
    public enum Strategy {
        /** The sender sends every batch to every destination of the site. */
        DIRECT,
        /** The sender sends every batch once to a node of the site, which replicates it to the site's destinations. */
        REPLICATED
    }

    /** A destination site and how many destinations (nodes) there need the stream. */
    public record Site(String name, int destinations) {
        public Site {
            if (name == null || destinations < 1) {
                throw new IllegalArgumentException("site " + name + " with " + destinations + " destinations");
            }
        }
    }

    /**
     * What was measured.
     *
     * @param eventsPerSecond the stream's rate
     * @param eventBytes bytes of one event in a batch (framing included)
     * @param batchEvents events per batch (the oracle's decision)
     * @param batchOverheadBytes {@code sOt + sOe}: bytes a batch adds (headers, encoding)
     * @param interSite one route towards another site
     * @param maxRoutes routes the sender may use
     * @param intraSite the replicating node's link to the destinations of its site
     * @param maxUtilisation highest share of a link's stable throughput a plan may use, in (0, 1]
     */
    public record Inputs(double eventsPerSecond, double eventBytes, int batchEvents, double batchOverheadBytes,
            ThroughputCurve interSite, int maxRoutes, ThroughputCurve intraSite, double maxUtilisation) {
        public Inputs {
            if (!(eventsPerSecond > 0) || !(eventBytes > 0) || batchEvents < 1 || !(batchOverheadBytes >= 0) || interSite == null
                    || maxRoutes < 1 || intraSite == null || !(maxUtilisation > 0 && maxUtilisation <= 1)) {
                throw new IllegalArgumentException("multicast inputs: " + eventsPerSecond + " ev/s of " + eventBytes + " B, batch "
                        + batchEvents + ", overhead " + batchOverheadBytes + " B, " + maxRoutes + " routes, utilisation "
                        + maxUtilisation);
            }
        }

        double wireBytes() {
            return batchOverheadBytes + batchEvents * eventBytes;
        }
    }

    /**
     * What the user asks.
     *
     * @param pricePerOutboundGb price of a GB (10⁹ bytes) leaving the sender's site
     * @param spendLimitPerHour most to spend on outbound bytes per hour; infinite: no limit
     * @param latencyBoundSeconds most latency any site may see; infinite: no bound
     * @param maxDirectConnections {@code K_p}: most copies the sender sends itself
     */
    public record Goal(double pricePerOutboundGb, double spendLimitPerHour, double latencyBoundSeconds, int maxDirectConnections) {
        public Goal {
            if (!(pricePerOutboundGb >= 0) || !(spendLimitPerHour >= 0) || !(latencyBoundSeconds > 0) || maxDirectConnections < 1) {
                throw new IllegalArgumentException("multicast goal: " + pricePerOutboundGb + " per GB, limit " + spendLimitPerHour
                        + " per hour, bound " + latencyBoundSeconds + " s, K_p " + maxDirectConnections);
            }
        }

        /** The lowest latency, whatever it costs, within {@code K_p}. */
        public static Goal fastest(double pricePerOutboundGb, int maxDirectConnections) {
            return new Goal(pricePerOutboundGb, Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY, maxDirectConnections);
        }
    }

    /** One site's part of a plan and the latency the model predicts for it. */
    public record SitePlan(Site site, Strategy strategy, double predictedLatencySeconds) {}

    /**
     * A plan and what the model predicts of it.
     *
     * @param directConnections {@code D}: copies the sender sends
     * @param meanLatencySeconds per destination
     * @param withinBudget spend within the limit (true without one)
     * @param meetsLatencyBound every site within the bound (true without one)
     * @param withinFanOut {@code D ≤ K_p}
     */
    public record Plan(List<SitePlan> sites, int routes, int directConnections, double outboundBytesPerSecond,
            double spendPerHour, double meanLatencySeconds, double maxLatencySeconds, boolean withinBudget,
            boolean meetsLatencyBound, boolean withinFanOut) {
        public Plan {
            sites = List.copyOf(sites);
        }

        /** The strategy of the site named {@code name}. */
        public Strategy strategyOf(String name) {
            for (SitePlan s : sites) {
                if (s.site().name().equals(name)) {
                    return s.strategy();
                }
            }
            throw new IllegalArgumentException("no site " + name + " in the plan");
        }
    }

    /** The plan for {@code sites} (see the class comment for the rule). */
    public static Plan plan(List<Site> sites, Inputs in, Goal goal) {
        return plan(sites, in, goal, -1);
    }

    /**
     * The plan for {@code sites} among those that replicate only at sites whose bit is set in {@code replicable}
     * (a site whose replicating node was lost is reached directly).
     */
    public static Plan plan(List<Site> sites, Inputs in, Goal goal, int replicable) {
        if (sites.isEmpty() || sites.size() > MAX_SITES) {
            throw new IllegalArgumentException(sites.size() + " destination sites: 1 to " + MAX_SITES + " are planned");
        }
        Plan best = null;
        Plan nearest = null;
        for (int mask = 0; mask < 1 << sites.size(); mask++) {
            if ((mask & ~replicable) != 0) {
                continue;
            }
            Plan p = fewestGoodRoutes(sites, mask, in, goal);
            if (satisfies(p)) {
                if (best == null || better(p, best, goal)) {
                    best = p;
                }
            } else if (nearest == null || nearer(p, nearest, goal)) {
                nearest = p;
            }
        }
        return best != null ? best : nearest;
    }

    /**
     * The predicted plan for one assignment ({@code mask} bit {@code i} set: site {@code i} is
     * {@link Strategy#REPLICATED}) over {@code routes} routes.
     */
    public static Plan evaluate(List<Site> sites, int mask, int routes, Inputs in, Goal goal) {
        double wire = in.wireBytes();
        int copies = 0;
        for (int i = 0; i < sites.size(); i++) {
            copies += (mask & 1 << i) != 0 ? 1 : sites.get(i).destinations();
        }
        double outbound = copies * in.eventsPerSecond() * wire / in.batchEvents();
        boolean linkKeepsUp = outbound <= in.maxUtilisation() * routes * in.interSite().stableBytesPerSecond();
        double batching = (in.batchEvents() - 1) / (2 * in.eventsPerSecond());
        double transfer = in.interSite().transferSeconds(wire * copies / routes);
        List<SitePlan> planned = new ArrayList<>(sites.size());
        double weighted = 0;
        double max = 0;
        int destinations = 0;
        for (int i = 0; i < sites.size(); i++) {
            Site site = sites.get(i);
            boolean replicated = (mask & 1 << i) != 0;
            double latency = batching + transfer;
            if (replicated) {
                double intraBytes = site.destinations() * in.eventsPerSecond() * wire / in.batchEvents();
                latency += in.intraSite().transferSeconds(wire * site.destinations());
                if (intraBytes > in.maxUtilisation() * in.intraSite().stableBytesPerSecond()) {
                    latency = Double.POSITIVE_INFINITY;
                }
            }
            if (!linkKeepsUp) {
                latency = Double.POSITIVE_INFINITY;
            }
            planned.add(new SitePlan(site, replicated ? Strategy.REPLICATED : Strategy.DIRECT, latency));
            weighted += latency * site.destinations();
            destinations += site.destinations();
            max = Math.max(max, latency);
        }
        double spend = outbound * 3600 / 1e9 * goal.pricePerOutboundGb();
        return new Plan(planned, routes, copies, outbound, spend, weighted / destinations, max,
                spend <= goal.spendLimitPerHour(), max <= goal.latencyBoundSeconds(), copies <= goal.maxDirectConnections());
    }

    /**
     * The assignment over the fewest routes whose mean latency is within {@link #ROUTE_TOLERANCE} of its
     * best and that meets the goal, if one does (only the latency depends on the routes, the same way at
     * every site: the best route count meets the bound if any does); else the fewest within the tolerance.
     */
    private static Plan fewestGoodRoutes(List<Site> sites, int mask, Inputs in, Goal goal) {
        Plan[] byRoutes = new Plan[in.maxRoutes()];
        double bestLatency = Double.POSITIVE_INFINITY;
        for (int r = 1; r <= in.maxRoutes(); r++) {
            byRoutes[r - 1] = evaluate(sites, mask, r, in, goal);
            bestLatency = Math.min(bestLatency, byRoutes[r - 1].meanLatencySeconds());
        }
        Plan fewest = null;
        for (Plan p : byRoutes) {
            if (p.meanLatencySeconds() <= bestLatency * ROUTE_TOLERANCE) {
                if (satisfies(p)) {
                    return p;
                }
                if (fewest == null) {
                    fewest = p;
                }
            }
        }
        return fewest != null ? fewest : byRoutes[0]; // none keeps up
    }

    private static boolean satisfies(Plan p) {
        return Double.isFinite(p.maxLatencySeconds()) && p.withinBudget() && p.meetsLatencyBound() && p.withinFanOut();
    }

    private static boolean better(Plan a, Plan b, Goal goal) {
        if (Double.isFinite(goal.latencyBoundSeconds())) {
            return a.spendPerHour() < b.spendPerHour()
                    || a.spendPerHour() == b.spendPerHour() && a.meanLatencySeconds() < b.meanLatencySeconds();
        }
        return a.meanLatencySeconds() < b.meanLatencySeconds()
                || a.meanLatencySeconds() == b.meanLatencySeconds() && a.spendPerHour() < b.spendPerHour();
    }

    /** Among plans that miss the goal: within {@code K_p} first, then the lowest latency for a bound, else the cheapest. */
    private static boolean nearer(Plan a, Plan b, Goal goal) {
        if (a.withinFanOut() != b.withinFanOut()) {
            return a.withinFanOut();
        }
        if (Double.isFinite(goal.latencyBoundSeconds()) || !Double.isFinite(goal.spendLimitPerHour())) {
            return a.maxLatencySeconds() < b.maxLatencySeconds()
                    || a.maxLatencySeconds() == b.maxLatencySeconds() && a.spendPerHour() < b.spendPerHour();
        }
        return a.spendPerHour() < b.spendPerHour()
                || a.spendPerHour() == b.spendPerHour() && a.meanLatencySeconds() < b.meanLatencySeconds();
    }
}
