package io.jetstream.scheduler.storm;

import com.codahale.metrics.Meter;
import com.codahale.metrics.Timer;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.scheduler.placement.ComponentSpread;
import io.jetstream.scheduler.placement.LoadRisk;
import io.jetstream.scheduler.placement.NodeSlots;
import io.jetstream.scheduler.placement.Placement;
import io.jetstream.scheduler.placement.PlacementOptions;
import io.jetstream.scheduler.placement.PlacementPlanner;
import io.jetstream.scheduler.placement.RateScenarios;
import io.jetstream.scheduler.placement.RebalancePolicy;
import io.jetstream.scheduler.placement.RefinementObjective;
import io.jetstream.scheduler.placement.TaskGraph;
import io.jetstream.scheduler.traffic.TrafficSnapshot;
import io.jetstream.scheduler.traffic.TrafficStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.storm.cluster.DaemonType;
import org.apache.storm.metric.StormMetricsRegistry;
import org.apache.storm.scheduler.Cluster;
import org.apache.storm.scheduler.EvenScheduler;
import org.apache.storm.scheduler.ExecutorDetails;
import org.apache.storm.scheduler.IScheduler;
import org.apache.storm.scheduler.SchedulerAssignment;
import org.apache.storm.scheduler.Topologies;
import org.apache.storm.scheduler.TopologyDetails;
import org.apache.storm.scheduler.WorkerSlot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TurboStream's traffic-aware coarse-grained scheduler (§V) as Storm's {@code storm.scheduler}:
 * <pre>
 * storm.scheduler: "io.jetstream.scheduler.storm.JetStreamScheduler"
 * </pre>
 * For each topology that needs scheduling it takes the free slots Storm's even scheduler would take
 * (the requested number of workers, interleaved over the nodes with the most free slots), builds the
 * executor graph — from the topology's structure, or from recorded traffic in online mode — and places
 * it with {@link PlacementPlanner}: consolidation, then recursive bisection over the nodes and their
 * workers. A topology that lost workers (dead or blacklisted supervisors: Nimbus removes them from the
 * {@link Cluster}) keeps its live workers; the lost executors are placed on free slots the same way.
 * In online mode, running topologies are re-planned on their own slots from the traffic their
 * {@link TrafficRecordingHook} recorded and redeployed when {@link RebalancePolicy} says it pays.
 *
 * <p>Every decision is logged with the expected inter-node traffic and node balance, and summarised in
 * the topology's scheduler status (UI, {@code TopologyInfo.sched_status}).
 *
 * <p>Thread-safety: Nimbus calls {@code schedule} from one thread at a time.
 */
public class JetStreamScheduler implements IScheduler {
    private static final Logger LOG = LoggerFactory.getLogger(JetStreamScheduler.class);

    /** Prefix of every status message this scheduler sets. */
    public static final String STATUS_PREFIX = "JetStream:";

    private final LongSupplier clockMillis;
    private final Map<String, Long> placedAtMillis = new HashMap<>();
    private final Map<String, String> lastStatus = new HashMap<>();
    /** The status of the last placement or rebalance, which later online checks append to. */
    private final Map<String, String> lastAction = new HashMap<>();
    private JetStreamConfig config;
    private JetStreamSchedulerOptions.Mode mode;
    private JetStreamSchedulerOptions.NodeKey nodeKey;
    private PlacementPlanner planner;
    private RebalancePolicy rebalancePolicy;
    private TrafficStore trafficStore;
    private long staleAfterMillis;
    private long windowMillis;
    private Meter placements;
    private Meter rebalances;
    private Meter fallbacks;
    private Timer planning;
    private volatile double lastInterNodeFraction = Double.NaN;
    private volatile double lastNodeImbalance = Double.NaN;

    public JetStreamScheduler() {
        this(System::currentTimeMillis);
    }

    /** With an injected wall clock, for tests in virtual time. */
    public JetStreamScheduler(LongSupplier clockMillis) {
        this.clockMillis = clockMillis;
    }

