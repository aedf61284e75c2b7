package io.jetstream.scheduler.storm;

import io.jetstream.scheduler.placement.TaskGraph;
import io.jetstream.scheduler.placement.TopologyStructure;
import io.jetstream.scheduler.traffic.TaskTraffic;
import io.jetstream.scheduler.traffic.TrafficSnapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.generated.Bolt;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.scheduler.ExecutorDetails;
import org.apache.storm.scheduler.TopologyDetails;

/**
 * A Storm topology's executors as a {@link TaskGraph}: vertex {@code i} is {@link #executor(int)}.
 * Built either from the topology's structure ({@link #fromStructure}, the offline mode) or from
 * measured traffic ({@link #fromTraffic}, the online mode).
 *
 * <p>The structural model is {@link TopologyStructure}'s; components outside the user topology
 * ({@code __acker}, {@code __system}, metrics consumers) get the smallest user load and no traffic.
 *
 * <p>Immutable; thread-safe.
 */
public final class ExecutorGraph {
    private static final String STRUCTURE = "structure";

    private final List<ExecutorDetails> executors;
    private final Map<ExecutorDetails, Integer> indexOf;
    private final TaskGraph graph;
    private final int[] componentOf;
    private final List<String> componentNames;
    private final String source;

    private ExecutorGraph(List<ExecutorDetails> executors, TaskGraph graph, int[] componentOf,
                          List<String> componentNames, String source) {
        this.executors = List.copyOf(executors);
        this.indexOf = new HashMap<>();
        for (int i = 0; i < executors.size(); i++) {
            indexOf.put(executors.get(i), i);
        }
        this.graph = graph;
        this.componentOf = componentOf;
        this.componentNames = List.copyOf(componentNames);
        this.source = source;
    }

    /**
     * The component of every executor index, numbered in component-name order (system components such
     * as {@code __acker} included): what {@link io.jetstream.scheduler.placement.ComponentSpread} spreads.
     */
    public int[] componentOf() {
        return componentOf.clone();
    }

    /** The component names, in the order {@link #componentOf} numbers them. */
    public List<String> componentNames() {
        return componentNames;
    }

    private static List<String> namesOf(Map<ExecutorDetails, String> executorToComponent) {
        return new ArrayList<>(new java.util.TreeSet<>(executorToComponent.values()));
    }

    private static int[] componentsOf(List<ExecutorDetails> executors, List<String> names,
                                      Map<ExecutorDetails, String> executorToComponent) {
        int[] of = new int[executors.size()];
        for (int i = 0; i < of.length; i++) {
            of[i] = java.util.Collections.binarySearch(names, executorToComponent.get(executors.get(i)));
        }
        return of;
    }

    /** Where the graph came from, for logs: "structure" or "recorded traffic". */
    public String source() {
        return source;
    }

    /** Whether the graph comes from the topology's structure rather than from measurements. */
    public boolean isStructural() {
        return source.equals(STRUCTURE);
    }

    public TaskGraph graph() {
        return graph;
    }

    public int size() {
        return executors.size();
    }

    public ExecutorDetails executor(int index) {
        return executors.get(index);
    }

    public List<ExecutorDetails> executors() {
        return executors;
    }

    /** Index of an executor, or -1 when it is not part of this graph. */
    public int indexOf(ExecutorDetails executor) {
        Integer i = indexOf.get(executor);
        return i == null ? -1 : i;
    }

    /** The subgraph of the given executor indexes (ascending), renumbered in that order. */
    public ExecutorGraph induced(int[] indexes) {
        int[] newIndex = new int[size()];
        java.util.Arrays.fill(newIndex, -1);
        List<ExecutorDetails> kept = new ArrayList<>();
        int[] keptComponents = new int[indexes.length];
        for (int i = 0; i < indexes.length; i++) {
            newIndex[indexes[i]] = i;
            kept.add(executors.get(indexes[i]));
            keptComponents[i] = componentOf[indexes[i]];
        }
        TaskGraph.Builder builder = TaskGraph.builder(indexes.length);
        for (int i = 0; i < indexes.length; i++) {
            int v = indexes[i];
            builder.weight(i, graph.weight(v));
            for (int e = graph.firstEdge(v); e < graph.endEdge(v); e++) {
                int u = graph.edgeTarget(e);
                if (u > v && newIndex[u] >= 0) {
                    builder.addTraffic(i, newIndex[u], graph.edgeTraffic(e));
                }
            }
        }
        return new ExecutorGraph(kept, builder.build(), keptComponents, componentNames, source);
    }

    static List<ExecutorDetails> sorted(Collection<ExecutorDetails> executors) {
        List<ExecutorDetails> list = new ArrayList<>(executors);
        list.sort(Comparator.comparingInt(ExecutorDetails::getStartTask));
        return list;
    }

    /** Executor index of every task id, for tasks in {@code [0, maxTask]}; -1 for unknown tasks. */
    private static int[] executorOfTask(List<ExecutorDetails> executors) {
        int maxTask = 0;
        for (ExecutorDetails e : executors) {
            maxTask = Math.max(maxTask, e.getEndTask());
        }
        int[] of = new int[maxTask + 1];
        Arrays.fill(of, -1);
        for (int i = 0; i < executors.size(); i++) {
            for (int t = executors.get(i).getStartTask(); t <= executors.get(i).getEndTask(); t++) {
                of[t] = i;
            }
        }
        return of;
    }

