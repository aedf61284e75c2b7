package io.jetstream.scheduler.storm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.scheduler.traffic.DirectoryTrafficStore;
import io.jetstream.scheduler.traffic.TaskTraffic;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.storm.Config;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.metric.StormMetricsRegistry;
import org.apache.storm.scheduler.Cluster;
import org.apache.storm.scheduler.ExecutorDetails;
import org.apache.storm.scheduler.IScheduler;
import org.apache.storm.scheduler.SchedulerAssignment;
import org.apache.storm.scheduler.SchedulerAssignmentImpl;
import org.apache.storm.scheduler.SupervisorDetails;
import org.apache.storm.scheduler.Topologies;
import org.apache.storm.scheduler.TopologyDetails;
import org.apache.storm.scheduler.WorkerSlot;
import org.apache.storm.scheduler.resource.TestUtilsForResourceAwareScheduler;
import org.apache.storm.scheduler.resource.normalization.ResourceMetrics;
import org.apache.storm.testing.TestWordCounter;
import org.apache.storm.testing.TestWordSpout;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.tuple.Fields;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scheduler on clusters built with Storm's own scheduler test utilities. */
class JetStreamSchedulerTest {
    @TempDir
    Path trafficDir;

    private static Map<String, SupervisorDetails> supervisors(int count, int slotsEach) {
        Map<String, SupervisorDetails> sups = new HashMap<>();
        for (int n = 0; n < count; n++) {
            List<Number> ports = new ArrayList<>();
            for (int p = 0; p < slotsEach; p++) {
                ports.add(6700 + p);
            }
            sups.put("sup-" + n, new SupervisorDetails("sup-" + n, "host-" + n, null, ports));
        }
        return sups;
    }

    private static TopologyDetails topology(String id, int workers, Map<String, Object> conf) {
        StormTopology topo = TestUtilsForResourceAwareScheduler.buildTopology(1, 2, 2, 3);
        return new TopologyDetails(id, conf, topo, workers,
                TestUtilsForResourceAwareScheduler.genExecsAndComps(topo), 0, "user");
    }

    /** Words (4 executors) to counters (4 executors) by fields: uniform from structure. */
    private static TopologyDetails wordCount(String id, int workers, Map<String, Object> conf) {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("words", new TestWordSpout(), 4);
        b.setBolt("count", new TestWordCounter(), 4).fieldsGrouping("words", new Fields("word"));
        StormTopology topo = b.createTopology();
        Map<ExecutorDetails, String> executors = new HashMap<>();
        for (int t = 1; t <= 4; t++) {
            executors.put(new ExecutorDetails(t, t), "count"); // Storm numbers components in name order
            executors.put(new ExecutorDetails(t + 4, t + 4), "words");
        }
        return new TopologyDetails(id, conf, topo, workers, executors, 0, "user");
    }

    private static Cluster cluster(Map<String, SupervisorDetails> sups, Map<String, ? extends SchedulerAssignment> existing,
                                   Topologies topologies, Map<String, Object> conf) {
        return new Cluster(new TestUtilsForResourceAwareScheduler.INimbusTest(),
                new ResourceMetrics(new StormMetricsRegistry()), sups, existing, topologies, conf);
    }

    private static Map<String, Object> conf() {
        return new HashMap<>(new Config());
    }

    private static Cluster scheduleWith(JetStreamScheduler scheduler, int sups, int slotsEach, TopologyDetails... topologies) {
        Topologies all = new Topologies(topologies);
        Cluster cluster = cluster(supervisors(sups, slotsEach), new HashMap<>(), all, conf());
        scheduler.prepare(conf(), new StormMetricsRegistry());
        scheduler.schedule(all, cluster);
        return cluster;
    }

    private static String nodeOf(Cluster c, String topologyId, ExecutorDetails e) {
        return c.getAssignmentById(topologyId).getExecutorToSlot().get(e).getNodeId();
    }

