package io.jetstream.benchmarks.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.storm.generated.StormTopology;
import org.junit.jupiter.api.Test;

/**
 * The bound behind "no placement within the cap goes below" with the rates measured: never below what
 * the best placement really keeps inside nodes (found by brute force over every placement of small
 * topologies under random rate models), the node problem exact against random points, and the
 * classes' product form holding for every family and rate model the evaluation draws.
 */
class FluidPlacementBoundTest {
    private record Small(StormTopology topology, Map<String, int[]> tasksOf, int tasks,
                         Map<String, Integer> parallelism) {}

    private static Small small(String family, int p, long seed) {
        StormTopology t = TopologyFamilies.generate(family, p, TopologyFamilies.Grouping.SHUFFLE, seed).topology();
        Map<String, Integer> parallelism = new HashMap<>();
        t.get_spouts().forEach((k, v) -> parallelism.put(k, v.get_common().get_parallelism_hint()));
        t.get_bolts().forEach((k, v) -> parallelism.put(k, v.get_common().get_parallelism_hint()));
        int tasks = parallelism.values().stream().mapToInt(Integer::intValue).sum();
        return new Small(t, TrueTraffic.tasksByComponent(t, parallelism), tasks, parallelism);
    }

    @Test
    void neverBelowTheBestPlacementFoundByBruteForce() {
        int checked = 0;
        for (String family : TopologyFamilies.NAMES) {
            for (int p : new int[] {1, 2}) {
                Small s = small(family, p, 5 + p);
                if (s.tasks() > 11) {
                    continue;
                }
                for (int draw = 0; draw < 3; draw++) {
                    RateModel rates = RateModel.random(s.topology(), s.parallelism(), 1_000L * p + draw);
                    TrueTraffic truth = TrueTraffic.of(s.topology(), s.tasksOf(), s.tasks(), rates, null);
                    FluidPlacementBound.Classes classes = FluidPlacementBound.of(s.topology(), s.tasksOf(), truth);
                    for (int nodes : new int[] {2, 3}) {
                        for (double ratio : new double[] {1.15, 1.5}) {
                            double cap = Math.max(ratio * classes.totalLoad() / nodes, maxLoad(truth));
                            double exact;
                            try {
                                exact = FluidPlacementBound.exactMaxLocal(truth, nodes, cap);
                            } catch (IllegalArgumentException noPlacementFits) {
                                continue; // whole tasks do not pack within this cap: nothing to compare with
                            }
                            double fluid = FluidPlacementBound.fluidMaxLocal(classes, nodes, cap);
                            assertTrue(fluid >= exact - 1e-9 * classes.totalTraffic(), family + " p=" + p + " draw " + draw
                                    + " on " + nodes + " nodes at " + ratio + ": the bound " + fluid
                                    + " is below what a placement keeps inside, " + exact);
                            assertTrue(fluid <= classes.totalTraffic() + 1e-9);
                            checked++;
                        }
                    }
                }
            }
        }
        assertTrue(checked >= 40, "checked " + checked);
    }

    @Test
    void bruteForceOnAHandComputedCase() {
        // One spout task feeding two bolt tasks evenly (one unit each way to each); loads 1, 1, 1.
        Small s = small("sol", 1, 1);
        TrueTraffic truth = TrueTraffic.of(s.topology(), s.tasksOf(), s.tasks(), RateModel.UNIFORM, null);
        // SOL at p = 1 is a chain of six tasks, each sending one unit to the next: five units in all.
        assertEquals(5.0, truth.total(), 1e-12);
        // Two nodes of three tasks' load: the chain cut once, four units kept inside.
        double perTask = truth.load[1];
        assertEquals(4.0, FluidPlacementBound.exactMaxLocal(truth, 2, 3 * perTask), 1e-12);
        // Three nodes of two: cut twice.
        assertEquals(3.0, FluidPlacementBound.exactMaxLocal(truth, 3, 2 * perTask), 1e-12);
        // The fluid bound on three nodes of two: each node keeps at most the best pair, 1 unit... and no less than exact.
        FluidPlacementBound.Classes classes = FluidPlacementBound.of(s.topology(), s.tasksOf(), truth);
        double fluid = FluidPlacementBound.fluidMaxLocal(classes, 3, 2 * perTask);
        assertTrue(fluid >= 3.0 - 1e-9 && fluid <= 5.0, "fluid " + fluid);
    }