    @Override
    public void prepare(Map<String, Object> conf, StormMetricsRegistry metricsRegistry) {
        config = JetStreamConfig.load(ConfigScope.STORM, conf, JetStreamSchedulerOptions.groups());
        mode = config.get(JetStreamSchedulerOptions.MODE);
        nodeKey = config.get(JetStreamSchedulerOptions.NODE);
        planner = PlacementOptions.planner(config);
        rebalancePolicy = PlacementOptions.rebalancePolicy(config);
        trafficStore = mode == JetStreamSchedulerOptions.Mode.ONLINE
                ? TrafficStores.open(config, conf, DaemonType.NIMBUS) : null;
        staleAfterMillis = config.get(JetStreamSchedulerOptions.TRAFFIC_STALE_MS);
        windowMillis = config.get(JetStreamSchedulerOptions.TRAFFIC_WINDOW_MS);
        if (mode == JetStreamSchedulerOptions.Mode.ONLINE && trafficStore == null) {
            LOG.warn("JetStream scheduler in online mode with the directory store and no {}: placing from structure "
                    + "only, never rebalancing", config.keyOf(JetStreamSchedulerOptions.TRAFFIC_DIR));
        } else if (trafficStore != null) {
            LOG.info("JetStream scheduler reads traffic records from {}", trafficStore.location());
        }
        StormMetricsRegistry registry = metricsRegistry == null ? new StormMetricsRegistry() : metricsRegistry;
        placements = registry.registerMeter("jetstream-scheduler:placements");
        rebalances = registry.registerMeter("jetstream-scheduler:rebalances");
        fallbacks = registry.registerMeter("jetstream-scheduler:even-scheduler-fallbacks");
        planning = registry.registerTimer("jetstream-scheduler:planning-time");
        registry.registerGauge("jetstream-scheduler:last-inter-node-traffic-fraction", () -> lastInterNodeFraction);
        registry.registerGauge("jetstream-scheduler:last-max-node-load", () -> lastNodeImbalance);
        LOG.info("JetStream scheduler prepared with {}", config);
    }

    @Override
    public void cleanup() {
        if (trafficStore != null) {
            trafficStore.close();
            trafficStore = null;
        }
    }

    @Override
    public void schedule(Topologies topologies, Cluster cluster) {
        long now = clockMillis.getAsLong();
        Set<String> handled = new HashSet<>();
        for (TopologyDetails topology : cluster.needsSchedulingTopologies()) {
            handled.add(topology.getId());
            try {
                SchedulerAssignment existing = cluster.getAssignmentById(topology.getId());
                if (existing == null || existing.getExecutorToSlot().isEmpty()) {
                    placeWhole(topology, cluster, initialGraph(topology, now), now);
                } else {
                    placeLostExecutors(topology, cluster, existing, now);
                }
            } catch (RuntimeException e) {
                fallBackToEvenScheduling(topology, cluster, "placing", e);
            }
        }
        if (mode == JetStreamSchedulerOptions.Mode.ONLINE && trafficStore != null) {
            Set<String> live = new HashSet<>();
            for (TopologyDetails topology : topologies.getTopologies()) {
                live.add(topology.getId());
                if (!handled.contains(topology.getId())) {
                    try {
                        considerRebalance(topology, cluster, now);
                    } catch (RuntimeException e) {
                        fallBackToEvenScheduling(topology, cluster, "the online check of", e);
                    }
                }
            }
            try {
                trafficStore.prune(live);
            } catch (RuntimeException e) {
                LOG.warn("Cannot prune the traffic records of removed topologies in {}: {}", trafficStore.location(),
                        e.toString());
            }
        }
        placedAtMillis.keySet().retainAll(idsOf(topologies));
        lastStatus.keySet().retainAll(idsOf(topologies));
        lastAction.keySet().retainAll(idsOf(topologies));
    }

    /**
     * Nimbus halts its JVM on any exception out of {@code schedule}: a failure to plan one topology is
     * logged with its cause, the topology keeps what it has and whatever it lacks is placed by Storm's
     * even scheduler, and the status says so. The other topologies are not affected.
     */
    private void fallBackToEvenScheduling(TopologyDetails topology, Cluster cluster, String what, RuntimeException e) {
        fallbacks.mark();
        LOG.error("Topology {}: JetStream scheduler failed {} it; Storm's even scheduler places what is unassigned",
                topology.getId(), what, e);
        String cause = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        if (cluster.needsScheduling(topology)) {
            dealEvenly(topology, cluster);
            setAction(cluster, topology.getId(), STATUS_PREFIX + " placed by Storm's even scheduler after " + what
                    + " it failed: " + cause);
        } else {
            setStatus(cluster, topology.getId(), lastAction.getOrDefault(topology.getId(), STATUS_PREFIX
                    + " placed before this Nimbus started") + " | online check failed, placement kept: " + cause);
        }
    }

