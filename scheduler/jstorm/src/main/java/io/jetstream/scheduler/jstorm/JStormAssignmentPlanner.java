package io.jetstream.scheduler.jstorm;

import backtype.storm.Config;
import backtype.storm.generated.Bolt;
import backtype.storm.generated.ComponentCommon;
import backtype.storm.generated.GlobalStreamId;
import backtype.storm.generated.Grouping;
import backtype.storm.generated.Nimbus;
import backtype.storm.generated.SpoutSpec;
import backtype.storm.generated.StormTopology;
import backtype.storm.generated.SupervisorSummary;
import backtype.storm.generated.WorkerSummary;
import backtype.storm.utils.Utils;
import com.alibaba.jstorm.client.ConfigExtension;
import com.alibaba.jstorm.client.WorkerAssignment;
import com.alibaba.jstorm.cluster.Common;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.scheduler.placement.NodeSlots;
import io.jetstream.scheduler.placement.Placement;
import io.jetstream.scheduler.placement.PlacementOptions;
import io.jetstream.scheduler.placement.PlacementPlanner;
import io.jetstream.scheduler.placement.TaskGraph;
import io.jetstream.scheduler.placement.TopologyStructure;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import shade.storm.org.apache.thrift.TException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TurboStream's offline placement (§V) for JStorm 2.2.1, handed to JStorm as a user-defined
 * assignment. JStorm's Nimbus hard-codes its {@code DefaultTopologyScheduler}; the one lever is a
 * list of {@link WorkerAssignment}s in the topology's configuration
 * ({@link ConfigExtension#setUserDefineAssignment}), each naming a host, a port and how many tasks
 * of each component that worker runs. Tasks of one component are interchangeable for a placement
 * from structure (every grouping the structure model knows treats them alike), so counts per
 * component carry the whole placement.
 *
 * <p>Usage, at submission: {@code new JStormAssignmentPlanner(conf).assign(topology, conf, nimbus)}
 * (the free slots asked of Nimbus) or {@code assign(topology, conf, freeSlots)}, then submit with
 * that {@code conf}. Options are the engine-free {@link PlacementOptions} ({@code jetstream.scheduler.*}:
 * balance factor, consolidation threshold, refinement), read and validated from {@code conf}; a Storm-only
 * scheduler key there (its mode, traffic store) is refused as unknown, since JStorm has no use for it.
 *
 * <p>Rules of JStorm's {@code WorkerScheduler} (2.2.1) that shape the list:
 * <ul>
 *   <li>A list of exactly {@code topology.workers} workers is honoured only if it covers every task
 *       to assign, the system ones included; otherwise JStorm drops it without a word. So the plan
 *       also places the {@value Common#ACKER_COMPONENT_ID} tasks ({@code topology.acker.executors})
 *       and the one {@value Common#TOPOLOGY_MASTER_COMPONENT_ID} task, each on the worker with the
 *       fewest tasks (they exchange little next to the user streams).
 *   <li>A worker goes to a supervisor whose host name matches, on its port when that port is free,
 *       else on another free port of that host.
 *   <li>A user-defined assignment that fills every free slot of the cluster fails the submission
 *       ({@code WorkerScheduler.putWorkerToSupervisor} divides by the supervisors left with a free
 *       slot: "/ by zero"); the planner warns when it takes every slot it was given.
 *   <li>The assignment is read at submission and never revisited: there is no online mode for JStorm.
 * </ul>
 *
 * <p>Thread-safe if the planner is (it is: {@link PlacementPlanner} keeps no state between plans).
 */
public final class JStormAssignmentPlanner {
    private static final Logger LOG = LoggerFactory.getLogger(JStormAssignmentPlanner.class);

    /** One free worker of a supervisor: its host name (as the supervisor reports it) and port. */
    public record Slot(String host, int port) {
        public Slot {
            Objects.requireNonNull(host, "host");
            if (host.isBlank() || port < 1 || port > 65_535) {
                throw new IllegalArgumentException("invalid worker slot " + host + ":" + port);
            }
        }
    }

    private final PlacementPlanner planner;

    public JStormAssignmentPlanner(PlacementPlanner planner) {
        this.planner = Objects.requireNonNull(planner, "planner");
    }

    /** A planner with the {@code jetstream.scheduler.*} placement options of {@code conf} (validated). */
    @SuppressWarnings("unchecked")
    public JStormAssignmentPlanner(Map<?, ?> conf) {
        this(PlacementOptions.planner(
                JetStreamConfig.load(ConfigScope.JSTORM, (Map<String, ?>) conf, PlacementOptions.GROUP)));
    }

    /**
     * The cluster's free worker slots as Nimbus knows them: each supervisor's configured
     * {@code supervisor.slots.ports} less the ports its workers use, under the host name the
     * supervisor reports.
     *
     * @throws TException when Nimbus cannot be asked
     * @throws IllegalStateException when a supervisor's configuration names no slot ports
     */
    public static List<Slot> freeSlots(Nimbus.Iface nimbus) throws TException {
        List<Slot> free = new ArrayList<>();
        for (SupervisorSummary supervisor : nimbus.getClusterInfo().get_supervisors()) {
            Object conf = Utils.from_json(nimbus.getSupervisorConf(supervisor.get_supervisorId()));
            Object ports = conf instanceof Map<?, ?> map ? map.get(Config.SUPERVISOR_SLOTS_PORTS) : null;
            if (!(ports instanceof List<?> configured) || configured.isEmpty()) {
                throw new IllegalStateException("supervisor " + supervisor.get_host() + " (" + supervisor.get_supervisorId()
                        + ") reports no " + Config.SUPERVISOR_SLOTS_PORTS + ": " + ports);
            }
            Set<Integer> used = new HashSet<>();
            List<WorkerSummary> workers = nimbus.getSupervisorWorkersById(supervisor.get_supervisorId()).get_workers();
            if (workers != null) {
                workers.forEach(w -> used.add(w.get_port()));
            }
            for (Object port : configured) {
                int p = ((Number) port).intValue();
                if (!used.contains(p)) {
                    free.add(new Slot(supervisor.get_host(), p));
                }
            }
        }
        return free;
    }

    /**
     * {@link #assign} on the cluster's {@link #freeSlots free slots}, asked of Nimbus. Refuses a
     * topology that would take every free slot: JStorm 2.2.1 fails such a submission with
     * "/ by zero", or with "there's no enough worker" when it asks for more.
     *
     * @throws IllegalArgumentException when {@code topology.workers} is not below the free slots
     */
    @SuppressWarnings("rawtypes")
    public List<WorkerAssignment> assign(StormTopology topology, Map conf, Nimbus.Iface nimbus) throws TException {
        List<Slot> free = freeSlots(nimbus);
        int requested = positiveInt(conf.get(Config.TOPOLOGY_WORKERS), 1, Config.TOPOLOGY_WORKERS);
        if (requested >= free.size()) {
            throw new IllegalArgumentException(Config.TOPOLOGY_WORKERS + " = " + requested + " but the cluster has " + free.size()
                    + " free worker slots: JStorm 2.2.1 places a user-defined assignment only while at least one slot stays "
                    + "free (its WorkerScheduler divides by the supervisors left with a free slot); request at most "
                    + (free.size() - 1) + " workers or add supervisors");
        }
        return assign(topology, conf, free);
    }

    /** {@link #plan}, stored in {@code conf} as JStorm's user-defined assignment. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public List<WorkerAssignment> assign(StormTopology topology, Map conf, List<Slot> freeSlots) {
        List<WorkerAssignment> assignments = plan(topology, conf, freeSlots);
        ConfigExtension.setUserDefineAssignment(conf, assignments);
        return assignments;
    }

    /**
     * The assignment for {@code topology} on {@code topology.workers} of the free slots (or all of
     * them if fewer), taken one per host in turn so that the topology spreads over as many hosts as
     * JStorm's own scheduler would use.
     *
     * @param topology the user topology ({@code TopologyBuilder.createTopology()}, no system components)
     * @param conf the topology's configuration: {@code topology.workers}, {@code topology.acker.executors}
     * @param freeSlots the cluster's free workers
     * @throws IllegalArgumentException when there is no free slot or the topology has no tasks
     */
    public List<WorkerAssignment> plan(StormTopology topology, Map<?, ?> conf, List<Slot> freeSlots) {
        int requested = positiveInt(conf.get(Config.TOPOLOGY_WORKERS), 1, Config.TOPOLOGY_WORKERS);
        int ackers = positiveInt(conf.get(Config.TOPOLOGY_ACKER_EXECUTORS), 0, Config.TOPOLOGY_ACKER_EXECUTORS);
        List<Slot> slots = interleaveHosts(freeSlots, requested);
        if (slots.isEmpty()) {
            throw new IllegalArgumentException("no free worker slot to place the topology on");
        }

        Map<String, int[]> tasksOf = new LinkedHashMap<>();
        List<String> componentOfTask = new ArrayList<>();
        TopologyStructure structure = structureOf(topology, tasksOf, componentOfTask);
        int tasks = componentOfTask.size();
        if (tasks == 0) {
            throw new IllegalArgumentException("the topology has no tasks");
        }
        int[] unitOfTask = new int[tasks];
        for (int t = 0; t < tasks; t++) {
            unitOfTask[t] = t;
        }
        TaskGraph graph = structure.taskGraph(tasksOf, unitOfTask, tasks);

        List<String> hosts = new ArrayList<>();
        Map<String, List<Slot>> slotsByHost = new LinkedHashMap<>();
        for (Slot s : slots) {
            slotsByHost.computeIfAbsent(s.host(), h -> {
                hosts.add(h);
                return new ArrayList<>();
            }).add(s);
        }
        List<NodeSlots.Node> nodes = new ArrayList<>();
        List<Slot> workerSlots = new ArrayList<>(); // in NodeSlots' global worker order
        for (String host : hosts) {
            nodes.add(NodeSlots.Node.ofWorkers(host, slotsByHost.get(host).size()));
            workerSlots.addAll(slotsByHost.get(host));
        }
        List<String> components = new ArrayList<>(tasksOf.keySet());
        int[] componentOf = new int[tasks];
        for (int t = 0; t < tasks; t++) {
            componentOf[t] = components.indexOf(componentOfTask.get(t));
        }
        Placement placement = planner.planFromStructure(graph, new NodeSlots(nodes), componentOf,
                planner.rateScenarios(structure, components, tasksOf));

        List<Map<String, Integer>> countsByWorker = new ArrayList<>();
        int[] tasksOnWorker = new int[workerSlots.size()];
        for (int w = 0; w < workerSlots.size(); w++) {
            countsByWorker.add(new LinkedHashMap<>());
        }
        for (int t = 0; t < tasks; t++) {
            int w = placement.workerOf(t);
            countsByWorker.get(w).merge(componentOfTask.get(t), 1, Integer::sum);
            tasksOnWorker[w]++;
        }
        for (int a = 0; a < ackers; a++) {
            addToEmptiest(Common.ACKER_COMPONENT_ID, countsByWorker, tasksOnWorker);
        }
        addToEmptiest(Common.TOPOLOGY_MASTER_COMPONENT_ID, countsByWorker, tasksOnWorker);

        if (slots.size() == freeSlots.size()) {
            LOG.warn("The JetStream placement takes every free slot it was given ({}). If these are all of the cluster's "
                    + "free slots, JStorm 2.2.1's Nimbus fails the submission with \"/ by zero\" (its WorkerScheduler divides "
                    + "by the supervisors left with a free slot after placing the user-defined workers): leave one slot free "
                    + "or request fewer workers", slots.size());
        }
        List<WorkerAssignment> assignments = new ArrayList<>();
        for (int w = 0; w < workerSlots.size(); w++) {
            WorkerAssignment worker = new WorkerAssignment(null, workerSlots.get(w).port());
            worker.setHostName(workerSlots.get(w).host());
            countsByWorker.get(w).forEach(worker::addComponent);
            assignments.add(worker);
        }
        LOG.info("JetStream placement for JStorm: {} tasks on {} workers of {} hosts{}; expected inter-host traffic {} %, "
                        + "inter-worker {} %, max host load {} x share",
                tasks, workerSlots.size(), hosts.size(),
                slots.size() < requested ? " (" + requested + " requested)" : "",
                String.format("%.1f", 100 * placement.interNodeTrafficFraction(graph)),
                String.format("%.1f", 100 * placement.interWorkerTrafficFraction(graph)),
                String.format("%.2f", placement.maxNodeImbalance(graph)));
        return assignments;
    }

    /** JStorm's components as a structure, numbering tasks component by component (spouts first). */
    static TopologyStructure structureOf(StormTopology topology, Map<String, int[]> tasksOf, List<String> componentOfTask) {
        TopologyStructure.Builder builder = TopologyStructure.builder();
        Map<String, ComponentCommon> commons = new LinkedHashMap<>();
        for (Map.Entry<String, SpoutSpec> spout : topology.get_spouts().entrySet()) {
            builder.spout(spout.getKey());
            commons.put(spout.getKey(), spout.getValue().get_common());
        }
        for (Map.Entry<String, Bolt> bolt : topology.get_bolts().entrySet()) {
            builder.bolt(bolt.getKey());
            commons.put(bolt.getKey(), bolt.getValue().get_common());
            for (Map.Entry<GlobalStreamId, Grouping> input : bolt.getValue().get_common().get_inputs().entrySet()) {
                builder.stream(input.getKey().get_componentId(), bolt.getKey(), groupingOf(input.getValue()));
            }
        }
        for (Map.Entry<String, ComponentCommon> c : commons.entrySet()) {
            // JStorm runs one task per unit of parallelism (it has no executors grouping tasks).
            int parallelism = c.getValue().is_set_parallelism_hint() ? c.getValue().get_parallelism_hint() : 1;
            int[] ids = new int[Math.max(0, parallelism)];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = componentOfTask.size();
                componentOfTask.add(c.getKey());
            }
            tasksOf.put(c.getKey(), ids);
        }
        return builder.build();
    }

    private static TopologyStructure.Grouping groupingOf(Grouping grouping) {
        return TopologyStructure.Grouping.of(grouping.is_set_all(),
                grouping.is_set_fields() && grouping.get_fields().isEmpty(),
                grouping.is_set_local_or_shuffle() || grouping.is_set_localFirst());
    }

    /** Up to {@code count} slots, one per host in turn (hosts in order of first appearance). */
    static List<Slot> interleaveHosts(List<Slot> freeSlots, int count) {
        Map<String, List<Slot>> byHost = new LinkedHashMap<>();
        for (Slot s : freeSlots) {
            byHost.computeIfAbsent(s.host(), h -> new ArrayList<>()).add(s);
        }
        List<Slot> chosen = new ArrayList<>();
        Map<String, Integer> next = new HashMap<>();
        while (chosen.size() < count && chosen.size() < freeSlots.size()) {
            for (Map.Entry<String, List<Slot>> host : byHost.entrySet()) {
                int i = next.getOrDefault(host.getKey(), 0);
                if (i < host.getValue().size() && chosen.size() < count) {
                    chosen.add(host.getValue().get(i));
                    next.put(host.getKey(), i + 1);
                }
            }
        }
        return chosen;
    }

    private static void addToEmptiest(String component, List<Map<String, Integer>> countsByWorker, int[] tasksOnWorker) {
        int emptiest = 0;
        for (int w = 1; w < tasksOnWorker.length; w++) {
            if (tasksOnWorker[w] < tasksOnWorker[emptiest]) {
                emptiest = w;
            }
        }
        countsByWorker.get(emptiest).merge(component, 1, Integer::sum);
        tasksOnWorker[emptiest]++;
    }

    private static int positiveInt(Object value, int fallback, String key) {
        if (value == null) {
            return fallback;
        }
        int n;
        if (value instanceof Number number) {
            n = number.intValue();
        } else {
            try {
                n = Integer.parseInt(value.toString().trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key + ": expected an integer, got '" + value + "'", e);
            }
        }
        if (n < 0) {
            throw new IllegalArgumentException(key + ": expected at least 0, got " + n);
        }
        return n == 0 && fallback > 0 ? fallback : n;
    }
}
