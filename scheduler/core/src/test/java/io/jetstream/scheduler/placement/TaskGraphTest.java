package io.jetstream.scheduler.placement;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class TaskGraphTest {
    @Test
    void trafficOfOnePairAddsUpInBothDirectionsAndNeighboursAreHeaviestFirst() {
        TaskGraph g = TaskGraph.builder(4)
                .weight(0, 1).weight(1, 2).weight(2, 3).weight(3, 4)
                .addTraffic(0, 1, 5).addTraffic(1, 0, 2) // one pair, both directions: 7
                .addTraffic(0, 2, 10)
                .addTraffic(0, 3, 1)
                .addTraffic(2, 2, 100) // a task to itself never crosses a node
                .build();
        assertEquals(7, g.traffic(0, 1));
        assertEquals(7, g.traffic(1, 0));
        assertEquals(18, g.totalTraffic());
        assertEquals(10, g.totalWeight());
        int[] order = new int[g.endEdge(0) - g.firstEdge(0)];
        for (int e = g.firstEdge(0), i = 0; e < g.endEdge(0); e++, i++) {
            order[i] = g.edgeTarget(e);
        }
        assertArrayEquals(new int[] {2, 1, 3}, order);
        // {0,1} | {2,3}: cut = 0-2 (10) + 0-3 (1)
        assertEquals(11, g.cutTraffic(new int[] {0, 0, 1, 1}));
    }

    @Test
    void badInputIsRefusedWithTheTaskNamed() {
        TaskGraph.Builder b = TaskGraph.builder(2);
        assertThrows(IndexOutOfBoundsException.class, () -> b.addTraffic(0, 2, 1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.addTraffic(0, 1, Double.NaN));
        assertEquals("traffic 0-1 must be finite and >= 0: NaN", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> b.weight(1, -1));
        assertThrows(IllegalArgumentException.class, () -> b.build().cutTraffic(new int[3]));
    }
}
