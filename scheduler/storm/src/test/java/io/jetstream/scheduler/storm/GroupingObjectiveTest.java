package io.jetstream.scheduler.storm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.scheduler.placement.LoadRisk;
import io.jetstream.scheduler.placement.NodeSlots;
import io.jetstream.scheduler.placement.Placement;
import io.jetstream.scheduler.placement.RateScenarios;
import io.jetstream.scheduler.placement.RefinementObjective;
import io.jetstream.scheduler.traffic.TaskTraffic;
import io.jetstream.scheduler.traffic.TrafficSnapshot;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.scheduler.ExecutorDetails;
import org.apache.storm.testing.TestWordCounter;
import org.apache.storm.testing.TestWordSpout;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.tuple.Fields;
import org.junit.jupiter.api.Test;

/** Storm's routing rules as the objective evaluates them, against hand-computed placements. */
class GroupingObjectiveTest {
    private static final double WORKER_WEIGHT = 0.25;
    private static final double BOUND = 1.15;

    /** Executors of one task each, numbered in the order the components are given. */
    private static Map<ExecutorDetails, String> executors(Object... componentAndTasks) {
        Map<ExecutorDetails, String> out = new LinkedHashMap<>();
        int task = 1;
        for (int i = 0; i < componentAndTasks.length; i += 2) {
            for (int k = 0; k < (int) componentAndTasks[i + 1]; k++, task++) {
                out.put(new ExecutorDetails(task, task), (String) componentAndTasks[i]);
            }
        }
        return out;
    }

    private static GroupingObjective objective(StormTopology topology, Map<ExecutorDetails, String> executors,
                                               NodeSlots slots, int... workerOf) {
        ExecutorGraph graph = ExecutorGraph.fromStructure(topology, executors);
        GroupingObjective objective = GroupingObjective.of(topology, executors, graph, slots, WORKER_WEIGHT, BOUND);
        objective.reset(workerOf);
        return objective;
    }

    private static StormTopology spoutToBolt() {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("a", new TestWordSpout(), 2);
        b.setBolt("b", new TestWordCounter(), 2).localOrShuffleGrouping("a");
        return b.createTopology();
    }

    @Test
    void aSourceWithATargetInItsWorkerSendsThereAndNowhereElse() {
        // a1 b1 | a2 b2 on two nodes: both streams stay in their worker.
        GroupingObjective o = objective(spoutToBolt(), executors("a", 2, "b", 2), NodeSlots.ofWorkers(1, 1), 0, 1, 0, 1);
        assertEquals(0, o.interNodeFraction(), 1e-12);
        assertEquals(0, o.interWorkerFraction(), 1e-12);
        assertEquals(1.0, o.maxRelativeNodeLoad(), 1e-12);
        assertEquals(0, o.value(), 1e-12);
    }

    @Test
    void aSourceWithoutOneSpreadsOverAllTargets() {
        // Spouts on node 0, bolts on node 1: each spout's unit goes to both bolts, all across.
        GroupingObjective o = objective(spoutToBolt(), executors("a", 2, "b", 2), NodeSlots.ofWorkers(1, 1), 0, 0, 1, 1);
        assertEquals(1.0, o.interNodeFraction(), 1e-12);
        assertEquals(1.0, o.interWorkerFraction(), 1e-12);
        assertEquals(1.0, o.maxRelativeNodeLoad(), 1e-12, "2 emitted on node 0, 2 received on node 1");
        assertEquals(2 + WORKER_WEIGHT * 2, o.value(), 1e-9);
    }

    @Test
    void localDeliveryConcentratesLoadAndTheBoundIsPenalised() {
        // Nodes of two workers. a1 b1 in worker 0, a2 alone in worker 1 (node 0), b2 in worker 2 (node 1):
        // a1 -> b1 (local, 1); a2 has no local target -> 0.5 to b1 (same node), 0.5 to b2 (across).
        GroupingObjective o = objective(spoutToBolt(), executors("a", 2, "b", 2), NodeSlots.ofWorkers(2, 2),
                0, 1, 0, 2);
        assertEquals(0.5 / 2, o.interNodeFraction(), 1e-12);
        assertEquals(1.0 / 2, o.interWorkerFraction(), 1e-12);
        // Node 0: emits 2, b1 receives 1.5 -> 3.5 of 4 against a share of one half.
        assertEquals(3.5 / 4 / 0.5, o.maxRelativeNodeLoad(), 1e-12);
        double over = 3.5 / 4 / 0.5 - BOUND;
        assertEquals(0.5 + WORKER_WEIGHT * 1 + RefinementObjective.OVER_BOUND_PENALTY * 2 * over, o.value(), 1e-3);
    }

