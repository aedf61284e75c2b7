package io.jetstream.scheduler.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The even scheduler's spread of every component, and the objective held within it. */
class ComponentSpreadTest {
    @Test
    void aNodeMayHoldItsShareOfEveryComponentRoundedUp() {
        // Nodes of 2, 1 and 1 workers; components of 5, 4 and 1 tasks.
        NodeSlots slots = NodeSlots.ofWorkers(2, 1, 1);
        int[] componentOf = {0, 0, 0, 0, 0, 1, 1, 1, 1, 2};
        ComponentSpread spread = ComponentSpread.of(slots, componentOf);
        assertEquals(3, spread.maxOnNode(0, 0)); // ceil(5 x 1/2)
        assertEquals(2, spread.maxOnNode(0, 1)); // ceil(5 x 1/4)
        assertEquals(2, spread.maxOnNode(1, 0));
        assertEquals(1, spread.maxOnNode(1, 2));
        assertEquals(1, spread.maxOnNode(2, 0));
        assertEquals(1, spread.maxOnNode(2, 1));
    }

    @Test
    void theDealIsWithinTheSpreadAndAConsolidationIsNot() {
        NodeSlots slots = NodeSlots.ofWorkers(2, 2, 2);
        int[] componentOf = new int[17];
        for (int t = 0; t < componentOf.length; t++) {
            componentOf[t] = t % 3; // components interleaved in the numbering: the deal sorts them
        }
        ComponentSpread spread = ComponentSpread.of(slots, componentOf);
        assertEquals(0, spread.excess(spread.dealt().workerOfTasks()));
        int[] consolidated = new int[17];
        for (int t = 0; t < consolidated.length; t++) {
            consolidated[t] = 2 * componentOf[t]; // each component on one node
        }
        // 6, 6 and 5 tasks where at most 2 of each may be: 4 + 4 + 3 beyond.
        assertEquals(11, spread.excess(consolidated));
    }

    @Test
    void theConstrainedObjectiveEvaluatesEveryChangeAsARecomputationWould() {
        Random random = new Random(11);
        int tasks = 30;
        TaskGraph.Builder b = TaskGraph.builder(tasks);
        for (int t = 0; t < tasks; t++) {
            b.weight(t, 1 + random.nextInt(3));
        }
        for (int e = 0; e < 90; e++) {
            b.addTraffic(random.nextInt(tasks), random.nextInt(tasks), Math.exp(random.nextGaussian()));
        }
        TaskGraph g = b.build();
        NodeSlots slots = NodeSlots.ofWorkers(2, 1, 2);
        int[] componentOf = new int[tasks];
        for (int t = 0; t < tasks; t++) {
            componentOf[t] = random.nextInt(4);
        }
        ComponentSpread spread = ComponentSpread.of(slots, componentOf);
        double penalty = 1e3;
        RefinementObjective objective = spread.constrain(new CutObjective(g, slots, 0.25, 1.5), penalty);
        int[] workerOf = new int[tasks];
        for (int t = 0; t < tasks; t++) {
            workerOf[t] = random.nextInt(slots.workerCount());
        }
        objective.reset(workerOf);
        boolean sawExcess = false;
        for (int i = 0; i < 500; i++) {
            int a = random.nextInt(tasks);
            int c = random.nextInt(tasks);
            int to = random.nextInt(slots.workerCount());
            int[] changed = workerOf.clone();
            boolean move = i % 2 == 0;
            if (move) {
                changed[a] = to;
            } else {
                changed[a] = workerOf[c];
                changed[c] = workerOf[a];
            }
            CutObjective fresh = new CutObjective(g, slots, 0.25, 1.5);
            fresh.reset(changed);
            double expected = fresh.value() + penalty * spread.excess(changed);
            sawExcess |= spread.excess(changed) > 0;
            double predicted = move ? objective.valueIfMoved(a, to) : objective.valueIfSwapped(a, c);
            assertEquals(expected, predicted, 1e-6 * Math.max(1, expected), (move ? "move " : "exchange ") + i);
            if (i % 3 == 0) {
                if (move) {
                    objective.move(a, to);
                } else {
                    objective.swap(a, c);
                }
                workerOf = changed;
                assertEquals(expected, objective.value(), 1e-6 * Math.max(1, expected), "after change " + i);
            }
        }
        assertTrue(sawExcess, "some candidate left the spread: the test covers the penalty");
    }
}