    /**
     * Storm's even placement of one topology's unassigned executors, dealt round-robin over the free slots
     * its even scheduler would take ({@link EvenScheduler#scheduleTopologiesEvenly} would place every
     * topology that needs it, not just this one).
     */
    private static void dealEvenly(TopologyDetails topology, Cluster cluster) {
        List<ExecutorDetails> unassigned = new ArrayList<>(cluster.getUnassignedExecutors(topology));
        SchedulerAssignment existing = cluster.getAssignmentById(topology.getId());
        int assignedWorkers = existing == null ? 0 : existing.getSlots().size();
        List<WorkerSlot> free = EvenScheduler.sortSlots(cluster.getAvailableSlots());
        int workers = Math.min(Math.max(1, topology.getNumWorkers() - assignedWorkers), free.size());
        if (unassigned.isEmpty() || workers == 0) {
            return;
        }
        unassigned.sort(Comparator.comparingInt(ExecutorDetails::getStartTask));
        Map<WorkerSlot, List<ExecutorDetails>> dealt = new LinkedHashMap<>();
        for (int i = 0; i < unassigned.size(); i++) {
            dealt.computeIfAbsent(free.get(i % workers), k -> new ArrayList<>()).add(unassigned.get(i));
        }
        dealt.forEach((slot, executors) -> cluster.assign(slot, topology.getId(), executors));
    }

    private static Set<String> idsOf(Topologies topologies) {
        Set<String> ids = new HashSet<>();
        for (TopologyDetails t : topologies.getTopologies()) {
            ids.add(t.getId());
        }
        return ids;
    }

    private ExecutorGraph initialGraph(TopologyDetails topology, long now) {
        if (mode == JetStreamSchedulerOptions.Mode.ONLINE && trafficStore != null) {
            TrafficSnapshot traffic = trafficStore.read(topology.getId(), now, staleAfterMillis);
            if (!traffic.isEmpty()) {
                return ExecutorGraph.fromTraffic(topology.getExecutorToComponent(), traffic);
            }
        }
        return ExecutorGraph.fromStructure(topology);
    }

    /** Places every executor of a topology without assignment on free slots. */
    private void placeWhole(TopologyDetails topology, Cluster cluster, ExecutorGraph graph, long now) {
        List<WorkerSlot> free = cluster.getAvailableSlots();
        int workers = Math.min(topology.getNumWorkers(), free.size());
        if (workers == 0) {
            setStatus(cluster, topology.getId(), String.format(
                    "%s not enough free slots: %d of %d executors unassigned (%d workers requested, 0 free slots)",
                    STATUS_PREFIX, topology.getExecutors().size(), topology.getExecutors().size(),
                    topology.getNumWorkers()));
            return;
        }
        List<WorkerSlot> chosen = EvenScheduler.sortSlots(free).subList(0, workers);
        boolean routedByPlacement = graph.isStructural()
                && GroupingObjective.placementDecidesRouting(topology.getTopology());
        Planned planned = plan(graph, topology, chosen, cluster, routedByPlacement);
        assign(cluster, topology.getId(), graph, planned);
        placedAtMillis.put(topology.getId(), now);
        placements.mark();
        String requested = workers < topology.getNumWorkers()
                ? " (" + topology.getNumWorkers() + " workers requested; not enough free slots)" : "";
        String status = String.format("%s fully scheduled: %d executors on %d workers, %d nodes%s; %s",
                STATUS_PREFIX, topology.getExecutors().size(), planned.workersUsed(), planned.nodesUsed(), requested,
                planned.summary());
        LOG.info("Topology {}: placed {} executors from {} on {} nodes in {} ms: {}", topology.getId(),
                graph.size(), graph.source(), planned.nodesUsed(),
                planned.planMillis(), planned.summary());
        setAction(cluster, topology.getId(), status);
    }

