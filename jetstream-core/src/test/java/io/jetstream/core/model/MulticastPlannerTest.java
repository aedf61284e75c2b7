package io.jetstream.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.model.MulticastPlanner.Goal;
import io.jetstream.core.model.MulticastPlanner.Inputs;
import io.jetstream.core.model.MulticastPlanner.Plan;
import io.jetstream.core.model.MulticastPlanner.Site;
import io.jetstream.core.model.MulticastPlanner.Strategy;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The multicast strategy choice of JetStream §3.4 under a budget, a latency bound and Atmosphere's K_p. */
class MulticastPlannerTest {
    private static final double PRICE = 0.09; // per GB out of the site
    /** 50 Mbit/s per route, 25 ms one way. */
    private static final ThroughputCurve WAN = new ThroughputCurve(0.025, 6.25e6);
    /** Inside the destination site through a replicating relay: a store-and-forward hop of 10 ms, 1 Gbit/s. */
    private static final ThroughputCurve RELAY_HOP = new ThroughputCurve(0.010, 1.25e8);
    /** 1,000 events/s of 1,000 B in batches of 10 with 100 B of overhead: 10,100 B per batch. */
    private static final Inputs ONE_ROUTE = new Inputs(1_000, 1_000, 10, 100, WAN, 1, RELAY_HOP, 0.9);
    private static final List<Site> ONE_SITE = List.of(new Site("b", 4));

    @Test
    void thePredictionsAreThePapersFormulas() {
        Goal goal = Goal.fastest(PRICE, 100);
        Plan direct = MulticastPlanner.evaluate(ONE_SITE, 0, 1, ONE_ROUTE, goal);
        Plan replicated = MulticastPlanner.evaluate(ONE_SITE, 1, 1, ONE_ROUTE, goal);
        double batching = 9 / 2_000.0;
        // Direct: 4 copies of 10,100 B cross the route: 0.025 + 40,400 / 6.25e6.
        assertEquals(batching + 0.025 + 40_400 / 6.25e6, direct.meanLatencySeconds(), 1e-12);
        assertEquals(4, direct.directConnections());
        assertEquals(4 * 1_000 * 10_100 / 10.0, direct.outboundBytesPerSecond(), 1e-6, "outbound bytes: exact, framing included");
        assertEquals(4.04e6 * 3600 / 1e9 * PRICE, direct.spendPerHour(), 1e-9);
        // Replicated: one copy crosses, then the relay sends 4 inside the site: + 0.010 + 40,400 / 1.25e8.
        assertEquals(batching + 0.025 + 10_100 / 6.25e6 + 0.010 + 40_400 / 1.25e8, replicated.meanLatencySeconds(), 1e-12);
        assertEquals(1, replicated.directConnections());
        assertEquals(1.01e6, replicated.outboundBytesPerSecond(), 1e-6);
    }

    @Test
    void withoutAGoalTheFastestWinsWithASpendLimitTheFastestWithinIt() {
        Plan fastest = MulticastPlanner.plan(ONE_SITE, ONE_ROUTE, Goal.fastest(PRICE, 100));
        assertEquals(Strategy.DIRECT, fastest.strategyOf("b"));
        Plan limited = MulticastPlanner.plan(ONE_SITE, ONE_ROUTE, new Goal(PRICE, 0.5, Double.POSITIVE_INFINITY, 100));
        assertEquals(Strategy.REPLICATED, limited.strategyOf("b"), "direct spends 1.31 per hour, over the 0.5 limit");
        assertTrue(limited.withinBudget() && limited.spendPerHour() <= 0.5);
        Plan generous = MulticastPlanner.plan(ONE_SITE, ONE_ROUTE, new Goal(PRICE, 2, Double.POSITIVE_INFINITY, 100));
        assertEquals(Strategy.DIRECT, generous.strategyOf("b"));
    }

    @Test
    void withALatencyBoundTheCheapestThatMeetsIt() {
        Plan tight = MulticastPlanner.plan(ONE_SITE, ONE_ROUTE, new Goal(PRICE, Double.POSITIVE_INFINITY, 0.040, 100));
        assertEquals(Strategy.DIRECT, tight.strategyOf("b"), "only direct multicast (36 ms) meets 40 ms");
        assertTrue(tight.meetsLatencyBound());
        Plan loose = MulticastPlanner.plan(ONE_SITE, ONE_ROUTE, new Goal(PRICE, Double.POSITIVE_INFINITY, 0.050, 100));
        assertEquals(Strategy.REPLICATED, loose.strategyOf("b"), "both meet 50 ms: the one that spends a quarter");
        Plan impossible = MulticastPlanner.plan(ONE_SITE, ONE_ROUTE, new Goal(PRICE, Double.POSITIVE_INFINITY, 0.010, 100));
        assertFalse(impossible.meetsLatencyBound());
        assertEquals(Strategy.DIRECT, impossible.strategyOf("b"), "missing the bound, the nearest: the lowest latency");
    }

    @Test
    void theSendersDirectConnectionsStayWithinKp() {
        Plan p = MulticastPlanner.plan(ONE_SITE, ONE_ROUTE, Goal.fastest(PRICE, 2));
        assertEquals(Strategy.REPLICATED, p.strategyOf("b"), "4 direct copies exceed K_p = 2");
        assertTrue(p.withinFanOut());
        List<Site> three = List.of(new Site("b", 1), new Site("c", 1), new Site("d", 1));
        Plan none = MulticastPlanner.plan(three, ONE_ROUTE, Goal.fastest(PRICE, 2));
        assertFalse(none.withinFanOut(), "three sites need three copies at least");
    }

