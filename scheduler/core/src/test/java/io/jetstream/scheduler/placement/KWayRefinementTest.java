package io.jetstream.scheduler.placement;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class KWayRefinementTest {
    private static TaskGraph randomGraph(Random random, int tasks, int edges) {
        TaskGraph.Builder b = TaskGraph.builder(tasks);
        for (int v = 0; v < tasks; v++) {
            b.weight(v, 1 + random.nextInt(3));
        }
        for (int e = 0; e < edges; e++) {
            b.addTraffic(random.nextInt(tasks), random.nextInt(tasks), Math.exp(random.nextGaussian()));
        }
        return b.build();
    }

    /** Value by definition: cuts recomputed from scratch, excess load over the bound. */
    private static double expectedValue(TaskGraph g, NodeSlots slots, int[] workerOf, double workerWeight, double bound) {
        int[] nodeOf = new int[workerOf.length];
        double[] load = new double[slots.nodeCount()];
        for (int t = 0; t < workerOf.length; t++) {
            nodeOf[t] = slots.nodeOfWorker(workerOf[t]);
            load[nodeOf[t]] += g.weight(t);
        }
        double over = 0;
        for (int n = 0; n < load.length; n++) {
            double limit = bound * g.totalWeight() * slots.nodes().get(n).capacity() / slots.totalCapacity();
            over += Math.max(0, load[n] - limit);
        }
        double penalty = RefinementObjective.OVER_BOUND_PENALTY * Math.max(1, g.totalTraffic()) / g.totalWeight();
        return g.cutTraffic(nodeOf) + workerWeight * g.cutTraffic(workerOf) + penalty * over;
    }

    @Test
    void cutObjectiveEvaluatesEveryMoveAndExchangeAsARecomputationWould() {
        Random random = new Random(3);
        TaskGraph g = randomGraph(random, 40, 160);
        NodeSlots slots = NodeSlots.ofWorkers(2, 3, 1, 2);
        int[] workerOf = new int[40];
        for (int t = 0; t < 40; t++) {
            workerOf[t] = random.nextInt(slots.workerCount());
        }
        CutObjective objective = new CutObjective(g, slots, 0.25, 1.1);
        objective.reset(workerOf);
        assertEquals(expectedValue(g, slots, workerOf, 0.25, 1.1), objective.value(), 1e-6);
        for (int i = 0; i < 1000; i++) {
            int a = random.nextInt(40);
            int b = random.nextInt(40);
            int to = random.nextInt(slots.workerCount());
            boolean move = i % 2 == 0;
            int[] changed = workerOf.clone();
            if (move) {
                changed[a] = to;
            } else {
                changed[a] = workerOf[b];
                changed[b] = workerOf[a];
            }
            double expected = expectedValue(g, slots, changed, 0.25, 1.1);
            double predicted = move ? objective.valueIfMoved(a, to) : objective.valueIfSwapped(a, b);
            assertEquals(expected, predicted, 1e-6 * Math.max(1, expected), (move ? "move " : "exchange ") + i);
            if (i % 3 == 0) {
                if (move) {
                    objective.move(a, to);
                } else {
                    objective.swap(a, b);
                }
                workerOf = changed;
                assertEquals(expected, objective.value(), 1e-6 * Math.max(1, expected), "after change " + i);
            }
        }
    }

    @Test
    void refinementRecoversSeparatedCliquesWithinTheLoadBound() {
        // Four cliques of six tasks, heavy inside, placed as badly as possible: every clique spread over
        // all four nodes. The optimum keeps each clique on one node (only the three light links cross).
        TaskGraph.Builder b = TaskGraph.builder(24);
        for (int g = 0; g < 4; g++) {
            for (int i = 0; i < 6; i++) {
                b.weight(g * 6 + i, 1);
                for (int j = i + 1; j < 6; j++) {
                    b.addTraffic(g * 6 + i, g * 6 + j, 10);
                }
            }
            if (g > 0) {
                b.addTraffic(g * 6 - 1, g * 6, 1);
            }
        }
        TaskGraph graph = b.build();
        NodeSlots slots = NodeSlots.ofWorkers(1, 1, 1, 1);
        int[] workerOf = new int[24];
        for (int t = 0; t < 24; t++) {
            workerOf[t] = t % 4;
        }
        KWayRefinement refinement = new KWayRefinement(2_000, Long.MAX_VALUE / 4, System::nanoTime);
        KWayRefinement.Outcome outcome = refinement.refine(new CutObjective(graph, slots, 0, 1.0), workerOf, 4, graph, 1);

        int[] nodeOf = workerOf.clone();
        assertEquals(3, graph.cutTraffic(nodeOf), 1e-9, "only the light links cross: " + java.util.Arrays.toString(nodeOf));
        int[] perWorker = new int[4];
        for (int w : workerOf) {
            perWorker[w]++;
        }
        assertArrayEquals(new int[] {6, 6, 6, 6}, perWorker, "a load bound of 1.0 allows no other split");
        assertTrue(outcome.valueAfter() < outcome.valueBefore() && outcome.changes() > 0, outcome.toString());
    }

    @Test
    void theSameSeedGivesTheSamePlacement() {
        TaskGraph g = randomGraph(new Random(9), 60, 240);
        NodeSlots slots = NodeSlots.ofWorkers(2, 2, 2);
        int[] start = new int[60];
        java.util.Arrays.setAll(start, t -> t % 6);
        int[] first = start.clone();
        int[] second = start.clone();
        KWayRefinement refinement = new KWayRefinement(100, Long.MAX_VALUE / 4, System::nanoTime);
        refinement.refine(new CutObjective(g, slots, 0.25, 1.15), first, 6, g, 42);
        refinement.refine(new CutObjective(g, slots, 0.25, 1.15), second, 6, g, 42);
        assertArrayEquals(first, second);
    }

    @Test
    void neverTakesANodeOverItsBoundAndStopsWithinItsBudgets() {
        Random random = new Random(5);
        TaskGraph g = randomGraph(random, 50, 300);
        NodeSlots slots = NodeSlots.ofWorkers(2, 2);
        int[] workerOf = new int[50];
        java.util.Arrays.setAll(workerOf, t -> t % 4);
        CutObjective objective = new CutObjective(g, slots, 0, 1.2);
        objective.reset(workerOf);
        double startValue = objective.value();

        KWayRefinement.Outcome outcome = new KWayRefinement(3, Long.MAX_VALUE / 4, System::nanoTime)
                .refine(objective, workerOf, 4, g, 7);
        assertTrue(outcome.attempts() <= 3 * 50, "attempts " + outcome.attempts());
        assertTrue(outcome.valueAfter() <= startValue);
        // Two nodes: the load over the bound, which never grows, is the heavier node's excess.
        double before = new Placement(slots, startFrom(50, 4)).maxNodeImbalance(g);
        double after = new Placement(slots, workerOf).maxNodeImbalance(g);
        assertTrue(after <= Math.max(1.2, before) + 1e-9, "imbalance " + before + " -> " + after);

        // A clock that jumps a second per reading: the first time check ends the search.
        AtomicLong now = new AtomicLong();
        KWayRefinement.Outcome timed = new KWayRefinement(1_000, 500_000_000L, () -> now.addAndGet(1_000_000_000L))
                .refine(new CutObjective(g, slots, 0, 1.2), startFrom(50, 4), 4, g, 7);
        assertTrue(timed.attempts() <= 256, "attempts after the budget ran out: " + timed.attempts());
    }

    private static int[] startFrom(int tasks, int workers) {
        int[] w = new int[tasks];
        java.util.Arrays.setAll(w, t -> t % workers);
        return w;
    }
}
