package io.jetstream.scheduler.placement;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import org.junit.jupiter.api.Test;

class PlacementTest {
    @Test
    void aDealGoesOverTheNodesBeforeItFillsASecondWorkerOfAny() {
        // Nodes of 2, 1 and 3 workers: workers 0-1, 2, 3-5.
        NodeSlots slots = NodeSlots.ofWorkers(2, 1, 3);
        Placement dealt = Placement.dealt(slots, 8);
        // First workers of nodes 0, 1, 2; then second workers of nodes 0 and 2; then node 2's third; again.
        assertArrayEquals(new int[] {0, 2, 3, 1, 4, 5, 0, 2}, dealt.workerOfTasks());
        assertArrayEquals(new int[] {0, 1, 2, 0, 2, 2, 0, 1}, dealt.nodeOfTasks());
    }

    @Test
    void fewerTasksThanWorkersLeaveTheLastWorkersOfTheDealEmpty() {
        Placement dealt = Placement.dealt(NodeSlots.ofWorkers(2, 2), 3);
        assertArrayEquals(new int[] {0, 2, 1}, dealt.workerOfTasks());
    }
}