    @Test
    void routesAreAddedOnlyWhenOneRouteCannotCarryTheCopies() {
        Inputs fast = new Inputs(5_000, 1_000, 50, 100, WAN, 4, RELAY_HOP, 0.9);
        // 5.01 MB/s per copy: one copy fits one route (5.625 MB/s usable at 0.9), two direct copies need two.
        Plan one = MulticastPlanner.plan(List.of(new Site("b", 1)), fast, Goal.fastest(PRICE, 100));
        Plan two = MulticastPlanner.plan(List.of(new Site("b", 2)), fast, new Goal(PRICE, Double.POSITIVE_INFINITY,
                Double.POSITIVE_INFINITY, 100));
        assertTrue(Double.isFinite(one.maxLatencySeconds()) && Double.isFinite(two.maxLatencySeconds()));
        assertTrue(two.strategyOf("b") == Strategy.REPLICATED || two.routes() >= 2,
                () -> "two direct copies of 5 MB/s need two routes: " + two);
        Inputs tooFast = new Inputs(20_000, 1_000, 50, 100, WAN, 2, RELAY_HOP, 0.9);
        Plan over = MulticastPlanner.plan(List.of(new Site("b", 1)), tooFast, Goal.fastest(PRICE, 100));
        assertEquals(Double.POSITIVE_INFINITY, over.maxLatencySeconds(), "20 MB/s over two 6.25 MB/s routes: no plan keeps up");
    }

    /**
     * Seeded instances of 2–5 sites: against every assignment and route count evaluated one by one, the
     * plan is within its goal whenever one is, and no plan within the goal is better by more than the
     * route tolerance (cheaper for a bound, faster for a limit).
     */
    @Test
    void onSeededInstancesThePlanIsTheBestWithinTheGoal() {
        SplittableRandom random = new SplittableRandom(43);
        int withGoalMet = 0;
        int replicatedChosen = 0;
        int directChosen = 0;
        for (int instance = 0; instance < 300; instance++) {
            List<Site> sites = new ArrayList<>();
            int n = 2 + random.nextInt(4);
            for (int i = 0; i < n; i++) {
                sites.add(new Site("s" + i, 1 + random.nextInt(4)));
            }
            Inputs in = new Inputs(200 + random.nextInt(3_000), 100 + random.nextInt(1_900), 1 + random.nextInt(200),
                    random.nextInt(200), new ThroughputCurve(0.005 + random.nextDouble() * 0.1, 2e6 + random.nextDouble() * 1e7),
                    1 + random.nextInt(4), new ThroughputCurve(random.nextDouble() * 0.02, 5e7 + random.nextDouble() * 1e8), 0.9);
            boolean bounded = random.nextBoolean();
            Goal goal = bounded
                    ? new Goal(PRICE, Double.POSITIVE_INFINITY, 0.02 + random.nextDouble() * 0.3, 1 + random.nextInt(12))
                    : new Goal(PRICE, random.nextDouble() * 5, Double.POSITIVE_INFINITY, 1 + random.nextInt(12));
            Plan plan = MulticastPlanner.plan(sites, in, goal);
            boolean anyWithin = false;
            for (int mask = 0; mask < 1 << n; mask++) {
                for (int r = 1; r <= in.maxRoutes(); r++) {
                    Plan p = MulticastPlanner.evaluate(sites, mask, r, in, goal);
                    if (!(Double.isFinite(p.maxLatencySeconds()) && p.withinBudget() && p.meetsLatencyBound() && p.withinFanOut())) {
                        continue;
                    }
                    anyWithin = true;
                    String where = "instance " + instance + ": chosen " + plan + ", better " + p;
                    if (bounded) {
                        assertTrue(plan.spendPerHour() <= p.spendPerHour() + 1e-9, where);
                    } else {
                        assertTrue(plan.meanLatencySeconds() <= p.meanLatencySeconds() * MulticastPlanner.ROUTE_TOLERANCE + 1e-12,
                                where);
                    }
                }
            }
            if (anyWithin) {
                withGoalMet++;
                for (MulticastPlanner.SitePlan sp : plan.sites()) {
                    if (sp.strategy() == Strategy.REPLICATED) {
                        replicatedChosen++;
                    } else {
                        directChosen++;
                    }
                }
                int i = instance;
                assertTrue(plan.withinBudget() && plan.meetsLatencyBound() && plan.withinFanOut(),
                        () -> "instance " + i + ": a plan within the goal exists, the chosen one is not: " + plan);
            }
        }
        String counts = withGoalMet + " of 300 instances with a plan within the goal; sites chosen: " + directChosen
                + " direct, " + replicatedChosen + " replicated";
        assertTrue(withGoalMet >= 100 && directChosen >= 50 && replicatedChosen >= 50,
                () -> "the instances exercise both strategies within their goals: " + counts);
    }

    @Test
    void badInputsAreRefusedNamingThem() {
        assertThrows(IllegalArgumentException.class, () -> new Site("b", 0));
        assertThrows(IllegalArgumentException.class, () -> new Inputs(0, 1_000, 10, 0, WAN, 1, RELAY_HOP, 0.9));
        assertThrows(IllegalArgumentException.class, () -> new Goal(PRICE, 1, 0, 4));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MulticastPlanner.plan(List.of(), ONE_ROUTE, Goal.fastest(PRICE, 4)));
        assertTrue(e.getMessage().contains("0 destination sites"), e.getMessage());
    }
}
