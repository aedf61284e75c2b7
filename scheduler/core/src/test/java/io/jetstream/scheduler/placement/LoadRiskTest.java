package io.jetstream.scheduler.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Rate scenarios drawn from a structure, and the expected hottest node under them. */
class LoadRiskTest {
    /** source -> filter -> sink, every stream spread. */
    private static TopologyStructure chain() {
        return TopologyStructure.builder().spout("source").bolt("filter").bolt("sink")
                .stream("source", "filter", TopologyStructure.Grouping.SPREAD)
                .stream("filter", "sink", TopologyStructure.Grouping.SPREAD)
                .build();
    }

    private static final Map<String, int[]> TASKS = Map.of("source", new int[] {0, 1}, "filter", new int[] {2, 3},
            "sink", new int[] {4, 5});

    @Test
    void withoutSpreadEveryScenarioIsTheStructuresOwnModel() {
        RateScenarios s = RateScenarios.draw(chain(), List.of("source", "filter", "sink", "__system"), TASKS, 0, 4, 1);
        for (int k = 0; k < 4; k++) {
            for (int c = 0; c < 4; c++) {
                assertEquals(1, s.factor(k, c), 1e-12);
            }
        }
    }

    @Test
    void scenariosAreAFunctionOfTheSeedAndVaryMoreDownstream() {
        List<String> components = List.of("source", "filter", "sink", "__system");
        RateScenarios a = RateScenarios.draw(chain(), components, TASKS, 1.0, 200, 7);
        RateScenarios b = RateScenarios.draw(chain(), components, TASKS, 1.0, 200, 7);
        RateScenarios other = RateScenarios.draw(chain(), components, TASKS, 1.0, 200, 8);
        double[] spreadOfLog = new double[3];
        for (int k = 0; k < 200; k++) {
            for (int c = 0; c < 4; c++) {
                assertEquals(a.factor(k, c), b.factor(k, c));
                assertTrue(a.factor(k, c) > 0);
            }
            assertEquals(1, a.factor(k, 3), 1e-12, "a component the structure does not know keeps its load");
            for (int c = 0; c < 3; c++) {
                spreadOfLog[c] += Math.log(a.factor(k, c)) * Math.log(a.factor(k, c));
            }
        }
        assertNotEquals(a.factor(0, 2), other.factor(0, 2));
        // The source varies by its cost alone; the filter by its cost and the source's multiplier; the sink
        // by the filter's selectivity as well.
        assertTrue(spreadOfLog[0] < spreadOfLog[1] && spreadOfLog[1] < spreadOfLog[2],
                "sum of squared log factors " + java.util.Arrays.toString(spreadOfLog));
    }

    @Test
    void riskIsTheMeanOverScenariosOfTheHottestNodesShare() {
        // Two equal nodes; component 0 has 3 units on node 0 and 1 on node 1, component 1 the reverse.
        NodeSlots slots = NodeSlots.ofWorkers(1, 1);
        double[] loads = {3, 1, 1, 3};
        RateScenarios balanced = RateScenarios.structural(2);
        assertEquals(1.0, new LoadRisk(balanced, slots).risk(loads), 1e-12);
        // A scenario with only component 0 loaded would give 3/4 of the load to node 0: 1.5 x its share.
        RateScenarios onlyFirst = scenarios(new double[][] {{1, 0}, {1, 1}});
        assertEquals((1.5 + 1.0) / 2, new LoadRisk(onlyFirst, slots).risk(loads), 1e-12);
    }

    @Test
    void theTrackerPricesEveryShiftAsARecomputationWould() {
        Random random = new Random(3);
        NodeSlots slots = NodeSlots.ofWorkers(2, 1, 3);
        double[][] factors = new double[6][4];
        for (double[] row : factors) {
            for (int c = 0; c < row.length; c++) {
                row[c] = Math.exp(random.nextGaussian());
            }
        }
        LoadRisk risk = new LoadRisk(scenarios(factors), slots);
        double[] loads = new double[4 * 3];
        for (int i = 0; i < loads.length; i++) {
            loads[i] = random.nextInt(5);
        }
        LoadRisk.Tracker tracker = risk.new Tracker();
        tracker.reset(loads);
        assertEquals(risk.risk(loads), tracker.risk(), 1e-12);
        for (int i = 0; i < 200; i++) {
            int c = random.nextInt(4);
            int other = random.nextInt(4);
            int from = random.nextInt(3);
            int to = random.nextInt(3);
            double amount = random.nextDouble();
            double otherAmount = i % 2 == 0 ? 0 : random.nextDouble();
            double[] shifted = loads.clone();
            if (from != to) {
                shifted[c * 3 + from] -= amount;
                shifted[c * 3 + to] += amount;
                shifted[other * 3 + to] -= otherAmount;
                shifted[other * 3 + from] += otherAmount;
            }
            assertEquals(risk.risk(shifted), tracker.riskIfShifted(c, amount, other, otherAmount, from, to), 1e-9, "shift " + i);
            if (i % 3 == 0) {
                tracker.shift(c, amount, other, otherAmount, from, to);
                loads = shifted;
                assertEquals(risk.risk(loads), tracker.risk(), 1e-9, "after shift " + i);
            }
        }
    }

    private static RateScenarios scenarios(double[][] factors) {
        return RateScenarios.of(factors);
    }
}