    /**
     * A topology whose workers partly died: the live ones stay, the lost executors go onto free slots
     * (as many as the lost workers, at most the free ones), placed by the same algorithm.
     */
    private void placeLostExecutors(TopologyDetails topology, Cluster cluster, SchedulerAssignment existing, long now) {
        Set<ExecutorDetails> alive = existing.getExecutorToSlot().keySet();
        List<ExecutorDetails> lost = new ArrayList<>();
        for (ExecutorDetails e : topology.getExecutors()) {
            if (!alive.contains(e)) {
                lost.add(e);
            }
        }
        if (lost.isEmpty()) {
            return;
        }
        List<WorkerSlot> free = cluster.getAvailableSlots();
        int lostWorkers = Math.max(1, topology.getNumWorkers() - existing.getSlots().size());
        int workers = Math.min(lostWorkers, free.size());
        if (workers == 0) {
            setStatus(cluster, topology.getId(), String.format(
                    "%s not enough free slots: %d of %d executors unassigned after losing workers (0 free slots)",
                    STATUS_PREFIX, lost.size(), topology.getExecutors().size()));
            return;
        }
        ExecutorGraph whole = initialGraph(topology, now);
        int[] lostIndexes = lost.stream().mapToInt(whole::indexOf).sorted().toArray();
        ExecutorGraph sub = whole.induced(lostIndexes);
        List<WorkerSlot> chosen = EvenScheduler.sortSlots(free).subList(0, workers);
        Planned planned = plan(sub, topology, chosen, cluster, false);
        assign(cluster, topology.getId(), sub, planned);
        placements.mark();
        LOG.info("Topology {}: re-placed {} executors of lost workers on {} free slots: {}", topology.getId(),
                lost.size(), workers, planned.summary());
        setAction(cluster, topology.getId(), String.format(
                "%s re-placed %d executors of lost workers on %d free slots, %d live workers kept; %s",
                STATUS_PREFIX, lost.size(), planned.workersUsed(), existing.getSlots().size(), planned.summary()));
    }

    /**
     * The online check of a fully assigned topology: once the rebalance period has passed and every task
     * has recorded at least one window under the current placement, the topology is re-planned on its own
     * slots from the measured traffic and CPU time, and redeployed when {@link RebalancePolicy} says so.
     * Until then nothing is planned (a plan costs up to the refinement's time budget).
     */
    private void considerRebalance(TopologyDetails topology, Cluster cluster, long now) {
        SchedulerAssignment existing = cluster.getAssignmentById(topology.getId());
        if (existing == null || !existing.getExecutorToSlot().keySet().containsAll(topology.getExecutors())) {
            return;
        }
        TrafficSnapshot traffic = trafficStore.read(topology.getId(), now, staleAfterMillis);
        if (traffic.isEmpty()) {
            return;
        }
        long placedAt = placedAtMillis.getOrDefault(topology.getId(), now - topology.getUpTime() * 1000L);
        RebalancePolicy.Decision early = rebalancePolicy.tooEarly(now, placedAt);
        if (early != null) {
            keep(cluster, topology.getId(), early.reason());
            return;
        }
        // Enough recorded: a record from every task, its newest window ended a full window after the
        // placement (so measured under it, not under the one before a redeploy).
        TrafficSnapshot measured = traffic.endingAtOrAfter(placedAt + windowMillis);
        List<Integer> taskIds = new ArrayList<>();
        for (ExecutorDetails e : topology.getExecutors()) {
            for (int t = e.getStartTask(); t <= e.getEndTask(); t++) {
                taskIds.add(t);
            }
        }
        int recorded = measured.countRecorded(taskIds);
        if (recorded < taskIds.size()) {
            keep(cluster, topology.getId(), String.format("waiting for traffic measured under this placement: %d of "
                    + "%d tasks recorded a window ending %d s after it", recorded, taskIds.size(), windowMillis / 1000));
            return;
        }
        ExecutorGraph graph = ExecutorGraph.fromTraffic(topology.getExecutorToComponent(), measured);
        List<WorkerSlot> slots = orderedSlots(existing);
        SlotsByNode bySlots = nodeSlots(cluster, slots);
        Placement current = currentPlacement(graph, existing, bySlots);
        RebalancePolicy.Decision decision;
        Planned planned;
        if (GroupingObjective.placementDecidesRouting(topology.getTopology())) {
            // The measured pairs say where Storm routed local-or-shuffle tuples under this placement; a new
            // one routes them anew: replay Storm's rule with the measured rates.
            GroupingObjective routing = GroupingObjective.of(topology.getTopology(), topology.getExecutorToComponent(),
                    graph, bySlots.nodeSlots(), planner.workerWeight(), planner.loadBound());
            routing.measure(MeasuredRates.of(measured, topology.getExecutorToComponent()));
            routing.reset(current.workerOfTasks());
            double currentInterNode = routing.interNodeTraffic();
            double currentImbalance = routing.maxRelativeNodeLoad();
            planned = planMeasuredRouting(graph, routing, current, bySlots);
            decision = rebalancePolicy.decide(now, placedAt, currentInterNode, routing.interNodeTraffic(),
                    currentImbalance, routing.maxRelativeNodeLoad());
        } else {
            planned = plan(graph, topology, slots, cluster, false);
            decision = rebalancePolicy.decide(now, placedAt,
                    graph.graph().cutTraffic(current.nodeOfTasks()),
                    graph.graph().cutTraffic(planned.placement().nodeOfTasks()),
                    current.maxNodeImbalance(graph.graph()), planned.placement().maxNodeImbalance(graph.graph()));
        }
        LOG.debug("Topology {}: online check from {} task records: {}", topology.getId(), measured.tasks().size(),
                decision.reason());
        if (!decision.rebalance()) {
            keep(cluster, topology.getId(), decision.reason());
            return;
        }
        cluster.freeSlots(slots);
        assign(cluster, topology.getId(), graph, planned);
        placedAtMillis.put(topology.getId(), now);
        rebalances.mark();
        LOG.info("Topology {}: rebalanced from measured traffic: {}", topology.getId(), decision.reason());
        setAction(cluster, topology.getId(), STATUS_PREFIX + " rebalanced from measured traffic: " + decision.reason()
                + "; " + planned.summary());
    }

