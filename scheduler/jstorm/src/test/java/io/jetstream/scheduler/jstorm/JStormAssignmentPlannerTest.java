package io.jetstream.scheduler.jstorm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import backtype.storm.Config;
import backtype.storm.generated.StormTopology;
import backtype.storm.testing.TestWordCounter;
import backtype.storm.testing.TestWordSpout;
import backtype.storm.topology.TopologyBuilder;
import backtype.storm.tuple.Fields;
import com.alibaba.jstorm.client.ConfigExtension;
import com.alibaba.jstorm.client.WorkerAssignment;
import com.alibaba.jstorm.cluster.Common;
import com.alibaba.jstorm.daemon.supervisor.SupervisorInfo;
import com.alibaba.jstorm.schedule.TopologyAssignContext;
import com.alibaba.jstorm.schedule.default_assign.DefaultTopologyScheduler;
import com.alibaba.jstorm.schedule.default_assign.ResourceWorkerSlot;
import io.jetstream.core.config.InvalidConfigurationException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The placement reaches JStorm through its own scheduler: the assignment is stored with JStorm's
 * {@link ConfigExtension}, and JStorm 2.2.1's {@link DefaultTopologyScheduler} — the code Nimbus
 * runs for every new topology — turns it into workers and task sets.
 */
class JStormAssignmentPlannerTest {
    private static final List<Integer> PORTS = List.of(6800, 6801, 6802, 6803);

    /** spout ×4 → local-or-shuffle → split ×4 → fields → count ×4, two ackers. */
    private static StormTopology topology() {
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("source", new TestWordSpout(), 4);
        builder.setBolt("split", new TestWordCounter(), 4).localOrShuffleGrouping("source");
        builder.setBolt("count", new TestWordCounter(), 4).fieldsGrouping("split", new Fields("word"));
        return builder.createTopology();
    }

    private static Map<Object, Object> conf(int workers, int ackers) {
        Map<Object, Object> conf = new HashMap<>();
        conf.put(Config.TOPOLOGY_WORKERS, workers);
        conf.put(Config.TOPOLOGY_ACKER_EXECUTORS, ackers);
        return conf;
    }

    private static List<JStormAssignmentPlanner.Slot> slots(String... hosts) {
        List<JStormAssignmentPlanner.Slot> slots = new ArrayList<>();
        for (String host : hosts) {
            for (int port : PORTS) {
                slots.add(new JStormAssignmentPlanner.Slot(host, port));
            }
        }
        return slots;
    }

    @Test
    void jstormsOwnSchedulerRunsEveryTaskWhereThePlanPutsIt() throws Exception {
        StormTopology topology = topology();
        Map<Object, Object> conf = conf(4, 2);
        List<WorkerAssignment> plan = new JStormAssignmentPlanner(conf).assign(topology, conf, slots("host-a", "host-b"));

        // The plan: four workers, two per host (spread as JStorm's own scheduler would), every
        // task counted once, the system tasks included (or JStorm would drop the whole list).
        assertEquals(4, plan.size());
        Map<String, Integer> perHost = new TreeMap<>();
        Map<String, Integer> total = new TreeMap<>();
        for (WorkerAssignment w : plan) {
            perHost.merge(w.getHostName(), 1, Integer::sum);
            w.getComponentToNum().forEach((c, n) -> total.merge(c, n, Integer::sum));
            // Local-or-shuffle pairs stay in one worker: as many split tasks as source tasks.
            assertEquals(w.getComponentToNum().getOrDefault("source", 0), w.getComponentToNum().getOrDefault("split", 0),
                    "source and split tasks paired in " + w);
        }
        assertEquals(Map.of("host-a", 2, "host-b", 2), perHost);
        assertEquals(Map.of("source", 4, "split", 4, "count", 4, Common.ACKER_COMPONENT_ID, 2,
                Common.TOPOLOGY_MASTER_COMPONENT_ID, 1), total);

        // JStorm reads it back from the configuration and schedules with it.
        List<WorkerAssignment> stored = ConfigExtension.getUserDefineAssignment(conf);
        assertEquals(plan.size(), stored.size());

        Map<Integer, String> taskToComponent = new HashMap<>();
        int task = 1;
        for (String component : new TreeSet<>(List.of("source", "split", "count", Common.ACKER_COMPONENT_ID))) {
            for (int i = 0; i < total.get(component); i++) {
                taskToComponent.put(task++, component);
            }
        }
        int master = task;
        taskToComponent.put(master, Common.TOPOLOGY_MASTER_COMPONENT_ID);
        Set<ResourceWorkerSlot> scheduled = new DefaultTopologyScheduler()
                .assignTasks(context(topology, conf, taskToComponent, master, "host-a", "host-b"));

        assertEquals(4, scheduled.size());
        Map<String, Map<String, Integer>> planned = new HashMap<>();
        for (WorkerAssignment w : plan) {
            planned.put(w.getHostName() + ":" + w.getPort(), new TreeMap<>(w.getComponentToNum()));
        }
        Set<Integer> seen = new HashSet<>();
        for (ResourceWorkerSlot worker : scheduled) {
            Map<String, Integer> counts = new TreeMap<>();
            for (int t : worker.getTasks()) {
                counts.merge(taskToComponent.get(t), 1, Integer::sum);
                assertTrue(seen.add(t), "task " + t + " scheduled twice");
            }
            String at = worker.getHostname() + ":" + worker.getPort();
            assertEquals(planned.get(at), counts, "tasks JStorm put on " + at);
        }
        assertEquals(taskToComponent.keySet(), seen, "every task scheduled");

        // The check can fail: without the assignment JStorm lays the same tasks out its own way.
        Map<Object, Object> plain = conf(4, 2);
        Set<ResourceWorkerSlot> byDefault = new DefaultTopologyScheduler()
                .assignTasks(context(topology, plain, taskToComponent, master, "host-a", "host-b"));
        Map<String, Map<String, Integer>> defaultLayout = new HashMap<>();
        for (ResourceWorkerSlot worker : byDefault) {
            Map<String, Integer> counts = new TreeMap<>();
            worker.getTasks().forEach(t -> counts.merge(taskToComponent.get(t), 1, Integer::sum));
            defaultLayout.put(worker.getHostname() + ":" + worker.getPort(), counts);
        }
        assertTrue(!defaultLayout.equals(planned), "JStorm's default layout equals the plan, so the test shows nothing: "
                + defaultLayout);
    }

