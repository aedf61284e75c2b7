package io.jetstream.scheduler.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A placement from structure with the rates unknown: every component stays spread as the even
 * scheduler spreads it, so that whichever component turns out to carry the load no node is hotter than
 * under the even scheduler, and the expected hottest node under the rate scenarios is no hotter than the
 * deal's; trusting the structure's rates consolidates instead.
 */
class PlacementFromStructureTest {
    private static final KWayRefinement SEARCH = new KWayRefinement(200, Long.MAX_VALUE / 4, System::nanoTime);

    private static PlacementPlanner planner(PlacementPlanner.StructuralRates rates) {
        return new PlacementPlanner(8, 0.5, 0.15, 128, TaskAssignment.WithinNode.PARTITION, true, SEARCH, rates, 1.0);
    }

    /** A five-stage pipeline of six tasks a stage, every stream spread. */
    private static final TopologyStructure PIPELINE;
    private static final Map<String, int[]> TASKS = new LinkedHashMap<>();
    private static final List<String> COMPONENTS = List.of("s0", "s1", "s2", "s3", "s4");

    static {
        TopologyStructure.Builder b = TopologyStructure.builder().spout("s0");
        for (int i = 1; i < 5; i++) {
            b.bolt("s" + i).stream("s" + (i - 1), "s" + i, TopologyStructure.Grouping.SPREAD);
        }
        PIPELINE = b.build();
        for (int c = 0; c < 5; c++) {
            int[] ids = new int[6];
            for (int i = 0; i < 6; i++) {
                ids[i] = c * 6 + i;
            }
            TASKS.put("s" + c, ids);
        }
    }

    private static int[] componentOf() {
        int[] of = new int[30];
        for (int t = 0; t < 30; t++) {
            of[t] = t / 6;
        }
        return of;
    }

    private static TaskGraph graph() {
        int[] unit = new int[30];
        java.util.Arrays.setAll(unit, t -> t);
        return PIPELINE.taskGraph(TASKS, unit, 30);
    }

    /** The most load any node carries when component {@code c} alone carries all of it, per task equally. */
    private static int hottestWhenAlone(Placement p, int[] componentOf, int c) {
        int[] count = new int[p.slots().nodeCount()];
        for (int t = 0; t < componentOf.length; t++) {
            if (componentOf[t] == c) {
                count[p.nodeOf(t)]++;
            }
        }
        return java.util.Arrays.stream(count).max().orElse(0);
    }

    @Test
    void withRatesUnknownNoComponentCrowdsANodeAndTheExpectedHottestNodeIsNoHotterThanTheDeals() {
        NodeSlots slots = NodeSlots.ofWorkers(2, 2, 2, 2);
        PlacementPlanner planner = planner(PlacementPlanner.StructuralRates.UNKNOWN);
        RateScenarios scenarios = planner.rateScenarios(PIPELINE, COMPONENTS, TASKS);
        TaskGraph graph = graph();
        Placement placed = planner.planFromStructure(graph, slots, componentOf(), scenarios);
        ComponentSpread spread = ComponentSpread.of(slots, componentOf());
        Placement deal = spread.dealt();

        assertEquals(0, spread.excess(placed.workerOfTasks()), "a component beyond the even spread");
        for (int c = 0; c < 5; c++) {
            assertTrue(hottestWhenAlone(placed, componentOf(), c) <= hottestWhenAlone(deal, componentOf(), c),
                    "component " + c + " alone makes a node hotter than in the deal");
        }
        LoadRisk risk = new LoadRisk(scenarios, slots);
        double[] weights = new double[30];
        java.util.Arrays.setAll(weights, graph::weight);
        double placedRisk = risk.risk(risk.componentNodeLoads(componentOf(), weights, placed.workerOfTasks()));
        double dealRisk = risk.risk(risk.componentNodeLoads(componentOf(), weights, deal.workerOfTasks()));
        assertTrue(placedRisk <= dealRisk + 1e-9, "expected hottest node " + placedRisk + " above the deal's " + dealRisk);
        // It still does something: pairing tasks into workers cuts the traffic between workers.
        assertTrue(placed.interWorkerTrafficFraction(graph) < deal.interWorkerTrafficFraction(graph) - 1e-9,
                placed.interWorkerTrafficFraction(graph) + " between workers against the deal's "
                        + deal.interWorkerTrafficFraction(graph));
    }

    @Test
    void trustingTheStructuresRatesConsolidatesBeyondTheSpread() {
        NodeSlots slots = NodeSlots.ofWorkers(2, 2, 2, 2);
        PlacementPlanner planner = planner(PlacementPlanner.StructuralRates.UNIFORM);
        Placement placed = planner.planFromStructure(graph(), slots, componentOf(),
                planner.rateScenarios(PIPELINE, COMPONENTS, TASKS));
        assertTrue(ComponentSpread.of(slots, componentOf()).excess(placed.workerOfTasks()) > 0,
                "uniform rates: consolidated stages");
        assertTrue(placed.interNodeTrafficFraction(graph()) < 0.7, "and less traffic between nodes than a spread's 0.75");
        List<Integer> crowded = new ArrayList<>();
        for (int c = 0; c < 5; c++) {
            if (hottestWhenAlone(placed, componentOf(), c) > 2) {
                crowded.add(c);
            }
        }
        assertTrue(!crowded.isEmpty(), "some stage alone would load a node above the even spread's 2 tasks");
    }
}
