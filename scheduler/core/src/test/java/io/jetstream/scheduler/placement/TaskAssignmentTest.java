package io.jetstream.scheduler.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class TaskAssignmentTest {
    /** The final k-way pass off: these tests judge Algorithm 2 itself. */
    static final KWayRefinement NO_KWAY_PASS = new KWayRefinement(0, 0, System::nanoTime);

    /** {@code groups} cliques of {@code size} tasks, heavy inside, one light edge between consecutive cliques. */
    private static TaskGraph cliques(int groups, int size, double inside, double between) {
        TaskGraph.Builder b = TaskGraph.builder(groups * size);
        for (int g = 0; g < groups; g++) {
            for (int i = 0; i < size; i++) {
                b.weight(g * size + i, 1);
                for (int j = i + 1; j < size; j++) {
                    b.addTraffic(g * size + i, g * size + j, inside);
                }
            }
            if (g > 0) {
                b.addTraffic(g * size - 1, g * size, between);
            }
        }
        // Interleave nothing: task order alone must not explain the result, so shuffle ids.
        return b.build();
    }

    private static PlacementPlanner planner(TaskAssignment.WithinNode withinNode) {
        return new PlacementPlanner(4, 0.5, 0.05, 128, withinNode, true, NO_KWAY_PASS,
                PlacementPlanner.StructuralRates.UNIFORM, 1.0);
    }

    @Test
    void communicatingGroupsLandOnOneNodeEachAndOnlyTheLightEdgesCross() {
        TaskGraph g = cliques(4, 6, 10, 1);
        Placement p = planner(TaskAssignment.WithinNode.PARTITION).plan(g, NodeSlots.ofWorkers(2, 2, 2, 2));
        assertEquals(3, g.cutTraffic(p.nodeOfTasks()), "only the three light edges cross nodes");
        assertEquals(1.0, p.maxNodeImbalance(g), 1e-9);
        assertEquals(4, p.nodesUsed());
    }

    @Test
    void theSplitFollowsHeterogeneousFreeSlots() {
        TaskGraph g = cliques(8, 4, 10, 1);
        // Node 0 has 3 free slots, node 1 has 1: node 0 takes three quarters of the load.
        Placement p = planner(TaskAssignment.WithinNode.PARTITION).plan(g, NodeSlots.ofWorkers(3, 1));
        double[] loads = p.relativeNodeLoads(g);
        assertEquals(1.0, loads[0], 0.05);
        assertEquals(1.0, loads[1], 0.05);
        int onNode0 = 0;
        for (int t = 0; t < g.size(); t++) {
            onNode0 += p.nodeOf(t) == 0 ? 1 : 0;
        }
        assertEquals(24, onNode0);
        assertTrue(g.cutTraffic(p.nodeOfTasks()) <= 2, "at most two light edges cross: " + g.cutTraffic(p.nodeOfTasks()));
    }

    @Test
    void roundRobinDealsANodesTasksOverItsWorkersInOrder() {
        TaskGraph g = cliques(2, 4, 10, 1);
        Placement p = planner(TaskAssignment.WithinNode.ROUND_ROBIN).plan(g, NodeSlots.ofWorkers(2, 2));
        for (int node = 0; node < 2; node++) {
            int expectedWorker = 0;
            for (int t = 0; t < g.size(); t++) {
                if (p.nodeOf(t) == node) {
                    assertEquals(2 * node + expectedWorker % 2, p.workerOf(t), "task " + t);
                    expectedWorker++;
                }
            }
        }
    }

    @Test
    void partitionWithinANodeKeepsGroupsInOneWorker() {
        TaskGraph g = cliques(4, 5, 10, 1);
        Placement p = planner(TaskAssignment.WithinNode.PARTITION).plan(g, NodeSlots.ofWorkers(2, 2));
        assertEquals(3, g.cutTraffic(p.workerOfTasks()), "only the light edges cross workers");
    }

    @Test
    void paperAlgorithmAloneStillBalancesAndRefinementNeverCutsMore() {
        Random random = new Random(42);
        for (int trial = 0; trial < 20; trial++) {
            TaskGraph.Builder b = TaskGraph.builder(60);
            for (int v = 0; v < 60; v++) {
                b.weight(v, 1 + random.nextInt(3));
            }
            for (int e = 0; e < 240; e++) {
                b.addTraffic(random.nextInt(60), random.nextInt(60), Math.exp(2 * random.nextGaussian()));
            }
            TaskGraph g = b.build();
            NodeSlots slots = NodeSlots.ofWorkers(2, 2, 2, 2);
            Placement plain = new PlacementPlanner(8, 0.5, 0.05, 128, TaskAssignment.WithinNode.PARTITION, false, NO_KWAY_PASS,
                    PlacementPlanner.StructuralRates.UNIFORM, 1.0)
                    .plan(g, slots);
            Placement refined = new PlacementPlanner(8, 0.5, 0.05, 128, TaskAssignment.WithinNode.PARTITION, true, NO_KWAY_PASS,
                    PlacementPlanner.StructuralRates.UNIFORM, 1.0)
                    .plan(g, slots);
            for (Placement p : new Placement[] {plain, refined}) {
                assertTrue(p.maxNodeImbalance(g) <= 1.15, "trial " + trial + ": imbalance " + p.maxNodeImbalance(g));
            }
            assertTrue(g.cutTraffic(refined.nodeOfTasks()) <= g.cutTraffic(plain.nodeOfTasks()) * 1.10 + 1e-9,
                    "trial " + trial + ": refined " + g.cutTraffic(refined.nodeOfTasks()) + " vs plain "
                            + g.cutTraffic(plain.nodeOfTasks()));
        }
    }

    @Test
    void aThousandTasksAreAllPlacedOnEveryWorker() {
        Random random = new Random(7);
        TaskGraph.Builder b = TaskGraph.builder(1000);
        for (int v = 0; v < 1000; v++) {
            b.weight(v, 1);
            for (int k = 0; k < 20; k++) {
                b.addTraffic(v, random.nextInt(1000), random.nextDouble());
            }
        }
        TaskGraph g = b.build();
        int[] workers = new int[16];
        java.util.Arrays.fill(workers, 8);
        Placement p = planner(TaskAssignment.WithinNode.PARTITION).plan(g, NodeSlots.ofWorkers(workers));
        boolean[] used = new boolean[128];
        for (int t = 0; t < 1000; t++) {
            used[p.workerOf(t)] = true;
        }
        for (int w = 0; w < 128; w++) {
            assertTrue(used[w], "worker " + w + " got no task");
        }
        assertTrue(p.maxNodeImbalance(g) <= 1.15, "imbalance " + p.maxNodeImbalance(g));
    }
}