    @Test
    void ratesFollowWhereLocalDeliveryPutThem() {
        // a(2) -local-or-shuffle-> b(2) -shuffle-> c(2); a1 a2 b1 c2 on node 0, b2 c1 on node 1.
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("a", new TestWordSpout(), 2);
        builder.setBolt("b", new TestWordCounter(), 2).localOrShuffleGrouping("a");
        builder.setBolt("c", new TestWordCounter(), 2).shuffleGrouping("b");
        GroupingObjective o = objective(builder.createTopology(), executors("a", 2, "b", 2, "c", 2),
                NodeSlots.ofWorkers(1, 1), 0, 0, 0, 1, 1, 0);
        // b1 takes both spouts' output (2) and spreads it over c1 (across) and c2; b2 receives nothing
        // and carries nothing. Node 0: 1 + 1 + 2 + 1 of 6.
        assertEquals(1.0 / 4, o.interNodeFraction(), 1e-12);
        assertEquals(5.0 / 6 / 0.5, o.maxRelativeNodeLoad(), 1e-12);
    }

    @Test
    void anExecutorOutsideTheUserTopologyCostsTheSmallestLoad() {
        // a1 b1 | a2 b2 as in the first case, plus an __acker executor on node 1: it receives nothing
        // the model knows of, yet runs a thread, so it weighs as the smallest executor (1).
        Map<ExecutorDetails, String> executors = executors("a", 2, "b", 2);
        executors.put(new ExecutorDetails(5, 5), "__acker");
        GroupingObjective o = objective(spoutToBolt(), executors, NodeSlots.ofWorkers(1, 1), 0, 1, 0, 1, 1);
        assertEquals(0, o.interNodeFraction(), 1e-12);
        assertEquals(3.0 / 5 / 0.5, o.maxRelativeNodeLoad(), 1e-12);
    }

    @Test
    void withoutLocalOrShuffleItAgreesWithTheTaskPairGraph() {
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("a", new TestWordSpout(), 3);
        builder.setBolt("b", new TestWordCounter(), 4).fieldsGrouping("a", new Fields("word"));
        builder.setBolt("c", new TestWordCounter(), 2).shuffleGrouping("b").allGrouping("a");
        builder.setBolt("d", new TestWordCounter(), 2).globalGrouping("c");
        StormTopology topology = builder.createTopology();
        Map<ExecutorDetails, String> executors = executors("a", 3, "b", 4, "c", 2, "d", 2);
        ExecutorGraph graph = ExecutorGraph.fromStructure(topology, executors);
        NodeSlots slots = NodeSlots.ofWorkers(2, 1, 2);
        Random random = new Random(11);
        for (int trial = 0; trial < 20; trial++) {
            int[] workerOf = new int[graph.size()];
            for (int i = 0; i < workerOf.length; i++) {
                workerOf[i] = random.nextInt(slots.workerCount());
            }
            GroupingObjective o = GroupingObjective.of(topology, executors, graph, slots, WORKER_WEIGHT, BOUND);
            o.reset(workerOf);
            Placement p = new Placement(slots, workerOf);
            assertEquals(p.interNodeTrafficFraction(graph.graph()), o.interNodeFraction(), 1e-9, "trial " + trial);
            assertEquals(p.interWorkerTrafficFraction(graph.graph()), o.interWorkerFraction(), 1e-9, "trial " + trial);
            assertEquals(p.maxNodeImbalance(graph.graph()), o.maxRelativeNodeLoad(), 1e-9, "trial " + trial);
        }
    }