    @Test
    void placesEveryExecutorOnTheRequestedWorkersAndSaysWhatItExpects() {
        TopologyDetails t = topology("t-1", 4, conf());
        Cluster c = scheduleWith(new JetStreamScheduler(), 2, 2, t);

        assertTrue(c.getUnassignedExecutors(t).isEmpty(), "unassigned: " + c.getUnassignedExecutors(t));
        Set<WorkerSlot> slots = c.getAssignmentById("t-1").getSlots();
        assertEquals(4, slots.size());
        assertEquals(2, slots.stream().map(s -> c.getHost(s.getNodeId())).collect(Collectors.toSet()).size());
        String status = c.getStatusMap().get("t-1");
        assertTrue(status.startsWith(JetStreamScheduler.STATUS_PREFIX + " fully scheduled"), status);
        assertTrue(status.contains("on 4 workers, 2 nodes"), status);
        assertTrue(status.contains("expected inter-node traffic"), status);
    }

    @Test
    void localOrShufflePairsShareAWorker() {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("a-source", new TestWordSpout(), 4);
        b.setBolt("b-sink", new TestWordCounter(), 4).localOrShuffleGrouping("a-source");
        Map<ExecutorDetails, String> executors = new HashMap<>();
        for (int t = 1; t <= 4; t++) {
            executors.put(new ExecutorDetails(t, t), "a-source");
            executors.put(new ExecutorDetails(t + 4, t + 4), "b-sink");
        }
        TopologyDetails t = new TopologyDetails("t-los", conf(), b.createTopology(), 4, executors, 0, "user");
        Cluster c = scheduleWith(new JetStreamScheduler(), 2, 2, t);
        Map<ExecutorDetails, WorkerSlot> placed = c.getAssignmentById("t-los").getExecutorToSlot();
        for (int task = 1; task <= 4; task++) {
            WorkerSlot worker = placed.get(new ExecutorDetails(task, task));
            boolean hasLocalTarget = false;
            for (int target = 5; target <= 8; target++) {
                hasLocalTarget |= placed.get(new ExecutorDetails(target, target)).equals(worker);
            }
            assertTrue(hasLocalTarget, "source task " + task + " has no target in its worker " + worker + ": " + placed);
        }
        String status = c.getStatusMap().get("t-los");
        assertTrue(status.contains("expected inter-node traffic 0.0 %"), status);
        assertTrue(status.contains("(local-or-shuffle as Storm routes it)"), "measured by Storm's rule: " + status);
    }