    @Test
    void fewerFreeSlotsThanRequestedPlacesOnWhatThereIs() {
        Map<Object, Object> conf = conf(6, 0);
        List<WorkerAssignment> plan = new JStormAssignmentPlanner(conf).plan(topology(), conf,
                List.of(new JStormAssignmentPlanner.Slot("host-a", 6800), new JStormAssignmentPlanner.Slot("host-a", 6801)));
        assertEquals(2, plan.size());
        assertEquals(13, plan.stream().mapToInt(w -> w.getComponentToNum().values().stream().mapToInt(Integer::intValue).sum()).sum(),
                "12 user tasks and the topology master");
    }

    @Test
    void badInputIsRefusedWithItsCause() {
        JStormAssignmentPlanner planner = new JStormAssignmentPlanner(conf(2, 0));
        IllegalArgumentException workers = assertThrows(IllegalArgumentException.class,
                () -> planner.plan(topology(), Map.of(Config.TOPOLOGY_WORKERS, "two"), slots("host-a")));
        assertTrue(workers.getMessage().contains(Config.TOPOLOGY_WORKERS), workers.getMessage());
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> planner.plan(topology(), conf(2, 0), List.of()));
        assertTrue(none.getMessage().contains("no free worker slot"), none.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new JStormAssignmentPlanner.Slot("host-a", 0));
        Map<Object, Object> badOption = conf(2, 0);
        badOption.put("jetstream.scheduler.balance-factor", 7.0);
        assertThrows(InvalidConfigurationException.class, () -> new JStormAssignmentPlanner(badOption));
    }

    /**
     * The helper reads the engine-free placement options only: a Storm scheduler key means nothing to
     * JStorm (it never rebalances, it has no traffic hook) and is refused like a misspelled one.
     */
    @Test
    void readsThePlacementOptionsAndRefusesTheStormSchedulersOwn() {
        Map<Object, Object> placement = conf(2, 0);
        placement.put("jetstream.scheduler.balance-factor", 0.3);
        placement.put("jetstream.scheduler.refine.attempts-per-executor", 0);
        assertEquals(2, new JStormAssignmentPlanner(placement).plan(topology(), placement, slots("host-a", "host-b")).size());

        Map<Object, Object> stormOnly = conf(2, 0);
        stormOnly.put("jetstream.scheduler.traffic.store", "zookeeper");
        InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class,
                () -> new JStormAssignmentPlanner(stormOnly));
        assertEquals("jetstream.scheduler.traffic.store", e.key());
    }

    /** What Nimbus hands its scheduler for a new topology on supervisors with four free ports each. */
    private static TopologyAssignContext context(StormTopology topology, Map<Object, Object> conf,
            Map<Integer, String> taskToComponent, int masterTask, String... hosts) {
        TopologyAssignContext context = new TopologyAssignContext();
        context.setTopologyId("jetstream-test-1-1");
        context.setAssignType(TopologyAssignContext.ASSIGN_TYPE_NEW);
        context.setRawTopology(topology);
        context.setStormConf(conf);
        Map<String, SupervisorInfo> cluster = new HashMap<>();
        for (String host : hosts) {
            SupervisorInfo supervisor = new SupervisorInfo(host, "supervisor-" + host, new HashSet<>(PORTS), new HashMap<>());
            supervisor.setAvailableWorkerPorts(new HashSet<>(PORTS));
            cluster.put("supervisor-" + host, supervisor);
        }
        context.setCluster(cluster);
        context.setAllTaskIds(new HashSet<>(taskToComponent.keySet()));
        context.setTaskToComponent(taskToComponent);
        context.setDeadTaskIds(new HashSet<>());
        context.setUnstoppedTaskIds(new HashSet<>());
        context.setUnstoppedWorkers(new HashSet<>());
        context.setTopologyMasterTaskId(masterTask);
        return context;
    }
}