    /** The offline graph, from the topology's components, groupings and parallelism. */
    public static ExecutorGraph fromStructure(TopologyDetails topology) {
        return fromStructure(topology.getTopology(), topology.getExecutorToComponent());
    }

    public static ExecutorGraph fromStructure(StormTopology topology, Map<ExecutorDetails, String> executorToComponent) {
        List<ExecutorDetails> executors = sorted(executorToComponent.keySet());
        TaskGraph graph = structureOf(topology).taskGraph(
                tasksByComponent(executorToComponent), executorOfTask(executors), executors.size());
        List<String> names = namesOf(executorToComponent);
        return new ExecutorGraph(executors, graph, componentsOf(executors, names, executorToComponent), names, STRUCTURE);
    }

    /** Storm's components and subscriptions as an engine-free {@link TopologyStructure}. */
    public static TopologyStructure structureOf(StormTopology topology) {
        TopologyStructure.Builder builder = TopologyStructure.builder();
        topology.get_spouts().keySet().forEach(builder::spout);
        for (Map.Entry<String, Bolt> bolt : topology.get_bolts().entrySet()) {
            builder.bolt(bolt.getKey());
            for (Map.Entry<GlobalStreamId, Grouping> input : bolt.getValue().get_common().get_inputs().entrySet()) {
                builder.stream(input.getKey().get_componentId(), bolt.getKey(), groupingOf(input.getValue()));
            }
        }
        return builder.build();
    }

    private static TopologyStructure.Grouping groupingOf(Grouping grouping) {
        return TopologyStructure.Grouping.of(grouping.is_set_all(),
                grouping.is_set_fields() && grouping.get_fields().isEmpty(), grouping.is_set_local_or_shuffle());
    }

    /** The task ids of every component. */
    static Map<String, int[]> tasksByComponent(Map<ExecutorDetails, String> executorToComponent) {
        Map<String, List<Integer>> lists = new HashMap<>();
        for (Map.Entry<ExecutorDetails, String> e : executorToComponent.entrySet()) {
            List<Integer> tasks = lists.computeIfAbsent(e.getValue(), k -> new ArrayList<>());
            for (int t = e.getKey().getStartTask(); t <= e.getKey().getEndTask(); t++) {
                tasks.add(t);
            }
        }
        Map<String, int[]> out = new HashMap<>();
        for (Map.Entry<String, List<Integer>> e : lists.entrySet()) {
            out.put(e.getKey(), e.getValue().stream().mapToInt(Integer::intValue).sorted().toArray());
        }
        return out;
    }

    /**
     * The online graph: traffic is the measured tuple rate of every task pair; load is the measured
     * CPU time of an executor when every executor has a record and some record carries CPU time (an
     * idle executor may report none), otherwise the tuples it received and emitted. Executors without
     * load get the smallest measured load.
     */
    public static ExecutorGraph fromTraffic(Map<ExecutorDetails, String> executorToComponent, TrafficSnapshot traffic) {
        List<ExecutorDetails> executors = sorted(executorToComponent.keySet());
        int[] executorOfTask = executorOfTask(executors);
        TaskGraph.Builder builder = TaskGraph.builder(executors.size());
        double[] tuples = new double[executors.size()];
        double[] cpu = new double[executors.size()];
        boolean[] recorded = new boolean[executors.size()];
        boolean anyCpu = false;
        for (TaskTraffic task : traffic.tasks()) {
            int source = task.taskId() >= 0 && task.taskId() < executorOfTask.length ? executorOfTask[task.taskId()] : -1;
            if (source < 0) {
                continue;
            }
            recorded[source] = true;
            cpu[source] += task.cpuNanosPerSecond();
            anyCpu |= task.cpuNanosPerSecond() > 0;
            for (Map.Entry<Integer, Double> out : task.tuplesPerSecondTo().entrySet()) {
                int targetTask = out.getKey();
                int target = targetTask >= 0 && targetTask < executorOfTask.length ? executorOfTask[targetTask] : -1;
                if (target < 0) {
                    continue;
                }
                double r = out.getValue();
                tuples[source] += r;
                tuples[target] += r;
                builder.addTraffic(source, target, r);
            }
        }
        boolean allRecorded = true;
        for (boolean b : recorded) {
            allRecorded &= b;
        }
        setLoads(builder, allRecorded && anyCpu ? cpu : tuples);
        List<String> names = namesOf(executorToComponent);
        return new ExecutorGraph(executors, builder.build(), componentsOf(executors, names, executorToComponent), names,
                "recorded traffic");
    }

    /** Loads as given; zero loads get the smallest positive load (every executor costs something). */
    private static void setLoads(TaskGraph.Builder builder, double[] load) {
        double smallest = TopologyStructure.smallestPositive(load);
        for (int i = 0; i < load.length; i++) {
            builder.weight(i, load[i] > 0 ? load[i] : smallest);
        }
    }
}