    /**
     * Fan-out-in on 2 nodes x 2 slots, every stream local-or-shuffle: a source (2 tasks) feeds four
     * branches of one task each, which feed a merge (2 tasks). Where a branch shares a worker with a
     * merge task, its whole output stays there; a source's streams reach the branch tasks wherever they
     * are. Dealing the components over the workers (Storm's even scheduler) gives workers {branch, merge}
     * twice and {branch, source} twice: 6 of the 16 tuples per unit time cross nodes, every node at
     * the mean load. The plan from the task-pair graph alone kept all four branches and both sources on
     * one node (8 of 16 crossing, 1.11 x the mean load), and single moves from there never reached the deal.
     */
    @Test
    void localOrShuffleNeverCarriesMoreAcrossNodesThanDealingTheComponents() {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("source", new TestWordSpout(), 2);
        var merge = b.setBolt("merge", new TestWordCounter(), 2);
        for (int i = 1; i <= 4; i++) {
            b.setBolt("branch" + i, new TestWordCounter(), 1).localOrShuffleGrouping("source");
            merge.localOrShuffleGrouping("branch" + i);
        }
        // Storm numbers tasks in component-name order: branch1-4 = 1-4, merge = 5-6, source = 7-8.
        Map<ExecutorDetails, String> executors = new HashMap<>();
        for (int t = 1; t <= 8; t++) {
            executors.put(new ExecutorDetails(t, t), t <= 4 ? "branch" + t : t <= 6 ? "merge" : "source");
        }
        TopologyDetails t = new TopologyDetails("t-fan", conf(), b.createTopology(), 4, executors, 0, "user");
        Cluster c = scheduleWith(new JetStreamScheduler(), 2, 2, t);
        Map<ExecutorDetails, WorkerSlot> placed = c.getAssignmentById("t-fan").getExecutorToSlot();
        WorkerSlot[] worker = new WorkerSlot[9];
        for (int task = 1; task <= 8; task++) {
            worker[task] = placed.get(new ExecutorDetails(task, task));
        }
        // Storm's routing, worked out independently of the scheduler's own objective.
        double cross = 0;
        double[] load = new double[9];
        for (int source = 7; source <= 8; source++) {
            load[source] = 1;
            for (int branch = 1; branch <= 4; branch++) {
                load[branch] += 1; // the only task of its component: local or not, it gets the stream
                cross += worker[source].getNodeId().equals(worker[branch].getNodeId()) ? 0 : 1;
            }
        }
        for (int branch = 1; branch <= 4; branch++) {
            List<Integer> local = new ArrayList<>();
            for (int m = 5; m <= 6; m++) {
                if (worker[m].equals(worker[branch])) {
                    local.add(m);
                }
            }
            List<Integer> targets = local.isEmpty() ? List.of(5, 6) : local;
            for (int m : targets) {
                double share = load[branch] / targets.size();
                load[m] += share;
                cross += worker[m].getNodeId().equals(worker[branch].getNodeId()) ? 0 : share;
            }
        }
        Map<String, Double> nodeLoad = new HashMap<>();
        for (int task = 1; task <= 8; task++) {
            nodeLoad.merge(worker[task].getNodeId(), load[task], Double::sum);
        }
        double max = nodeLoad.values().stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        assertTrue(cross <= 6, cross + " of 16 tuples cross nodes: " + placed);
        assertTrue(max <= 1.15 * 18 / 2, "node loads " + nodeLoad + ": " + placed);
    }

    /** The most executors of {@code component} one host runs under a placement. */
    private static int mostOnAHost(Cluster c, String topologyId, Map<ExecutorDetails, String> executors, String component) {
        Map<String, Integer> perHost = new HashMap<>();
        c.getAssignmentById(topologyId).getExecutorToSlot().forEach((e, slot) -> {
            if (component.equals(executors.get(e))) {
                perHost.merge(c.getHost(slot.getNodeId()), 1, Integer::sum);
            }
        });
        return perHost.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    }

    /**
     * With the rates unknown (the default), no host runs more executors of any component than Storm's
     * even scheduler puts on one: whichever component turns out to carry the load, no host is hotter.
     * Trusting the structure's rates consolidates components and so can be.
     */
    @Test
    void withRatesUnknownNoHostRunsMoreOfAComponentThanUnderTheEvenScheduler() {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("a-source", new TestWordSpout(), 6);
        b.setBolt("b-parse", new TestWordCounter(), 6).shuffleGrouping("a-source");
        b.setBolt("c-count", new TestWordCounter(), 6).fieldsGrouping("b-parse", new Fields("word"));
        b.setBolt("d-sink", new TestWordCounter(), 3).shuffleGrouping("c-count");
        StormTopology topology = b.createTopology();
        Map<ExecutorDetails, String> executors = new HashMap<>();
        int task = 1;
        for (String[] c : new String[][] {{"a-source", "6"}, {"b-parse", "6"}, {"c-count", "6"}, {"d-sink", "3"}}) {
            for (int k = 0; k < Integer.parseInt(c[1]); k++, task++) {
                executors.put(new ExecutorDetails(task, task), c[0]);
            }
        }
        Map<String, Cluster> placed = new HashMap<>();
        for (String scheduler : List.of("even", "unknown", "uniform")) {
            Map<String, Object> conf = conf();
            if (!scheduler.equals("even")) {
                conf.put("jetstream.scheduler.structure.rates", scheduler);
            }
            TopologyDetails t = new TopologyDetails("t-" + scheduler, conf, topology, 8, executors, 0, "user");
            Topologies all = new Topologies(t);
            Cluster c = cluster(supervisors(4, 2), new HashMap<>(), all, conf);
            IScheduler s = scheduler.equals("even") ? new org.apache.storm.scheduler.EvenScheduler() : new JetStreamScheduler();
            s.prepare(conf, new StormMetricsRegistry());
            s.schedule(all, c);
            assertTrue(c.getUnassignedExecutors(t).isEmpty());
            placed.put(scheduler, c);
        }
        boolean uniformCrowds = false;
        for (String component : List.of("a-source", "b-parse", "c-count", "d-sink")) {
            int even = mostOnAHost(placed.get("even"), "t-even", executors, component);
            int unknown = mostOnAHost(placed.get("unknown"), "t-unknown", executors, component);
            int uniform = mostOnAHost(placed.get("uniform"), "t-uniform", executors, component);
            assertTrue(unknown <= even, component + ": " + unknown + " executors on one host, the even scheduler " + even);
            uniformCrowds |= uniform > even;
        }
        assertTrue(uniformCrowds, "trusting uniform rates crowds some component onto a host (the check can fail)");
    }

