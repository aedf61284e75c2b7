package io.jetstream.scheduler.storm;

import io.jetstream.scheduler.placement.LoadRisk;
import io.jetstream.scheduler.placement.NodeSlots;
import io.jetstream.scheduler.placement.RefinementObjective;
import io.jetstream.scheduler.placement.TopologyStructure;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.generated.Bolt;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.scheduler.ExecutorDetails;

/**
 * The traffic a placement carries as Storm's groupings deliver it, for topologies where the placement
 * itself decides where tuples go: {@code localOrShuffle} sends a task's output to the target tasks in
 * its own worker when there are any, to all target tasks otherwise (Storm 2.8's {@code GrouperFactory}).
 * No task-pair graph can express "any local target", so {@link ExecutorGraph#fromStructure} pairs each
 * source with its share of the targets; this objective evaluates the real rule and lets
 * {@link io.jetstream.scheduler.placement.KWayRefinement} optimise it.
 *
 * <p>The rates follow the structural model of {@link ExecutorGraph} (a spout task emits one unit, a
 * bolt task emits what it receives), or what the traffic records measured ({@link #measure}); either way
 * they depend on the placement: a bolt task fed locally receives what its worker's source tasks emit, so
 * every evaluation propagates the rates through the components in dependency order. Shuffle, fields,
 * partial-key, custom and direct groupings spread a task's output evenly over the target tasks (measured:
 * by the shares the target tasks received), {@code all} copies it to every one, {@code global} sends it
 * to the lowest. An executor's load is the tuples its tasks receive (emit, for a spout), times the
 * component's measured CPU per tuple when measured. One that receives nothing whatever the placement
 * ({@code __acker} or {@code __system} outside the user topology, a task {@code global} never picks)
 * carries the smallest executor load and no traffic; a task that local-or-shuffle starves under one
 * placement carries nothing there. The value is inter-node traffic + {@code workerWeight} × inter-worker
 * traffic + a penalty for every node whose load exceeds {@code loadBound} times its share of capacity;
 * with the rates unknown ({@link #boundRisk}) also the cost of an expected hottest node above the
 * reference's, and of a keyed component's output kept more worker-local than there.
 *
 * <p>An evaluation is O(tasks + streams × (source tasks + workers)), plus O(scenarios × nodes ×
 * components) with a risk bound; not thread-safe.
 */
final class GroupingObjective implements RefinementObjective {
    private enum Kind { SPREAD, ALL, GLOBAL, LOCAL_OR_SHUFFLE }

    private final NodeSlots slots;
    private final double workerWeight;
    private final double loadBound;
    private final int executors;
    private final int workers;
    /**
     * Per executor: whether it receives nothing whatever the placement (an executor outside the user
     * topology, such as {@code __acker}; a task {@code global} never picks). It costs the smallest
     * executor load, as {@link ExecutorGraph} weighs it: it still runs a thread.
     */
    private final boolean[] structurallyIdle;
    /** Per task index: its executor; task indexes are grouped by component. */
    private final int[] executorOfTask;
    /** The tasks of component c are the task indexes [componentStart[c], componentStart[c + 1]). */
    private final int[] componentStart;
    /** Bolt components in dependency order, with their input streams. */
    private final int[] boltOrder;
    private final int[][] inputSource;
    private final Kind[][] inputKind;
    private final boolean[] isSpout;
    /**
     * Per component: whether some input reaches its tasks by key (fields with keys, custom such as partial key,
     * direct), so that a hot key can load one of its tasks far above the others.
     */
    private final boolean[] keyed;

    /** Per task index: its Storm task id. */
    private final int[] taskId;
    private final List<String> componentNames;

    // The rates: the structure's model (a spout task emits 1, selectivity 1, load = tuples received), or
    // what the traffic records measured (see measure).
    private final double[] spoutEmission;          // per task; 0 for a bolt's
    private final double[] selectivity;            // per component
    private final double[] cost;                   // per component: load per tuple received (emitted, spout)
    private final double[][] streamFactor;         // [bolt][input]: share of the source's output on the stream
    private final double[][][] targetShare;        // [bolt][input]: share of each target task, null: even

