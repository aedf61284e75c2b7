package io.jetstream.benchmarks.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The bound behind the scheduler evaluation's "no placement goes below" claim: exact on a case
 * small enough to work out by hand, never below what a real placement keeps inside nodes, the
 * relaxation never below the exact optimum, and the searched node problem equal to the enumerated one.
 */
class PlacementBoundTest {
    /** Two components of two tasks, one unit of traffic per source task, spread evenly: w = 2 / (2 · 2). */
    private static final PlacementBound.Structure TWO_BY_TWO = new PlacementBound.Structure(
            new int[] {2, 2}, new double[] {1, 1}, new double[][] {{0, 0.5}, {0.5, 0}}, 2, 4);

    @Test
    void handComputedOptimaOnTwoNodes() {
        // Room for two tasks a node: the best is one of each on each node, 2 x 0.5 x 1 x 1 kept inside.
        assertEquals(1.0, PlacementBound.maxLocal(TWO_BY_TWO, 2, 2).maxLocal(), 1e-12);
        // Three: still one unit (2 + 1 on one node keeps 0.5 x 2 x 1, the other node nothing).
        assertEquals(1.0, PlacementBound.maxLocal(TWO_BY_TWO, 2, 3).maxLocal(), 1e-12);
        // Four: everything on one node.
        assertEquals(2.0, PlacementBound.maxLocal(TWO_BY_TWO, 2, 4).maxLocal(), 1e-12);
        assertTrue(PlacementBound.maxLocal(TWO_BY_TWO, 2, 2).exact());
    }

    @Test
    void noRealPlacementKeepsMoreInsideThanTheBoundAndTheRelaxationBoundsTheOptimum() throws Exception {
        Path traffic = Files.createTempDirectory("bound-test");
        for (String family : TopologyFamilies.NAMES) {
            for (int[] shape : new int[][] {{2, 2}, {4, 4}, {8, 2}}) {
                SchedulerEvaluation.Case c = SchedulerEvaluation.Case.of(family, TopologyFamilies.Grouping.SHUFFLE,
                        shape[0], shape[1], 17 * shape[0] + shape[1]);
                PlacementBound.Structure s = PlacementBound.of(c.generated, c.tasksOf, c.taskCount);
                for (String scheduler : new String[] {"even", SchedulerEvaluation.OURS}) {
                    SchedulerEvaluation.Outcome o = c.run(scheduler, Map.of(), traffic);
                    double cap = (o.maxOverMean() + 1e-9) * s.totalLoad() / c.nodes; // this placement fits
                    PlacementBound.Bound b = PlacementBound.maxLocal(s, c.nodes, cap);
                    double kept = (1 - o.crossFraction()) * s.totalTraffic();
                    assertTrue(b.maxLocal() >= kept - 1e-9, family + " " + shape[0] + "x" + shape[1] + " " + scheduler
                            + ": keeps " + kept + " inside nodes, above the bound " + b.maxLocal());
                    PlacementBound.Configurations x = PlacementBound.Configurations.enumerate(s, cap);
                    if (b.exact()) {
                        double relaxed = PlacementBound.lagrangian(s, x, c.nodes);
                        assertTrue(relaxed >= b.maxLocal() - 1e-9, family + ": relaxation " + relaxed
                                + " below the exact optimum " + b.maxLocal());
                    }
                }
            }
        }
    }

    @Test
    void theSearchedNodeProblemAgreesWithTheEnumeratedOne() {
        Random random = new Random(7);
        for (String family : TopologyFamilies.NAMES) {
            SchedulerEvaluation.Case c = SchedulerEvaluation.Case.of(family, TopologyFamilies.Grouping.SHUFFLE, 8, 8, 17 * 8 + 8);
            PlacementBound.Structure s = PlacementBound.of(c.generated, c.tasksOf, c.taskCount);
            double cap = 1.15 * s.totalLoad() / c.nodes;
            PlacementBound.Configurations enumerated = PlacementBound.Configurations.enumerate(s, cap);
            PlacementBound.SearchedNode searched = new PlacementBound.SearchedNode(s, cap);
            int n = s.components();
            for (int trial = 0; trial < 50; trial++) {
                double[] lambda = new double[n];
                for (int i = 0; i < n; i++) {
                    lambda[i] = (random.nextDouble() - 0.5) * 0.2;
                }
                double a = enumerated.maxReduced(lambda, new int[n]);
                double b = searched.maxReduced(lambda, new int[n]);
                assertEquals(a, b, 1e-9 * Math.max(1, Math.abs(a)), family + " trial " + trial);
            }
        }
    }
}