    @Test
    void topologyThatDoesNotFitIsLeftWithAStatusThatSaysWhy() {
        TopologyDetails first = topology("t-1", 2, conf());
        TopologyDetails second = topology("t-2", 2, conf());
        Cluster cluster = scheduleWith(new JetStreamScheduler(), 1, 2, first, second);

        TopologyDetails placed = cluster.getUnassignedExecutors(first).isEmpty() ? first : second;
        TopologyDetails starved = placed == first ? second : first;
        assertTrue(cluster.getUnassignedExecutors(placed).isEmpty());
        assertEquals(starved.getExecutors().size(), cluster.getUnassignedExecutors(starved).size());
        String status = cluster.getStatusMap().get(starved.getId());
        assertTrue(status.startsWith(JetStreamScheduler.STATUS_PREFIX + " not enough free slots"), status);
        assertTrue(status.contains("0 free slots"), status);
    }

    /**
     * Nimbus halts its JVM on any exception out of a scheduler: a topology the planner fails on (here its
     * structure cannot be read the first time) is placed by Storm's even scheduler instead, its status names the cause,
     * and the other topologies are placed as usual.
     */
    @Test
    void aTopologyThePlannerFailsOnIsPlacedByTheEvenSchedulerAndItsStatusNamesTheCause() {
        TopologyDetails healthy = topology("t-1", 2, conf());
        TopologyDetails unreadable = new TopologyDetails("t-2", conf(), healthy.getTopology(), 2,
                healthy.getExecutorToComponent(), 0, "user") {
            private boolean failed;

            @Override
            public StormTopology getTopology() {
                if (!failed) { // once: Storm's own Cluster.assign reads the structure too
                    failed = true;
                    throw new IllegalStateException("structure unreadable");
                }
                return super.getTopology();
            }
        };

        Cluster cluster = scheduleWith(new JetStreamScheduler(), 2, 2, unreadable, healthy);

        assertTrue(cluster.getUnassignedExecutors(unreadable).isEmpty(),
                "unassigned: " + cluster.getUnassignedExecutors(unreadable));
        assertEquals(2, cluster.getAssignmentById("t-2").getSlots().size());
        String status = cluster.getStatusMap().get("t-2");
        assertTrue(status.startsWith(JetStreamScheduler.STATUS_PREFIX + " placed by Storm's even scheduler after placing "
                + "it failed: IllegalStateException: structure unreadable"), status);
        assertTrue(cluster.getUnassignedExecutors(healthy).isEmpty());
        assertTrue(cluster.getStatusMap().get("t-1").startsWith(JetStreamScheduler.STATUS_PREFIX + " fully scheduled"),
                cluster.getStatusMap().get("t-1"));
    }