    // Current placement and scratch.
    private final int[] workerOf;
    private final int[] taskWorker;
    /** Per task: the tuples it emits (a spout's: its emission; a bolt's: what it receives times its selectivity). */
    private final double[] out;
    /** Per task: the tuples it receives. */
    private final double[] received;
    private final double[] shareInNode;            // per node, for one keyed stream
    private final double[] shareInWorker;          // per worker, for one keyed stream
    private final int[] countInWorker;   // [component * workers + worker]
    private final int[] countInNode;     // [component * nodes + node]
    private final double[] localSum;     // per worker, for one target component
    private final double[] executorLoad;
    private final double[] nodeLoad;
    private final double[] nodeShare;
    // With unknown rates: the expected hottest node may not exceed the reference's (see boundRisk).
    private LoadRisk risk;
    private int[] componentOfExecutor;
    private double[] componentNodeLoad;
    private double riskReference = Double.POSITIVE_INFINITY;
    private double lastRisk;
    /** Output of keyed components' tasks that local-or-shuffle keeps in their own worker (see {@link #boundRisk}). */
    private double keyedLocal;
    private double keyedLocalReference = Double.POSITIVE_INFINITY;

    private double value;
    private double interNode;
    private double interWorker;
    private double total;
    private double maxRelativeLoad;