    @Test
    void theNodeProblemIsExact() {
        Random random = new Random(11);
        for (int trial = 0; trial < 30; trial++) {
            int n = 2 + random.nextInt(5);
            double[][] m = new double[n][n];
            for (int c = 0; c < n; c++) {
                for (int d = c + 1; d < n; d++) {
                    m[c][d] = m[d][c] = random.nextDouble() < 0.6 ? random.nextDouble() * 3 : 0;
                }
            }
            double[] lambda = new double[n];
            for (int c = 0; c < n; c++) {
                lambda[c] = (random.nextDouble() - 0.3) * 1.5;
            }
            double[] argmax = new double[n];
            double max = new FluidPlacementBound.NodeProblem(m).max(lambda, argmax);
            assertEquals(max, value(m, lambda, argmax), 1e-9, "the maximiser's value");
            double sum = 0;
            for (double v : argmax) {
                assertTrue(v >= 0);
                sum += v;
            }
            assertTrue(sum <= 1 + 1e-9);
            // No point of the simplex does better: random points, and points on a grid over its faces.
            for (int sample = 0; sample < 20_000; sample++) {
                double[] v = new double[n];
                double total = 0;
                for (int c = 0; c < n; c++) {
                    v[c] = random.nextDouble() < 0.4 ? 0 : -Math.log(random.nextDouble());
                    total += v[c];
                }
                double scale = random.nextDouble() / Math.max(total, 1e-12);
                for (int c = 0; c < n; c++) {
                    v[c] *= scale;
                }
                assertTrue(value(m, lambda, v) <= max + 1e-9, "trial " + trial + ": a point beats the maximum");
            }
        }
    }

    @Test
    void everyFamilyAndRateModelOfTheEvaluationHasTheProductForm() {
        for (String family : TopologyFamilies.NAMES) {
            SchedulerEvaluation.Case c = SchedulerEvaluation.Case.of(family, TopologyFamilies.Grouping.SHUFFLE, 4, 4, 17 * 4 + 4);
            for (int draw = 0; draw < 4; draw++) {
                TrueTraffic truth = TrueTraffic.of(c.generated.topology(), c.tasksOf, c.taskCount, c.rates(draw), null);
                FluidPlacementBound.Classes classes = FluidPlacementBound.of(c.generated.topology(), c.tasksOf, truth);
                double load = 0;
                for (int t = 1; t <= truth.tasks; t++) {
                    load += truth.load[t];
                }
                assertEquals(load, classes.totalLoad(), 1e-9 * load);
                double between = 0;
                for (int a = 0; a < classes.size(); a++) {
                    for (int b = a + 1; b < classes.size(); b++) {
                        between += classes.traffic()[a][b];
                    }
                }
                assertEquals(truth.total(), between, 1e-9 * truth.total(), family + " draw " + draw);
            }
        }
    }

    private static double maxLoad(TrueTraffic truth) {
        double max = 0;
        for (int t = 1; t <= truth.tasks; t++) {
            max = Math.max(max, truth.load[t]);
        }
        return max;
    }

    private static double value(double[][] m, double[] lambda, double[] v) {
        double value = 0;
        for (int c = 0; c < v.length; c++) {
            for (int d = 0; d < v.length; d++) {
                value += 0.5 * m[c][d] * v[c] * v[d];
            }
            value -= lambda[c] * v[c];
        }
        return value;
    }
}