    private void keep(Cluster cluster, String topologyId, String reason) {
        String action = lastAction.getOrDefault(topologyId, STATUS_PREFIX + " placed before this Nimbus started");
        setStatus(cluster, topologyId, action + " | online check: placement kept: " + reason);
    }

    /** The topology's current assignment as a placement on {@code slots} (its slots grouped by node). */
    private static Placement currentPlacement(ExecutorGraph graph, SchedulerAssignment existing, SlotsByNode slots) {
        Map<WorkerSlot, Integer> workerIndex = new HashMap<>();
        for (int w = 0; w < slots.workerSlots().size(); w++) {
            workerIndex.put(slots.workerSlots().get(w), w);
        }
        int[] workerOf = new int[graph.size()];
        for (int i = 0; i < graph.size(); i++) {
            workerOf[i] = workerIndex.get(existing.getExecutorToSlot().get(graph.executor(i)));
        }
        return new Placement(slots.nodeSlots(), workerOf);
    }

    private static List<WorkerSlot> orderedSlots(SchedulerAssignment assignment) {
        List<WorkerSlot> slots = new ArrayList<>(assignment.getSlots());
        slots.sort((a, b) -> a.getNodeId().equals(b.getNodeId())
                ? Integer.compare(a.getPort(), b.getPort()) : a.getNodeId().compareTo(b.getNodeId()));
        return slots;
    }

    private String nodeOf(Cluster cluster, WorkerSlot slot) {
        if (nodeKey == JetStreamSchedulerOptions.NodeKey.SUPERVISOR) {
            return slot.getNodeId();
        }
        String host = cluster.getHost(slot.getNodeId());
        return host == null ? slot.getNodeId() : host;
    }

    /**
     * A plan over concrete slots: worker {@code i} of {@link NodeSlots} is {@code workerSlots.get(i)};
     * with the expected measures of the model it was made for.
     */
    private record Planned(Placement placement, List<WorkerSlot> workerSlots, long planMillis,
                           double interNodeFraction, double interWorkerFraction, double maxNodeLoad, String model) {
        int workersUsed() {
            return (int) java.util.Arrays.stream(placement.workerOfTasks()).distinct().count();
        }

        int nodesUsed() {
            return placement.nodesUsed();
        }

        String summary() {
            return String.format("expected inter-node traffic %.1f %%, inter-worker %.1f %%, max node load %.2f x share%s",
                    100 * interNodeFraction, 100 * interWorkerFraction, maxNodeLoad, model);
        }
    }