    /**
     * @param componentOfExecutor component id of every executor index (as {@link ExecutorGraph} numbers them)
     * @param firstTaskOfExecutor Storm task id of the first task of every executor index
     * @param tasksPerExecutor number of tasks of every executor index
     * @param workerWeight cost of an inter-worker tuple inside a node relative to an inter-node one
     * @param loadBound highest node load relative to its share of capacity without penalty
     */
    GroupingObjective(StormTopology topology, String[] componentOfExecutor, int[] firstTaskOfExecutor,
                      int[] tasksPerExecutor, NodeSlots slots, double workerWeight, double loadBound) {
        this.slots = slots;
        this.workerWeight = workerWeight;
        this.loadBound = loadBound;
        this.executors = componentOfExecutor.length;
        this.workers = slots.workerCount();
        List<String> components = new ArrayList<>(topology.get_spouts().keySet());
        components.addAll(topology.get_bolts().keySet());
        Map<String, Integer> componentIndex = new HashMap<>();
        for (String c : components) {
            componentIndex.put(c, componentIndex.size());
        }
        int componentCount = components.size();
        isSpout = new boolean[componentCount];
        for (String s : topology.get_spouts().keySet()) {
            isSpout[componentIndex.get(s)] = true;
        }
        // Tasks grouped by component.
        List<List<Integer>> executorsOf = new ArrayList<>();
        for (int c = 0; c < componentCount; c++) {
            executorsOf.add(new ArrayList<>());
        }
        int taskCount = 0;
        for (int e = 0; e < executors; e++) {
            Integer c = componentIndex.get(componentOfExecutor[e]);
            if (c != null) {
                executorsOf.get(c).add(e);
                taskCount += tasksPerExecutor[e];
            }
        }
        executorOfTask = new int[taskCount];
        taskId = new int[taskCount];
        componentStart = new int[componentCount + 1];
        int next = 0;
        for (int c = 0; c < componentCount; c++) {
            componentStart[c] = next;
            for (int e : executorsOf.get(c)) {
                for (int k = 0; k < tasksPerExecutor[e]; k++) {
                    taskId[next] = firstTaskOfExecutor[e] + k;
                    executorOfTask[next++] = e;
                }
            }
        }
        componentNames = List.copyOf(components);
        componentStart[componentCount] = next;
        // Bolts in dependency order (Kahn); bolts on a cycle follow in declaration order, their
        // not-yet-computed inputs counting as silent.
        Map<String, Bolt> bolts = topology.get_bolts();
        List<Integer> order = new ArrayList<>();
        boolean[] done = new boolean[componentCount];
        for (int c = 0; c < componentCount; c++) {
            done[c] = isSpout[c];
        }
        boolean progress = true;
        while (progress) {
            progress = false;
            for (Map.Entry<String, Bolt> bolt : bolts.entrySet()) {
                int b = componentIndex.get(bolt.getKey());
                if (done[b]) {
                    continue;
                }
                boolean ready = true;
                for (GlobalStreamId in : bolt.getValue().get_common().get_inputs().keySet()) {
                    Integer source = componentIndex.get(in.get_componentId());
                    ready &= source == null || source == b || done[source];
                }
                if (ready) {
                    order.add(b);
                    done[b] = true;
                    progress = true;
                }
            }
        }
        for (String bolt : bolts.keySet()) {
            if (!done[componentIndex.get(bolt)]) {
                order.add(componentIndex.get(bolt));
            }
        }
        boltOrder = order.stream().mapToInt(Integer::intValue).toArray();
        inputSource = new int[componentCount][];
        inputKind = new Kind[componentCount][];
        for (int b : boltOrder) {
            Map<GlobalStreamId, Grouping> inputs = bolts.get(components.get(b)).get_common().get_inputs();
            List<Integer> sources = new ArrayList<>();
            List<Kind> kinds = new ArrayList<>();
            for (Map.Entry<GlobalStreamId, Grouping> in : inputs.entrySet()) {
                Integer source = componentIndex.get(in.getKey().get_componentId());
                if (source != null) {
                    sources.add(source);
                    kinds.add(kindOf(in.getValue()));
                }
            }
            inputSource[b] = sources.stream().mapToInt(Integer::intValue).toArray();
            inputKind[b] = kinds.toArray(new Kind[0]);
        }
        keyed = new boolean[componentCount];
        for (int b : boltOrder) {
            Map<GlobalStreamId, Grouping> inputs = bolts.get(components.get(b)).get_common().get_inputs();
            for (Grouping g : inputs.values()) {
                keyed[b] |= (g.is_set_fields() && !g.get_fields().isEmpty())
                        || g.is_set_custom_serialized() || g.is_set_custom_object() || g.is_set_direct();
            }
        }
        spoutEmission = new double[taskCount];
        for (int c = 0; c < componentCount; c++) {
            for (int t = componentStart[c]; t < componentStart[c + 1]; t++) {
                spoutEmission[t] = isSpout[c] ? 1 : 0;
            }
        }
        selectivity = new double[componentCount];
        cost = new double[componentCount];
        Arrays.fill(selectivity, 1);
        Arrays.fill(cost, 1);
        streamFactor = new double[componentCount][];
        targetShare = new double[componentCount][][];
        for (int b : boltOrder) {
            streamFactor[b] = new double[inputSource[b].length];
            Arrays.fill(streamFactor[b], 1);
            targetShare[b] = new double[inputSource[b].length][];
        }
        workerOf = new int[executors];
        taskWorker = new int[taskCount];
        out = new double[taskCount];
        received = new double[taskCount];
        shareInNode = new double[slots.nodeCount()];
        shareInWorker = new double[workers];
        countInWorker = new int[componentCount * workers];
        countInNode = new int[componentCount * slots.nodeCount()];
        localSum = new double[workers];
        executorLoad = new double[executors];
        nodeLoad = new double[slots.nodeCount()];
        nodeShare = new double[slots.nodeCount()];
        for (int n = 0; n < nodeShare.length; n++) {
            nodeShare[n] = slots.nodes().get(n).capacity() / slots.totalCapacity();
        }
        // Which executors the structure leaves idle: rates with local-or-shuffle read as shuffle,
        // where the placement does not matter.
        structurallyIdle = new boolean[executors];
        evaluate(false);
        for (int e = 0; e < executors; e++) {
            structurallyIdle[e] = executorLoad[e] == 0;
        }
    }

    /** The objective of a topology's executors as {@code graph} numbers them, placed on {@code slots}. */
    static GroupingObjective of(StormTopology topology, Map<ExecutorDetails, String> componentOf,
                                ExecutorGraph graph, NodeSlots slots, double workerWeight, double loadBound) {
        String[] components = new String[graph.size()];
        int[] first = new int[graph.size()];
        int[] tasks = new int[graph.size()];
        for (int i = 0; i < graph.size(); i++) {
            ExecutorDetails executor = graph.executor(i);
            components[i] = componentOf.getOrDefault(executor, "");
            first[i] = executor.getStartTask();
            tasks[i] = executor.getEndTask() - executor.getStartTask() + 1;
        }
        return new GroupingObjective(topology, components, first, tasks, slots, workerWeight, loadBound);
    }