    @Test
    void fewerFreeSlotsThanRequestedIsSaidInTheStatus() {
        TopologyDetails t = topology("t-1", 4, conf());
        Cluster cluster = scheduleWith(new JetStreamScheduler(), 1, 2, t);
        assertTrue(cluster.getUnassignedExecutors(t).isEmpty());
        String status = cluster.getStatusMap().get("t-1");
        assertTrue(status.contains("on 2 workers, 1 nodes (4 workers requested; not enough free slots)"), status);
    }

    @Test
    void alreadyAssignedTopologiesAreLeftAlone() {
        TopologyDetails t = topology("t-1", 2, conf());
        Topologies all = new Topologies(t);
        Cluster cluster = cluster(supervisors(2, 2), new HashMap<>(), all, conf());
        JetStreamScheduler scheduler = new JetStreamScheduler();
        scheduler.prepare(conf(), new StormMetricsRegistry());
        scheduler.schedule(all, cluster);
        Map<?, ?> before = new HashMap<>(cluster.getAssignmentById("t-1").getExecutorToSlot());
        scheduler.schedule(all, cluster);
        assertEquals(before, cluster.getAssignmentById("t-1").getExecutorToSlot());
    }

    @Test
    void executorsOfADeadSupervisorGoToFreeSlotsAndLiveWorkersStay() {
        JetStreamScheduler scheduler = new JetStreamScheduler();
        TopologyDetails t = topology("t-1", 4, conf());
        Cluster first = scheduleWith(scheduler, 3, 2, t);
        Map<ExecutorDetails, WorkerSlot> placed = first.getAssignmentById("t-1").getExecutorToSlot();
        String dead = placed.values().iterator().next().getNodeId();
        // Nimbus drops the dead supervisor from the cluster and its executors from the assignment.
        Map<String, SupervisorDetails> alive = supervisors(3, 2);
        alive.remove(dead);
        Map<ExecutorDetails, WorkerSlot> survivors = new HashMap<>(placed);
        survivors.values().removeIf(slot -> slot.getNodeId().equals(dead));
        Topologies all = new Topologies(t);
        Cluster after = cluster(alive, Map.of("t-1", new SchedulerAssignmentImpl("t-1", survivors, null, null)), all, conf());
        scheduler.schedule(all, after);

        Map<ExecutorDetails, WorkerSlot> now = after.getAssignmentById("t-1").getExecutorToSlot();
        assertEquals(t.getExecutors(), now.keySet(), "every executor placed again");
        survivors.forEach((e, slot) -> assertEquals(slot, now.get(e), "live executor " + e + " moved"));
        now.values().forEach(slot -> assertNotEquals(dead, slot.getNodeId()));
        assertTrue(after.getStatusMap().get("t-1").contains("re-placed"), after.getStatusMap().get("t-1"));
    }