    @Test
    void predictedChangesMatchAFreshEvaluation() {
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("a", new TestWordSpout(), 3);
        builder.setBolt("b", new TestWordCounter(), 3).localOrShuffleGrouping("a");
        builder.setBolt("c", new TestWordCounter(), 2).localOrShuffleGrouping("b").shuffleGrouping("a");
        StormTopology topology = builder.createTopology();
        Map<ExecutorDetails, String> executors = executors("a", 3, "b", 3, "c", 2);
        NodeSlots slots = NodeSlots.ofWorkers(2, 2);
        Random random = new Random(2);
        int[] workerOf = new int[8];
        for (int i = 0; i < 8; i++) {
            workerOf[i] = random.nextInt(4);
        }
        GroupingObjective o = objective(topology, executors, slots, workerOf);
        for (int i = 0; i < 200; i++) {
            int a = random.nextInt(8);
            int b = random.nextInt(8);
            int to = random.nextInt(4);
            int[] changed = workerOf.clone();
            boolean move = i % 2 == 0;
            if (move) {
                changed[a] = to;
            } else {
                changed[a] = workerOf[b];
                changed[b] = workerOf[a];
            }
            double fresh = objective(topology, executors, slots, changed).value();
            double before = o.interNodeFraction();
            assertEquals(fresh, move ? o.valueIfMoved(a, to) : o.valueIfSwapped(a, b), 1e-6 * Math.max(1, fresh));
            assertEquals(before, o.interNodeFraction(), 0, "a prediction leaves the current measures alone");
            if (i % 3 == 0) {
                if (move) {
                    o.move(a, to);
                } else {
                    o.swap(a, b);
                }
                workerOf = changed;
                assertEquals(fresh, o.value(), 1e-6 * Math.max(1, fresh));
            }
        }
    }

    /**
     * With the rates unknown, a placement is held to the reference's expected hottest node: here only the
     * bolt's load counts (the spout's is scaled to nothing in the one scenario), so putting both bolt
     * tasks on one node makes that node carry all of it where the reference split it.
     */
    @Test
    void theRiskBoundPenalisesAPlacementExpectedHotterThanTheReference() {
        Map<ExecutorDetails, String> executors = executors("a", 2, "b", 2);
        ExecutorGraph graph = ExecutorGraph.fromStructure(spoutToBolt(), executors);
        NodeSlots slots = NodeSlots.ofWorkers(1, 1);
        GroupingObjective o = GroupingObjective.of(spoutToBolt(), executors, graph, slots, WORKER_WEIGHT, 100);
        LoadRisk risk = new LoadRisk(RateScenarios.of(new double[][] {{0, 1}}), slots);
        o.boundRisk(risk, graph.componentOf(), new int[] {0, 1, 0, 1});
        assertEquals(1.0, o.risk(), 1e-12, "a1 b1 | a2 b2: each node half the bolt's load");
        o.reset(new int[] {0, 1, 1, 1}); // a1 | a2 b1 b2: a1 spreads, a2 feeds both bolts locally: node 1 holds all
        assertEquals(2.0, o.risk(), 1e-12);
        assertTrue(o.value() > RefinementObjective.OVER_BOUND_PENALTY, "value " + o.value());
    }

    /**
     * A local-or-shuffle stream out of a keyed component (hot keys load some of its tasks, unknown which)
     * is kept no more local than in the reference: a hot task's whole output would stay on its node. The
     * same placements of a component fed by shuffle cost nothing more.
     */
    @Test
    void aKeyedComponentsOutputStaysNoMoreLocalThanInTheReference() {
        NodeSlots slots = NodeSlots.ofWorkers(2, 2);
        // a1 a2 b1 b2 c1 c2: b tasks in workers 0 and 2; c tasks apart from them, or next to them.
        int[] apart = {0, 2, 0, 2, 1, 3};
        int[] paired = {0, 2, 0, 2, 0, 2};
        for (boolean keyed : new boolean[] {true, false}) {
            TopologyBuilder builder = new TopologyBuilder();
            builder.setSpout("a", new TestWordSpout(), 2);
            if (keyed) {
                builder.setBolt("b", new TestWordCounter(), 2).fieldsGrouping("a", new Fields("word"));
            } else {
                builder.setBolt("b", new TestWordCounter(), 2).shuffleGrouping("a");
            }
            builder.setBolt("c", new TestWordCounter(), 2).localOrShuffleGrouping("b");
            StormTopology topology = builder.createTopology();
            Map<ExecutorDetails, String> executors = executors("a", 2, "b", 2, "c", 2);
            ExecutorGraph graph = ExecutorGraph.fromStructure(topology, executors);
            GroupingObjective o = GroupingObjective.of(topology, executors, graph, slots, WORKER_WEIGHT, 100);
            // One scenario at the structure's rates: both placements load the nodes alike (3 and 3).
            o.boundRisk(new LoadRisk(RateScenarios.structural(3), slots), graph.componentOf(), apart);
            double risk = o.risk();
            o.reset(paired);
            assertEquals(risk, o.risk(), 1e-12, "the placements differ in where b's output goes, not in node loads");
            if (keyed) {
                assertTrue(o.value() > RefinementObjective.OVER_BOUND_PENALTY, "keyed, paired: value " + o.value());
            } else {
                assertTrue(o.value() < 10, "shuffle-fed, paired: value " + o.value());
            }
        }
    }