    /**
     * Replays Storm's routing with the rates the traffic records measured instead of the structure's:
     * each spout task's emission, each bolt's selectivity, each component's CPU time per tuple (the load),
     * the share of a component's output each stream carries and, for streams not routed by the placement,
     * the share each target task received. Traffic is then in tuples per second. Call before {@link #reset}.
     */
    void measure(MeasuredRates rates) {
        for (int c = 0; c + 1 < componentStart.length; c++) {
            String name = componentNames.get(c);
            selectivity[c] = isSpout[c] ? 1 : rates.selectivity(name);
            cost[c] = rates.cost(name, isSpout[c]);
            for (int t = componentStart[c]; t < componentStart[c + 1]; t++) {
                spoutEmission[t] = isSpout[c] ? rates.emitted(taskId[t]) : 0;
            }
        }
        for (int b : boltOrder) {
            int targets = componentStart[b + 1] - componentStart[b];
            int[] targetTasks = Arrays.copyOfRange(taskId, componentStart[b], componentStart[b + 1]);
            for (int i = 0; i < inputSource[b].length; i++) {
                int a = inputSource[b][i];
                double share = rates.streamShare(componentNames.get(a), componentNames.get(b));
                streamFactor[b][i] = inputKind[b][i] == Kind.ALL && targets > 0 ? share / targets : share;
                targetShare[b][i] = inputKind[b][i] == Kind.SPREAD
                        ? rates.targetShares(componentNames.get(a),
                                Arrays.copyOfRange(taskId, componentStart[a], componentStart[a + 1]), targetTasks)
                        : null;
            }
        }
    }

    /** Tuples crossing nodes under the current placement (in the rates' unit). */
    double interNodeTraffic() {
        return interNode;
    }

    /**
     * Holds every later placement to the expected hottest node of {@code reference} under the rate
     * scenarios of {@code risk} (as {@link io.jetstream.scheduler.placement.RiskBoundedObjective} does for a
     * task graph, with the loads as Storm routes the tuples here). Leaves the objective reset to {@code reference}.
     *
     * @param componentOfExecutor the component of every executor, as the scenarios number them
     */
    void boundRisk(LoadRisk risk, int[] componentOfExecutor, int[] reference) {
        this.risk = risk;
        this.componentOfExecutor = componentOfExecutor.clone();
        this.componentNodeLoad = new double[risk.components() * slots.nodeCount()];
        this.riskReference = Double.POSITIVE_INFINITY;
        this.keyedLocalReference = Double.POSITIVE_INFINITY;
        reset(reference);
        this.riskReference = lastRisk;
        this.keyedLocalReference = keyedLocal;
        reset(reference);
    }

    /** The expected relative load of the hottest node under the rate scenarios (NaN without {@link #boundRisk}). */
    double risk() {
        return risk == null ? Double.NaN : lastRisk;
    }

    /** Whether Storm delivers any of this topology's streams depending on the placement. */
    static boolean placementDecidesRouting(StormTopology topology) {
        for (Bolt bolt : topology.get_bolts().values()) {
            for (Grouping g : bolt.get_common().get_inputs().values()) {
                if (g.is_set_local_or_shuffle()) {
                    return true;
                }
            }
        }
        return false;
    }

    private static Kind kindOf(Grouping g) {
        if (g.is_set_local_or_shuffle()) {
            return Kind.LOCAL_OR_SHUFFLE;
        }
        if (g.is_set_all()) {
            return Kind.ALL;
        }
        if (g.is_set_fields() && g.get_fields().isEmpty()) {
            return Kind.GLOBAL;
        }
        return Kind.SPREAD;
    }

    @Override
    public void reset(int[] placement) {
        if (placement.length != executors) {
            throw new IllegalArgumentException(placement.length + " workers for " + executors + " executors");
        }
        System.arraycopy(placement, 0, workerOf, 0, executors);
        value = evaluate();
    }