    @Test
    void measuredTrafficRebalancesOnlyAfterTheMinimumPeriodAndOnlyOnce() throws Exception {
        Map<String, Object> conf = conf();
        conf.put("jetstream.scheduler.traffic.dir", trafficDir.toString());
        conf.put("jetstream.scheduler.rebalance.min-period-ms", 600_000L);
        long[] clock = {1_000_000};
        JetStreamScheduler scheduler = new JetStreamScheduler(() -> clock[0]);
        scheduler.prepare(conf, new StormMetricsRegistry());
        TopologyDetails t = wordCount("wc-1", 2, conf);
        Topologies all = new Topologies(t);
        Cluster c1 = cluster(supervisors(2, 1), new HashMap<>(), all, conf);
        scheduler.schedule(all, c1);
        SchedulerAssignment initial = c1.getAssignmentById("wc-1");
        assertEquals(8, initial.getExecutorToSlot().size());

        // Measured: each word task sends nearly everything to one counter, always one on the other node.
        DirectoryTrafficStore store = new DirectoryTrafficStore(trafficDir);
        for (int word = 5; word <= 8; word++) {
            String node = nodeOf(c1, "wc-1", new ExecutorDetails(word, word));
            int partner = -1;
            for (int count = 1; count <= 4 && partner < 0; count++) {
                boolean elsewhere = !nodeOf(c1, "wc-1", new ExecutorDetails(count, count)).equals(node);
                boolean free = true;
                for (int w = 5; w < word; w++) {
                    free &= partnerOf.getOrDefault(w, -1) != count;
                }
                if (elsewhere && free) {
                    partner = count;
                }
            }
            partnerOf.put(word, partner);
            store.write("wc-1", new TaskTraffic(word, clock[0], 1e7, Map.of(partner, 1000.0)));
        }
        for (int count = 1; count <= 4; count++) {
            store.write("wc-1", new TaskTraffic(count, clock[0], 1e7, Map.of()));
        }

        clock[0] += 60_000; // one minute later: too early
        Cluster c2 = cluster(supervisors(2, 1), Map.of("wc-1", new SchedulerAssignmentImpl(initial)), all, conf);
        scheduler.schedule(all, c2);
        assertEquals(initial.getExecutorToSlot(), c2.getAssignmentById("wc-1").getExecutorToSlot());
        assertTrue(c2.getStatusMap().get("wc-1").contains("fully scheduled") && c2.getStatusMap().get("wc-1").contains("placement kept: placed 60 s ago"), c2.getStatusMap().get("wc-1"));

        clock[0] += 600_000; // past the minimum period; the records are 11 min old: refresh them
        for (int word = 5; word <= 8; word++) {
            store.write("wc-1", new TaskTraffic(word, clock[0], 1e7, Map.of(partnerOf.get(word), 1000.0)));
        }
        for (int count = 1; count <= 4; count++) {
            store.write("wc-1", new TaskTraffic(count, clock[0], 1e7, Map.of()));
        }
        Cluster c3 = cluster(supervisors(2, 1), Map.of("wc-1", new SchedulerAssignmentImpl(initial)), all, conf);
        scheduler.schedule(all, c3);
        String status = c3.getStatusMap().get("wc-1");
        assertTrue(status.contains("rebalanced from measured traffic: inter-node 4000.0 -> 0.0 tuples/s"), status);
        for (int word = 5; word <= 8; word++) {
            assertEquals(nodeOf(c3, "wc-1", new ExecutorDetails(word, word)),
                    nodeOf(c3, "wc-1", new ExecutorDetails(partnerOf.get(word), partnerOf.get(word))),
                    "word task " + word + " and its counter share a node");
        }

        clock[0] += 1_000; // right after: the new placement is kept
        Cluster c4 = cluster(supervisors(2, 1), Map.of("wc-1", new SchedulerAssignmentImpl(c3.getAssignmentById("wc-1"))),
                all, conf);
        scheduler.schedule(all, c4);
        assertEquals(c3.getAssignmentById("wc-1").getExecutorToSlot(), c4.getAssignmentById("wc-1").getExecutorToSlot());
    }

    private final Map<Integer, Integer> partnerOf = new HashMap<>();

