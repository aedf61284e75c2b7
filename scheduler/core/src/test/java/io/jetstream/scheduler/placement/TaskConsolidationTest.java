package io.jetstream.scheduler.placement;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TaskConsolidationTest {
    /** A chain a-b-c-d-e with traffic 10, 1, 8, 3 (in the spirit of TurboStream's Figure 7). */
    private static TaskGraph chain() {
        return TaskGraph.builder(5)
                .weight(0, 1).weight(1, 1).weight(2, 1).weight(3, 1).weight(4, 1)
                .addTraffic(0, 1, 10).addTraffic(1, 2, 1).addTraffic(2, 3, 8).addTraffic(3, 4, 3)
                .build();
    }

    @Test
    void eachUnvisitedTaskMergesWithItsHeaviestUnvisitedNeighbour() {
        int[] parentOf = new int[5];
        int parents = TaskConsolidation.consolidateOneLevel(chain(), Double.POSITIVE_INFINITY, parentOf);
        // a takes b (10); c takes d (8, heavier than its 1 to b, which is taken anyway); e is alone.
        assertEquals(3, parents);
        assertArrayEquals(new int[] {0, 0, 1, 1, 2}, parentOf);
        TaskGraph level1 = TaskConsolidation.parentGraph(chain(), parentOf, parents);
        // Traffic inside a parent disappears; between parents it adds up (lines 21-27).
        assertEquals(1, level1.traffic(0, 1));
        assertEquals(3, level1.traffic(1, 2));
        assertEquals(0, level1.traffic(0, 2));
        assertEquals(2, level1.weight(0));
        assertEquals(4, level1.totalTraffic());
    }

    @Test
    void levelsRepeatUntilFewerThanTheThresholdRemain() {
        ConsolidationHierarchy h = TaskConsolidation.consolidate(chain(), 2, Double.POSITIVE_INFINITY);
        // 5 -> 3 -> 2 -> 1: stops when fewer than 2 remain.
        assertEquals(4, h.depth());
        assertEquals(1, h.level(h.coarsestLevel()).size());
        assertArrayEquals(new int[] {0, 1, 2, 3, 4}, h.tasksOf(h.coarsestLevel(), 0));
        ConsolidationHierarchy stopEarly = TaskConsolidation.consolidate(chain(), 4, Double.POSITIVE_INFINITY);
        assertEquals(3, stopEarly.level(stopEarly.coarsestLevel()).size());
    }

    @Test
    void noParentHeavierThanTheCapIsCreated() {
        ConsolidationHierarchy h = TaskConsolidation.consolidate(chain(), 1, 2.0);
        TaskGraph top = h.level(h.coarsestLevel());
        for (int v = 0; v < top.size(); v++) {
            assertTrue(top.weight(v) <= 2.0, "parent " + v + " weighs " + top.weight(v));
        }
        // With the cap nothing merges past pairs: a-b, c-d, e.
        assertEquals(3, top.size());
    }
}
