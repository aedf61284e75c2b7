package io.jetstream.core.model;

import io.jetstream.core.model.MulticastPlanner.Goal;
import io.jetstream.core.model.MulticastPlanner.Inputs;
import io.jetstream.core.model.MulticastPlanner.Plan;
import io.jetstream.core.model.MulticastPlanner.Site;
import io.jetstream.core.model.MulticastPlanner.Strategy;
import java.util.List;

/**
 * The multicast chooser at run time: it re-decides, from what a running multicast measures, which destination
 * sites get the stream directly and which through their replicating node (JetStream §3.4), keeping the sender's
 * direct connections within Atmosphere's {@code K_p} ({@link FanOutBound}, fed the same measurements).
 *
 * <p>Every {@code intervalNanos} of the injected clock it plans anew ({@link MulticastPlanner#plan}) from the
 * inputs measured then, strategies and routes. The route count follows the new plan whenever its strategies are those
 * in force (a destination's stream counts its routes itself, with its oracle, by the same rule: fewest within 1 % of
 * the best latency). The plan in force is replaced when the new one differs and either the plan in force,
 * evaluated on the same inputs, no longer keeps the goal (its latency bound, spend limit or {@code K_p}) while the
 * new one does, or the new one is better by more than {@code hysteresis} (cheaper under a latency bound, faster
 * otherwise): measurements that wobble do not flip a plan back and forth. A site whose replicating node was lost
 * ({@link #replicatorLost}) is planned direct from then on.
 *
 * <p>Not thread-safe: one thread measures and reads. No wall clock.
 */
public final class MulticastReplanner {
    private final List<Site> sites;
    private final Goal goal;
    private final FanOutBound fanOut;
    private final long intervalNanos;
    private final double hysteresis;
    private int replicable;
    private Plan current;
    private int currentMask = -1;
    private int currentRoutes = 1;
    private long lastPlanNanos;
    private boolean planned;
    private long changes;

    /** What the running multicast measured over the last interval. */
    public record Measurement(double eventsPerSecond, double eventBytes, double batchEvents, double oneWaySeconds,
            double cpuUtilisation, int directConnections) {}

    /**
     * @param sites the destination sites, in a fixed order (bit {@code i} of a mask is site {@code i})
     * @param goal the user's price, spend limit and latency bound; its {@code maxDirectConnections} is replaced by
     *     {@code fanOut}'s bound at each decision
     * @param hysteresis relative improvement a plan needs to replace one that keeps the goal, in [0, 1)
     */
    public MulticastReplanner(List<Site> sites, Goal goal, FanOutBound fanOut, long intervalNanos, double hysteresis) {
        if (sites.isEmpty() || sites.size() > MulticastPlanner.MAX_SITES || intervalNanos < 1 || !(hysteresis >= 0 && hysteresis < 1)) {
            throw new IllegalArgumentException("replanner: " + sites.size() + " sites, interval " + intervalNanos + " ns, hysteresis "
                    + hysteresis);
        }
        this.sites = List.copyOf(sites);
        this.goal = goal;
        this.fanOut = fanOut;
        this.intervalNanos = intervalNanos;
        this.hysteresis = hysteresis;
        this.replicable = (1 << sites.size()) - 1;
    }

    /**
     * The plan to start with, before anything was measured ({@code prior}: the inputs the user configured or
     * the model's defaults).
     */
    public Plan start(long nowNanos, Inputs prior) {
        current = MulticastPlanner.plan(sites, prior, withBound(), replicable);
        currentMask = maskOf(current);
        currentRoutes = current.routes();
        lastPlanNanos = nowNanos;
        planned = true;
        return current;
    }

    /**
     * One measurement; returns the plan to switch to now, or null to keep the plan in force.
     *
     * @param interSite the link to the other sites, its latency term the one-way delay measured
     */
    public Plan onMeasurement(long nowNanos, Measurement m, Inputs in) {
        if (!planned) {
            throw new IllegalStateException("start first");
        }
        fanOut.sample(nowNanos, m.cpuUtilisation(), m.directConnections(), m.eventsPerSecond(), m.eventBytes());
        if (nowNanos - lastPlanNanos < intervalNanos || !(m.eventsPerSecond() > 0)) {
            return null;
        }
        lastPlanNanos = nowNanos;
        Goal g = withBound();
        Plan candidate = MulticastPlanner.plan(sites, in, g, replicable);
        Plan inForce = MulticastPlanner.evaluate(sites, currentMask & replicable, Math.min(currentRoutes, in.maxRoutes()), in, g);
        int candidateMask = maskOf(candidate);
        boolean forced = (currentMask & ~replicable) != 0;
        current = inForce;
        if (candidateMask == (currentMask & replicable) && !forced) {
            // The same strategies: the route count follows the model at once (each stream's oracle counts its own routes
            // by the same rule; nothing is reopened).
            current = candidate;
            currentRoutes = candidate.routes();
            return null;
        }
        if (forced || (!keeps(inForce) && keeps(candidate)) || better(candidate, inForce, g)) {
            current = candidate;
            currentMask = candidateMask;
            currentRoutes = candidate.routes();
            changes++;
            return candidate;
        }
        return null;
    }

    /** Site {@code index}'s replicating node was lost: the site is planned direct from now on. */
    public void replicatorLost(int index) {
        replicable &= ~(1 << index);
    }

    private Goal withBound() {
        return new Goal(goal.pricePerOutboundGb(), goal.spendLimitPerHour(), goal.latencyBoundSeconds(),
                Math.min(goal.maxDirectConnections(), fanOut.bound()));
    }

    private static boolean keeps(Plan p) {
        return p.withinBudget() && p.meetsLatencyBound() && p.withinFanOut() && Double.isFinite(p.maxLatencySeconds());
    }

    private boolean better(Plan candidate, Plan inForce, Goal g) {
        if (!keeps(candidate)) {
            return false;
        }
        if (Double.isFinite(g.latencyBoundSeconds())) {
            return candidate.spendPerHour() < (1 - hysteresis) * inForce.spendPerHour();
        }
        return candidate.meanLatencySeconds() < (1 - hysteresis) * inForce.meanLatencySeconds();
    }

    private int maskOf(Plan p) {
        int mask = 0;
        for (int i = 0; i < p.sites().size(); i++) {
            if (p.sites().get(i).strategy() == Strategy.REPLICATED) {
                mask |= 1 << i;
            }
        }
        return mask;
    }

    /** The plan in force, as last evaluated on measured inputs. */
    public Plan current() {
        return current;
    }

    /** Bit {@code i} set: site {@code i} is replicated in the plan in force. */
    public int currentMask() {
        return currentMask;
    }

    /** {@code K_p} now. */
    public int fanOutBound() {
        return fanOut.bound();
    }

    /** Plans switched to since the start. */
    public long changes() {
        return changes;
    }
}