    @Override
    public double value() {
        return value;
    }

    @Override
    public double valueIfSwapped(int a, int b) {
        int wa = workerOf[a];
        int wb = workerOf[b];
        workerOf[a] = wb;
        workerOf[b] = wa;
        double v = evaluateKeepingMeasures();
        workerOf[a] = wa;
        workerOf[b] = wb;
        return v;
    }

    @Override
    public void swap(int a, int b) {
        int wa = workerOf[a];
        workerOf[a] = workerOf[b];
        workerOf[b] = wa;
        value = evaluate();
    }

    @Override
    public double valueIfMoved(int task, int worker) {
        int from = workerOf[task];
        workerOf[task] = worker;
        double v = evaluateKeepingMeasures();
        workerOf[task] = from;
        return v;
    }

    @Override
    public void move(int task, int worker) {
        workerOf[task] = worker;
        value = evaluate();
    }

    /** Evaluates the placement in {@link #workerOf} but keeps the measures of the current one. */
    private double evaluateKeepingMeasures() {
        // Every evaluation starts from workerOf alone; only the measures need restoring.
        double node = interNode;
        double worker = interWorker;
        double all = total;
        double maxLoad = maxRelativeLoad;
        double riskNow = lastRisk;
        double keyedNow = keyedLocal;
        double v = evaluate();
        keyedLocal = keyedNow;
        interNode = node;
        interWorker = worker;
        total = all;
        maxRelativeLoad = maxLoad;
        lastRisk = riskNow;
        return v;
    }

    /** The worker of every executor in the current placement. */
    int[] workerOfExecutors() {
        return workerOf.clone();
    }

    /** Share of the traffic crossing nodes under the current placement. */
    double interNodeFraction() {
        return total == 0 ? 0 : interNode / total;
    }

    /** Share of the traffic crossing workers under the current placement. */
    double interWorkerFraction() {
        return total == 0 ? 0 : interWorker / total;
    }

    /** Highest node load relative to its share of capacity under the current placement. */
    double maxRelativeNodeLoad() {
        return maxRelativeLoad;
    }

    private double evaluate() {
        return evaluate(true);
    }

