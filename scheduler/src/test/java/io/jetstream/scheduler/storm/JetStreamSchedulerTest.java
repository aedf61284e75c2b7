package io.jetstream.scheduler.storm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.config.InvalidConfigurationException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.storm.Config;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.metric.StormMetricsRegistry;
import org.apache.storm.scheduler.Cluster;
import org.apache.storm.scheduler.EvenScheduler;
import org.apache.storm.scheduler.IScheduler;
import org.apache.storm.scheduler.SupervisorDetails;
import org.apache.storm.scheduler.Topologies;
import org.apache.storm.scheduler.TopologyDetails;
import org.apache.storm.scheduler.WorkerSlot;
import org.apache.storm.scheduler.resource.TestUtilsForResourceAwareScheduler;
import org.apache.storm.scheduler.resource.normalization.ResourceMetrics;
import org.junit.jupiter.api.Test;

/** The scheduler on clusters built with Storm's own scheduler test utilities. */
class JetStreamSchedulerTest {

    private static Map<String, SupervisorDetails> supervisors(int count, int slotsEach) {
        Map<String, SupervisorDetails> sups = new HashMap<>();
        for (int n = 0; n < count; n++) {
            java.util.List<Number> ports = new java.util.ArrayList<>();
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

    private static Cluster cluster(Map<String, SupervisorDetails> sups, Topologies topologies, Map<String, Object> conf) {
        return new Cluster(new TestUtilsForResourceAwareScheduler.INimbusTest(),
                new ResourceMetrics(new StormMetricsRegistry()), sups, new HashMap<>(), topologies, conf);
    }

    private static Map<String, Object> conf() {
        Map<String, Object> conf = new HashMap<>(new Config());
        return conf;
    }

    private static Cluster scheduleWith(IScheduler scheduler, int sups, int slotsEach, TopologyDetails... topologies) {
        Topologies all = new Topologies(topologies);
        Cluster cluster = cluster(supervisors(sups, slotsEach), all, conf());
        scheduler.prepare(conf(), new StormMetricsRegistry());
        scheduler.schedule(all, cluster);
        return cluster;
    }

    @Test
    void placesEveryExecutorExactlyAsStormsEvenScheduler() {
        TopologyDetails t = topology("t-1", 4, conf());
        Cluster ours = scheduleWith(new JetStreamScheduler(), 2, 2, t);
        Cluster even = scheduleWith(new EvenScheduler(), 2, 2, topology("t-1", 4, conf()));

        assertTrue(ours.getUnassignedExecutors(t).isEmpty(), "unassigned: " + ours.getUnassignedExecutors(t));
        assertEquals(even.getAssignmentById("t-1").getExecutorToSlot(), ours.getAssignmentById("t-1").getExecutorToSlot());
        Set<WorkerSlot> slots = ours.getAssignmentById("t-1").getSlots();
        assertEquals(4, slots.size());
        assertEquals(2, slots.stream().map(s -> ours.getHost(s.getNodeId())).collect(Collectors.toSet()).size());
        String status = ours.getStatusMap().get("t-1");
        assertTrue(status.startsWith(JetStreamScheduler.STATUS_PREFIX + " fully scheduled"), status);
        assertTrue(status.contains("on 4 workers, 2 hosts"), status);
    }

    @Test
    void topologyThatDoesNotFitIsLeftWithAStatusThatSaysWhy() {
        TopologyDetails first = topology("t-1", 2, conf());
        TopologyDetails second = topology("t-2", 2, conf());
        Cluster cluster = scheduleWith(new JetStreamScheduler(), 1, 2, first, second);

        // Two slots in all: one topology gets both, the other none.
        TopologyDetails placed = cluster.getUnassignedExecutors(first).isEmpty() ? first : second;
        TopologyDetails starved = placed == first ? second : first;
        assertTrue(cluster.getUnassignedExecutors(placed).isEmpty());
        assertEquals(starved.getExecutors().size(), cluster.getUnassignedExecutors(starved).size());
        String status = cluster.getStatusMap().get(starved.getId());
        assertTrue(status.startsWith(JetStreamScheduler.STATUS_PREFIX + " not enough free slots"), status);
        assertTrue(status.contains("0 free slots"), status);
    }

    @Test
    void fewerFreeSlotsThanRequestedIsSaidInTheStatus() {
        TopologyDetails t = topology("t-1", 4, conf());
        Cluster cluster = scheduleWith(new JetStreamScheduler(), 1, 2, t);
        assertTrue(cluster.getUnassignedExecutors(t).isEmpty());
        String status = cluster.getStatusMap().get("t-1");
        assertTrue(status.contains("on 2 workers, 1 hosts (4 workers requested; not enough free slots)"), status);
    }

    @Test
    void alreadyAssignedTopologiesAreLeftAlone() {
        TopologyDetails t = topology("t-1", 2, conf());
        Topologies all = new Topologies(t);
        Cluster cluster = cluster(supervisors(2, 2), all, conf());
        JetStreamScheduler scheduler = new JetStreamScheduler();
        scheduler.prepare(conf(), new StormMetricsRegistry());
        scheduler.schedule(all, cluster);
        Map<?, ?> before = new HashMap<>(cluster.getAssignmentById("t-1").getExecutorToSlot());
        scheduler.schedule(all, cluster);
        assertEquals(before, cluster.getAssignmentById("t-1").getExecutorToSlot());
    }

    @Test
    void misspelledSchedulerOptionFailsNimbusAtStart() {
        Map<String, Object> conf = conf();
        conf.put("jetstream.scheduler.mode", "turbo");
        InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class,
                () -> new JetStreamScheduler().prepare(conf, new StormMetricsRegistry()));
        assertEquals("jetstream.scheduler.mode", e.key());
    }
}
