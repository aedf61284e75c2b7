package io.jetstream.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.model.MulticastPlanner.Goal;
import io.jetstream.core.model.MulticastPlanner.Inputs;
import io.jetstream.core.model.MulticastPlanner.Plan;
import io.jetstream.core.model.MulticastPlanner.Site;
import io.jetstream.core.model.MulticastPlanner.Strategy;
import io.jetstream.core.model.MulticastReplanner.Measurement;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The multicast chooser at run time, in virtual time: it follows the rate, keeps K_p, does not flip on noise. */
class MulticastReplannerTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long INTERVAL = 2 * SECOND;
    /** The sender's quota to other sites: 50 Mbit/s. */
    private static final double QUOTA = 6.25e6;
    private static final double EVENT_BYTES = 250;
    private static final List<Site> SITES = List.of(new Site("b", 4), new Site("c", 4));

    private static Inputs inputs(double rate) {
        return new Inputs(rate, EVENT_BYTES, 10, 21, new ThroughputCurve(0.025, QUOTA), 1, new ThroughputCurve(0.010, 1.25e9), 0.9);
    }

    private static Measurement measured(double rate, int directConnections) {
        return new Measurement(rate, EVENT_BYTES, 10, 0.025, 0.01 * directConnections, directConnections);
    }

    private static MulticastReplanner replanner(Goal goal) {
        return new MulticastReplanner(SITES, goal, new FanOutBound(QUOTA, 0.5, 4 * INTERVAL), INTERVAL, 0.1);
    }

    /** Feeds {@code rate} every half interval for {@code seconds}; returns the plan in force then. */
    private static Plan run(MulticastReplanner r, long[] now, double rate, long seconds) {
        for (long end = now[0] + seconds * SECOND; now[0] < end; now[0] += INTERVAL / 2) {
            r.onMeasurement(now[0], measured(rate, r.current().directConnections()), inputs(rate));
        }
        return r.current();
    }

    @Test
    void directWhileTheCopiesFitThenReplicatedAsTheRateRisesThenDirectAgain() {
        MulticastReplanner r = replanner(Goal.fastest(0.09, FanOutBound.UNBOUNDED));
        long[] now = {0};
        Plan first = r.start(now[0], inputs(1_000));
        assertEquals(8, first.directConnections(), "8 copies of 250 kB/s fit a 6.25 MB/s quota: every receiver directly");
        assertEquals(8, run(r, now, 1_000, 20).directConnections());

        // 5,000 records/s: one copy is 1.25 MB/s; 8 copies would be 10 MB/s, more than the quota
        Plan busy = run(r, now, 5_000, 10);
        assertTrue(busy.directConnections() <= r.fanOutBound(), busy + " within K_p " + r.fanOutBound());
        assertTrue(busy.directConnections() * 5_000 * EVENT_BYTES <= QUOTA, busy + " within the quota");
        assertTrue(busy.sites().stream().anyMatch(s -> s.strategy() == Strategy.REPLICATED), busy.toString());
        assertTrue(Double.isFinite(busy.maxLatencySeconds()), busy.toString());

        Plan quiet = run(r, now, 1_000, 40);
        assertEquals(8, quiet.directConnections(), "back to direct once the rate fell: " + quiet);
        assertTrue(r.changes() >= 2, "changed to replicated and back: " + r.changes());
    }

    @Test
    void underALatencyBoundTheCheapestPlanThatMeetsItAndNoiseDoesNotFlipIt() {
        MulticastReplanner r = replanner(new Goal(0.09, Double.POSITIVE_INFINITY, 0.1, FanOutBound.UNBOUNDED));
        long[] now = {0};
        Plan first = r.start(now[0], inputs(1_000));
        assertEquals(2, first.directConnections(), "both sites through their node: 2 copies, within 100 ms");
        for (int i = 0; i < 40; i++) {
            double rate = i % 2 == 0 ? 950 : 1_050;
            now[0] += INTERVAL / 2;
            assertNull(r.onMeasurement(now[0], measured(rate, 2), inputs(rate)), "no change at " + rate + " records/s");
        }
        assertEquals(0, r.changes());
    }

    @Test
    void aSiteWhoseNodeWasLostIsPlannedDirectAtTheNextDecision() {
        MulticastReplanner r = replanner(new Goal(0.09, Double.POSITIVE_INFINITY, 0.1, FanOutBound.UNBOUNDED));
        long[] now = {0};
        r.start(now[0], inputs(1_000));
        r.replicatorLost(1);
        now[0] += INTERVAL / 4;
        assertNull(r.onMeasurement(now[0], measured(1_000, 2), inputs(1_000)), "not before the interval");
        now[0] += INTERVAL;
        Plan p = r.onMeasurement(now[0], measured(1_000, 2), inputs(1_000));
        assertNotNull(p);
        assertEquals(Strategy.REPLICATED, p.strategyOf("b"));
        assertEquals(Strategy.DIRECT, p.strategyOf("c"));
        assertEquals(0b01, r.currentMask());
    }

    @Test
    void aSpendLimitIsKeptWithTheLowestLatencyWithinIt() {
        // 1,000 records/s in batches of 10 of 250 B (and 21 B per batch): a copy is 252,100 B/s, 0.9076 GB/h, $0.08168/h
        double copyPerHour = 252_100 * 3600 / 1e9 * 0.09;
        MulticastReplanner r = replanner(new Goal(0.09, 5.5 * copyPerHour, Double.POSITIVE_INFINITY, FanOutBound.UNBOUNDED));
        long[] now = {0};
        Plan p = r.start(now[0], inputs(1_000));
        assertTrue(p.withinBudget(), p.toString());
        assertEquals(5, p.directConnections(), "one site direct (4 copies) and one through its node: the fastest within 5.5 copies");
    }

    /**
     * One destination reached over up to three routes (the direct one and two relays of the sender's site, each its own
     * 50 Mbit/s link): the plan's route count follows the rate, the fewest whose links carry it, without a strategy
     * switch. Small batches (5 events of 250 B): spreading a batch over more routes gains well under 1 % of its
     * latency, so only the bytes call for routes.
     */
    @Test
    void theRouteCountFollowsTheRateWithinTheRoutesOffered() {
        List<Site> one = List.of(new Site("b", 1));
        MulticastReplanner r = new MulticastReplanner(one, Goal.fastest(0.09, FanOutBound.UNBOUNDED),
                new FanOutBound(QUOTA, 0.5, 4 * INTERVAL), INTERVAL, 0.1);
        long[] now = {0};
        java.util.function.DoubleFunction<Inputs> threeRoutes = rate -> new Inputs(rate, EVENT_BYTES, 5, 21,
                new ThroughputCurve(0.025, QUOTA), 3, new ThroughputCurve(0.010, 1.25e9), 0.9);
        assertEquals(1, r.start(now[0], threeRoutes.apply(5_000)).routes(), "1.3 MB/s: one route carries it");
        double[] rates = {30_000, 50_000, 5_000};
        int[] routesAt = new int[rates.length];
        for (int step = 0; step < rates.length; step++) {
            double rate = rates[step];
            for (long end = now[0] + 10 * SECOND; now[0] < end; now[0] += INTERVAL / 2) {
                r.onMeasurement(now[0], new Measurement(rate, EVENT_BYTES, 5, 0.025, 0.01, 1), threeRoutes.apply(rate));
            }
            routesAt[step] = r.current().routes();
            assertTrue(Double.isFinite(r.current().maxLatencySeconds()), rate + " records/s: " + r.current());
        }
        assertEquals(2, routesAt[0], "7.6 MB/s needs two routes of 5.6 MB/s (90 % of 6.25)");
        assertEquals(3, routesAt[1], "12.7 MB/s needs three");
        assertEquals(1, routesAt[2], "1.3 MB/s: back to one, no idle routes");
        assertEquals(0, r.changes(), "the route count changes without a strategy switch");
        assertEquals(Strategy.DIRECT, r.current().strategyOf("b"));
    }
}
