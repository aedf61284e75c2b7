package io.jetstream.scheduler.storm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jetstream.scheduler.traffic.TaskTraffic;
import io.jetstream.scheduler.traffic.TrafficSnapshot;
import java.util.List;
import java.util.Map;
import org.apache.storm.scheduler.ExecutorDetails;
import org.junit.jupiter.api.Test;

/** The online graph's loads: measured CPU time where every executor has a record, tuples otherwise. */
class ExecutorGraphTest {
    private static final Map<ExecutorDetails, String> EXECUTORS = Map.of(
            new ExecutorDetails(1, 1), "a", new ExecutorDetails(2, 2), "b", new ExecutorDetails(3, 3), "c");

    @Test
    void anIdleExecutorReportingNoCpuLeavesTheOthersWeighedByTheirs() {
        TrafficSnapshot traffic = new TrafficSnapshot(List.of(
                new TaskTraffic(1, 0, 3e8, Map.of(2, 100.0)),
                new TaskTraffic(2, 0, 1e8, Map.of()),
                new TaskTraffic(3, 0, 0, Map.of()))); // idle: no tuples, no CPU
        ExecutorGraph graph = ExecutorGraph.fromTraffic(EXECUTORS, traffic);
        assertEquals(3e8, graph.graph().weight(0));
        assertEquals(1e8, graph.graph().weight(1));
        assertEquals(1e8, graph.graph().weight(2), "the idle executor weighs as the lightest measured one");
        assertEquals(List.of("a", "b", "c"), graph.componentNames());
    }

    @Test
    void withoutARecordFromEveryExecutorTheTuplesAreTheLoad() {
        TrafficSnapshot traffic = new TrafficSnapshot(List.of(
                new TaskTraffic(1, 0, 3e8, Map.of(2, 100.0)),
                new TaskTraffic(2, 0, 1e8, Map.of())));
        ExecutorGraph graph = ExecutorGraph.fromTraffic(EXECUTORS, traffic);
        assertEquals(100, graph.graph().weight(0));
        assertEquals(100, graph.graph().weight(1));
        assertEquals(100, graph.graph().weight(2));
    }
}