    /**
     * With measured rates the objective replays Storm's routing of what was measured: spout a1 emitted
     * 300 tuples/s and a2 100, each to the b task in its worker; b used 4e8 ns of CPU a second for its
     * 400 tuples (1e6 a tuple). Moved so that no a task has a b in its worker, every a task spreads its
     * output over both b tasks, all across nodes; the loads follow the tuples at the measured costs.
     */
    @Test
    void measuredRatesAreRoutedAgainForAnotherPlacement() {
        Map<ExecutorDetails, String> executors = executors("a", 2, "b", 2);
        NodeSlots slots = NodeSlots.ofWorkers(1, 1);
        TrafficSnapshot measured = new TrafficSnapshot(List.of(
                new TaskTraffic(1, 0, 1e7, Map.of(3, 300.0)),
                new TaskTraffic(2, 0, 1e7, Map.of(4, 100.0)),
                new TaskTraffic(3, 0, 3e8, Map.of()),
                new TaskTraffic(4, 0, 1e8, Map.of())));
        ExecutorGraph graph = ExecutorGraph.fromTraffic(executors, measured);
        GroupingObjective o = GroupingObjective.of(spoutToBolt(), executors, graph, slots, WORKER_WEIGHT, 100);
        o.measure(MeasuredRates.of(measured, executors));

        o.reset(new int[] {0, 1, 0, 1}); // as measured: a1 b1 | a2 b2
        assertEquals(0, o.interNodeTraffic(), 1e-9);
        // Node 0: a1 emits 300 at 2e7 / 400 ns a tuple (the spouts' CPU over their tuples), b1 receives 300 at 1e6.
        double node0 = 300 * 2e7 / 400 + 300 * 1e6;
        double node1 = 100 * 2e7 / 400 + 100 * 1e6;
        assertEquals(node0 / (node0 + node1) / 0.5, o.maxRelativeNodeLoad(), 1e-9);

        o.reset(new int[] {0, 0, 1, 1}); // a1 a2 | b1 b2: nothing local, 400 tuples/s across
        assertEquals(400, o.interNodeTraffic(), 1e-9);
        assertEquals(400, o.interNodeTraffic() / o.interNodeFraction(), 1e-9, "all of it");
    }

    /** A fields grouping's measured key shares place the load on the tasks the keys go to. */
    @Test
    void measuredKeySharesGoWhereverTheirTaskIs() {
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("a", new TestWordSpout(), 2);
        builder.setBolt("b", new TestWordCounter(), 2).fieldsGrouping("a", new Fields("word"));
        StormTopology topology = builder.createTopology();
        Map<ExecutorDetails, String> executors = executors("a", 2, "b", 2);
        TrafficSnapshot measured = new TrafficSnapshot(List.of(
                new TaskTraffic(1, 0, 0, Map.of(3, 90.0, 4, 10.0)),
                new TaskTraffic(2, 0, 0, Map.of(3, 90.0, 4, 10.0)),
                new TaskTraffic(3, 0, 0, Map.of()),
                new TaskTraffic(4, 0, 0, Map.of())));
        ExecutorGraph graph = ExecutorGraph.fromTraffic(executors, measured);
        NodeSlots slots = NodeSlots.ofWorkers(1, 1);
        GroupingObjective o = GroupingObjective.of(topology, executors, graph, slots, WORKER_WEIGHT, 100);
        o.measure(MeasuredRates.of(measured, executors));
        o.reset(new int[] {0, 1, 0, 1}); // a1 b1 | a2 b2: a1 keeps 90 of its 100 in its node, a2 10
        assertEquals(10 + 90, o.interNodeTraffic(), 1e-9);
        // No CPU recorded: the load is the tuples, 100 + 180 on node 0, 100 + 20 on node 1.
        assertEquals(280.0 / 400 / 0.5, o.maxRelativeNodeLoad(), 1e-9);
    }
}