    /** Slots grouped by node: worker {@code i} of {@code nodeSlots} is {@code workerSlots.get(i)}. */
    private record SlotsByNode(NodeSlots nodeSlots, List<WorkerSlot> workerSlots) {}

    private SlotsByNode nodeSlots(Cluster cluster, List<WorkerSlot> slots) {
        Map<String, List<WorkerSlot>> byNode = new LinkedHashMap<>();
        for (WorkerSlot slot : slots) {
            byNode.computeIfAbsent(nodeOf(cluster, slot), k -> new ArrayList<>()).add(slot);
        }
        List<NodeSlots.Node> nodes = new ArrayList<>();
        List<WorkerSlot> workerSlots = new ArrayList<>();
        for (Map.Entry<String, List<WorkerSlot>> e : byNode.entrySet()) {
            nodes.add(NodeSlots.Node.ofWorkers(e.getKey(), e.getValue().size()));
            workerSlots.addAll(e.getValue());
        }
        return new SlotsByNode(new NodeSlots(nodes), workerSlots);
    }

    /**
     * Plans {@code graph}, executors of {@code topology}, on {@code slots}: from structure (rates unknown
     * or trusted, {@link PlacementPlanner#planFromStructure}) or from measured traffic. When
     * {@code routedByPlacement} (a topology placed from structure with local-or-shuffle streams), the plan
     * is refined for where Storm really routes those tuples ({@link GroupingObjective}): the task-pair graph
     * cannot say "any local target".
     */
    private Planned plan(ExecutorGraph graph, TopologyDetails topology, List<WorkerSlot> slots, Cluster cluster,
                         boolean routedByPlacement) {
        SlotsByNode bySlots = nodeSlots(cluster, slots);
        NodeSlots nodeSlots = bySlots.nodeSlots();
        List<WorkerSlot> workerSlots = bySlots.workerSlots();
        TaskGraph tasks = graph.graph();
        long start = System.nanoTime();
        Placement placement;
        double interNode;
        double interWorker;
        double maxLoad;
        try (Timer.Context ignored = planning.time()) {
            RateScenarios scenarios = graph.isStructural()
                    ? planner.rateScenarios(ExecutorGraph.structureOf(topology.getTopology()), graph.componentNames(),
                            ExecutorGraph.tasksByComponent(topology.getExecutorToComponent()))
                    : null;
            if (!routedByPlacement) {
                placement = graph.isStructural()
                        ? planner.planFromStructure(tasks, nodeSlots, graph.componentOf(), scenarios)
                        : planner.plan(tasks, nodeSlots);
                interNode = placement.interNodeTrafficFraction(tasks);
                interWorker = placement.interWorkerTrafficFraction(tasks);
                maxLoad = placement.maxNodeImbalance(tasks);
            } else {
                GroupingObjective routing = placeForRouting(topology, graph, nodeSlots, scenarios);
                placement = new Placement(nodeSlots, routing.workerOfExecutors());
                interNode = routing.interNodeFraction();
                interWorker = routing.interWorkerFraction();
                maxLoad = routing.maxRelativeNodeLoad();
            }
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        lastInterNodeFraction = interNode;
        lastNodeImbalance = maxLoad;
        return new Planned(placement, workerSlots, millis, interNode, interWorker, maxLoad,
                routedByPlacement ? " (local-or-shuffle as Storm routes it)" : "");
    }

    /**
     * A topology placed from structure whose local-or-shuffle streams Storm routes by the placement: placed
     * for where Storm really sends the tuples ({@link GroupingObjective}), since the task-pair graph cannot
     * say "any local target". Two starts are refined and the better kept; the result is the objective,
     * reset to the placement kept.
     * The three passes (the plan's and the two refinements) share the time budget of one placement.
     * <ul>
     *   <li>Rates trusted: the structural plan, and a deal of the components over the workers (as Storm's
     *       even scheduler makes): the plan says nothing about which components should share a worker, and
     *       on small topologies the search from it cannot always reach such pairings one move at a time.</li>
     *   <li>Rates unknown: the plan from structure ({@link PlacementPlanner#planFromStructure}: within the
     *       {@link ComponentSpread}, its hottest node expected no hotter than the deal's), and the deal; both
     *       refined within the spread and under that bound as Storm routes the tuples.</li>
     * </ul>
     */
    private GroupingObjective placeForRouting(TopologyDetails topology, ExecutorGraph graph, NodeSlots nodeSlots,
                                              RateScenarios scenarios) {
        TaskGraph tasks = graph.graph();
        ComponentSpread spread = ComponentSpread.of(nodeSlots, graph.componentOf());
        Placement deal = spread.dealt();
        GroupingObjective routing = GroupingObjective.of(topology.getTopology(), topology.getExecutorToComponent(),
                graph, nodeSlots, planner.workerWeight(), planner.loadBound());
        // Three passes share the time budget of one placement.
        Placement first = planner.planFromStructure(tasks, nodeSlots, graph.componentOf(), scenarios, 1.0 / 3);
        if (planner.structuralRates() == PlacementPlanner.StructuralRates.UNKNOWN) {
            routing.boundRisk(new LoadRisk(scenarios, nodeSlots), graph.componentOf(), deal.workerOfTasks());
        }
        RefinementObjective objective = planner.objectiveFromStructure(routing, tasks, spread);
        Placement fromFirst = planner.refine(first, objective, tasks, 1.0 / 3);
        objective.reset(fromFirst.workerOfTasks());
        double firstValue = objective.value();
        Placement fromDeal = planner.refine(deal, objective, tasks, 1.0 / 3);
        objective.reset(fromDeal.workerOfTasks());
        if (objective.value() >= firstValue) {
            objective.reset(fromFirst.workerOfTasks());
        }
        return routing;
    }

    /**
     * A measured topology whose local-or-shuffle streams Storm routes by the placement: the plan from the
     * measured pairs and the current placement, both refined as Storm would route the measured rates
     * under them ({@code routing}, already measured), the better kept. The passes share the time budget;
     * {@code routing} is left reset to the plan kept.
     */
    private Planned planMeasuredRouting(ExecutorGraph graph, GroupingObjective routing, Placement current,
                                        SlotsByNode slots) {
        TaskGraph tasks = graph.graph();
        long start = System.nanoTime();
        Placement best;
        try (Timer.Context ignored = planning.time()) {
            Placement fromPairs = planner.refine(planner.plan(tasks, slots.nodeSlots(), 1.0 / 3), routing, tasks, 1.0 / 3);
            routing.reset(fromPairs.workerOfTasks());
            double pairsValue = routing.value();
            Placement fromCurrent = planner.refine(current, routing, tasks, 1.0 / 3);
            routing.reset(fromCurrent.workerOfTasks());
            best = fromCurrent;
            if (pairsValue < routing.value()) {
                best = fromPairs;
                routing.reset(fromPairs.workerOfTasks());
            }
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        lastInterNodeFraction = routing.interNodeFraction();
        lastNodeImbalance = routing.maxRelativeNodeLoad();
        return new Planned(best, slots.workerSlots(), millis, routing.interNodeFraction(), routing.interWorkerFraction(),
                routing.maxRelativeNodeLoad(), " (local-or-shuffle as Storm routes it)");
    }

    private static void assign(Cluster cluster, String topologyId, ExecutorGraph graph, Planned planned) {
        Map<WorkerSlot, List<ExecutorDetails>> bySlot = new LinkedHashMap<>();
        for (int i = 0; i < graph.size(); i++) {
            WorkerSlot slot = planned.workerSlots().get(planned.placement().workerOf(i));
            bySlot.computeIfAbsent(slot, k -> new ArrayList<>()).add(graph.executor(i));
        }
        bySlot.forEach((slot, executors) -> cluster.assign(slot, topologyId, executors));
    }

    private void setAction(Cluster cluster, String topologyId, String status) {
        lastAction.put(topologyId, status);
        setStatus(cluster, topologyId, status);
    }

    private void setStatus(Cluster cluster, String topologyId, String status) {
        if (!status.equals(lastStatus.put(topologyId, status))) {
            cluster.setStatus(topologyId, status);
        }
    }

    @Override
    public Map<String, Map<String, Double>> config() {
        return Map.of();
    }
}