    /** @param localRouting whether local-or-shuffle prefers the sender's worker (false: plain shuffle) */
    private double evaluate(boolean localRouting) {
        int nodes = slots.nodeCount();
        Arrays.fill(countInWorker, 0);
        Arrays.fill(countInNode, 0);
        Arrays.fill(nodeLoad, 0);
        for (int c = 0; c + 1 < componentStart.length; c++) {
            for (int t = componentStart[c]; t < componentStart[c + 1]; t++) {
                int w = workerOf[executorOfTask[t]];
                taskWorker[t] = w;
                countInWorker[c * workers + w]++;
                countInNode[c * nodes + slots.nodeOfWorker(w)]++;
                out[t] = spoutEmission[t];
                received[t] = 0;
            }
        }
        interNode = 0;
        interWorker = 0;
        total = 0;
        keyedLocal = 0;
        for (int b : boltOrder) {
            int first = componentStart[b];
            int targets = componentStart[b + 1] - first;
            if (targets == 0) {
                continue;
            }
            double spread = 0;     // per target task, from spreading groupings
            double global = 0;     // to the lowest target task
            Arrays.fill(localSum, 0);
            for (int i = 0; i < inputSource[b].length; i++) {
                int a = inputSource[b][i];
                Kind kind = inputKind[b][i];
                double factor = streamFactor[b][i];
                double[] shares = targetShare[b][i];
                if (shares != null) {
                    Arrays.fill(shareInNode, 0);
                    Arrays.fill(shareInWorker, 0);
                    for (int t = first; t < first + targets; t++) {
                        shareInNode[slots.nodeOfWorker(taskWorker[t])] += shares[t - first];
                        shareInWorker[taskWorker[t]] += shares[t - first];
                    }
                }
                double keyedStream = 0;
                for (int s = componentStart[a]; s < componentStart[a + 1]; s++) {
                    double r = out[s] * factor;
                    if (r == 0) {
                        continue;
                    }
                    int w = taskWorker[s];
                    int n = slots.nodeOfWorker(w);
                    int inWorker = countInWorker[b * workers + w];
                    int inNode = countInNode[b * nodes + n];
                    switch (kind) {
                        case LOCAL_OR_SHUFFLE -> {
                            if (localRouting && inWorker > 0) {
                                localSum[w] += r;
                                total += r;
                                if (keyed[a]) {
                                    keyedLocal += r;
                                }
                            } else {
                                spread += r / targets;
                                account(r, 1 - (double) inNode / targets, 1);
                            }
                        }
                        case SPREAD -> {
                            if (shares == null) {
                                spread += r / targets;
                                account(r, 1 - (double) inNode / targets, 1 - (double) inWorker / targets);
                            } else {
                                keyedStream += r;
                                account(r, 1 - shareInNode[n], 1 - shareInWorker[w]);
                            }
                        }
                        case ALL -> {
                            spread += r;
                            account(r * targets, 1 - (double) inNode / targets, 1 - (double) inWorker / targets);
                        }
                        case GLOBAL -> {
                            global += r;
                            int lowest = taskWorker[first];
                            account(r, slots.nodeOfWorker(lowest) != n ? 1 : 0, lowest != w ? 1 : 0);
                        }
                    }
                }
                if (keyedStream > 0) {
                    for (int t = first; t < first + targets; t++) {
                        received[t] += keyedStream * shares[t - first];
                    }
                }
            }
            for (int t = first; t < first + targets; t++) {
                int w = taskWorker[t];
                double in = received[t] + spread + (t == first ? global : 0);
                if (localSum[w] > 0) {
                    in += localSum[w] / countInWorker[b * workers + w];
                }
                received[t] = in;
                out[t] = in * selectivity[b];
            }
        }
        // A task that local-or-shuffle starves under this placement really carries nothing.
        Arrays.fill(executorLoad, 0);
        for (int c = 0; c + 1 < componentStart.length; c++) {
            for (int t = componentStart[c]; t < componentStart[c + 1]; t++) {
                executorLoad[executorOfTask[t]] += (isSpout[c] ? out[t] : received[t]) * cost[c];
            }
        }
        double smallest = TopologyStructure.smallestPositive(executorLoad);
        double totalLoad = 0;
        for (int e = 0; e < executors; e++) {
            double l = structurallyIdle[e] ? smallest : executorLoad[e];
            nodeLoad[slots.nodeOfWorker(workerOf[e])] += l;
            totalLoad += l;
        }
        double over = 0;
        maxRelativeLoad = 0;
        for (int n = 0; n < nodes; n++) {
            double relative = totalLoad == 0 ? 0 : nodeLoad[n] / totalLoad / nodeShare[n];
            maxRelativeLoad = Math.max(maxRelativeLoad, relative);
            over += Math.max(0, relative - loadBound);
        }
        double v = interNode + workerWeight * interWorker + OVER_BOUND_PENALTY * Math.max(1, total) * over;
        if (risk != null) {
            Arrays.fill(componentNodeLoad, 0);
            for (int e = 0; e < executors; e++) {
                double l = structurallyIdle[e] ? smallest : executorLoad[e];
                componentNodeLoad[componentOfExecutor[e] * nodes + slots.nodeOfWorker(workerOf[e])] += l;
            }
            lastRisk = risk.risk(componentNodeLoad);
            v += LoadRisk.cost(lastRisk, riskReference, total);
            // Which tasks of a keyed component its hot keys load is unknown; the output of such a task that
            // stays in its worker loads that worker's node with it, so no more of it stays than in the reference.
            v += OVER_BOUND_PENALTY * Math.max(0, keyedLocal - keyedLocalReference * (1 + 1e-9));
        }
        return v;
    }

    /** Adds {@code amount} tuples of which the given shares cross nodes and workers. */
    private void account(double amount, double crossNodeShare, double crossWorkerShare) {
        total += amount;
        interNode += amount * crossNodeShare;
        interWorker += amount * crossWorkerShare;
    }
}