    /**
     * Online, the switch from the placement from structure to one from measured traffic happens by itself:
     * nothing is planned before every task has recorded a window under the current placement; then a
     * node the measured CPU time shows running hot is relieved, whatever the traffic gain (the hysteresis
     * is set out of reach here).
     */
    @Test
    void aHotNodeMeasuredUnderThePlacementFromStructureIsRelievedByItself() throws Exception {
        Map<String, Object> conf = conf();
        conf.put("jetstream.scheduler.traffic.dir", trafficDir.toString());
        conf.put("jetstream.scheduler.traffic.window-ms", 10_000L);
        conf.put("jetstream.scheduler.traffic.stale-after-ms", 86_400_000L); // old records stay readable
        conf.put("jetstream.scheduler.rebalance.min-gain", 0.9); // no traffic gain is enough: only the hot node counts
        long[] clock = {1_000_000};
        JetStreamScheduler scheduler = new JetStreamScheduler(() -> clock[0]);
        scheduler.prepare(conf, new StormMetricsRegistry());
        TopologyDetails t = wordCount("wc-hot", 2, conf);
        Topologies all = new Topologies(t);
        Cluster c1 = cluster(supervisors(2, 1), new HashMap<>(), all, conf);
        scheduler.schedule(all, c1);
        SchedulerAssignment initial = c1.getAssignmentById("wc-hot");
        String hotNode = nodeOf(c1, "wc-hot", new ExecutorDetails(1, 1));
        DirectoryTrafficStore store = new DirectoryTrafficStore(trafficDir);

        // Records from before the placement's first window ended: not measured under it.
        clock[0] += 700_000;
        writeWordCountTraffic(store, c1, hotNode, clock[0] - 700_000 + 5_000);
        Cluster c2 = cluster(supervisors(2, 1), Map.of("wc-hot", new SchedulerAssignmentImpl(initial)), all, conf);
        scheduler.schedule(all, c2);
        assertEquals(initial.getExecutorToSlot(), c2.getAssignmentById("wc-hot").getExecutorToSlot());
        assertTrue(c2.getStatusMap().get("wc-hot").contains("waiting for traffic measured under this placement: 0 of 8"),
                c2.getStatusMap().get("wc-hot"));

        // Every task's newest window ended well after it: the counters on one node burn 20 times the CPU.
        writeWordCountTraffic(store, c1, hotNode, clock[0]);
        Cluster c3 = cluster(supervisors(2, 1), Map.of("wc-hot", new SchedulerAssignmentImpl(initial)), all, conf);
        scheduler.schedule(all, c3);
        String status = c3.getStatusMap().get("wc-hot");
        assertTrue(status.contains("rebalanced from measured traffic: hottest node"), status);
        Map<String, Integer> hotPerNode = new HashMap<>();
        for (int count = 1; count <= 4; count++) {
            if (nodeOf(c1, "wc-hot", new ExecutorDetails(count, count)).equals(hotNode)) {
                hotPerNode.merge(nodeOf(c3, "wc-hot", new ExecutorDetails(count, count)), 1, Integer::sum);
            }
        }
        assertEquals(Map.of("sup-0", 1, "sup-1", 1), hotPerNode, "one hot counter on each node");
    }

    /** Every word task sends evenly to every counter; counters on {@code hotNode} burn 20 x the CPU of the others. */
    private static void writeWordCountTraffic(DirectoryTrafficStore store, Cluster placed, String hotNode, long windowEnd)
            throws java.io.IOException {
        for (int word = 5; word <= 8; word++) {
            store.write("wc-hot", new TaskTraffic(word, windowEnd, 1e7, Map.of(1, 250.0, 2, 250.0, 3, 250.0, 4, 250.0)));
        }
        for (int count = 1; count <= 4; count++) {
            boolean hot = nodeOf(placed, "wc-hot", new ExecutorDetails(count, count)).equals(hotNode);
            store.write("wc-hot", new TaskTraffic(count, windowEnd, hot ? 2e8 : 1e7, Map.of()));
        }
    }

    @Test
    void misspelledSchedulerOptionFailsNimbusAtStart() {
        Map<String, Object> conf = conf();
        conf.put("jetstream.scheduler.modes", "turbo");
        InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class,
                () -> new JetStreamScheduler().prepare(conf, new StormMetricsRegistry()));
        assertEquals("jetstream.scheduler.modes", e.key());
    }

    @Test
    void theHookRefusesToStartWithoutADirectory() {
        InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class,
                () -> new TrafficRecordingHook().prepare(conf(), null));
        assertEquals("jetstream.scheduler.traffic.dir", e.key());
    }
}
