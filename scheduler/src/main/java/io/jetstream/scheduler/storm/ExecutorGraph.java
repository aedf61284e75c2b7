package io.jetstream.scheduler.storm;

import io.jetstream.scheduler.placement.TaskGraph;
import io.jetstream.scheduler.traffic.TaskTraffic;
import io.jetstream.scheduler.traffic.TrafficSnapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.generated.Bolt;
import org.apache.storm.generated.ComponentCommon;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.generated.SpoutSpec;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.scheduler.ExecutorDetails;
import org.apache.storm.scheduler.TopologyDetails;

/**
 * A Storm topology's executors as a {@link TaskGraph}: vertex {@code i} is {@link #executor(int)}.
 * Built either from the topology's structure ({@link #fromStructure}, the offline mode) or from
 * measured traffic ({@link #fromTraffic}, the online mode).
 *
 * <p>The structural model: every spout task emits one unit of rate; a bolt emits what it receives
 * (selectivity 1); a stream's rate is shared by its source's tasks. A shuffle, fields, partial-key,
 * custom or direct subscription spreads it evenly over all source-target task pairs; {@code all}
 * sends each tuple to every target task; {@code global} (fields grouping without fields) sends
 * everything to the lowest target task; {@code localOrShuffle} is modelled as Storm delivers it once
 * each source task has a target task in its worker: every source task feeds its own share of the
 * target tasks, so a placement that keeps those pairs together makes the stream local. The load of an
 * executor is the rate its tasks receive (emit, for spouts). Components outside the user topology
 * ({@code __acker}, {@code __system}, metrics consumers) get the smallest user load and no traffic.
 *
 * <p>Immutable; thread-safe.
 */
public final class ExecutorGraph {
    private static final String STRUCTURE = "structure";

    private final List<ExecutorDetails> executors;
    private final Map<ExecutorDetails, Integer> indexOf;
    private final TaskGraph graph;
    private final String source;

    private ExecutorGraph(List<ExecutorDetails> executors, TaskGraph graph, String source) {
        this.executors = List.copyOf(executors);
        this.indexOf = new HashMap<>();
        for (int i = 0; i < executors.size(); i++) {
            indexOf.put(executors.get(i), i);
        }
        this.graph = graph;
        this.source = source;
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
        for (int i = 0; i < indexes.length; i++) {
            newIndex[indexes[i]] = i;
            kept.add(executors.get(indexes[i]));
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
        return new ExecutorGraph(kept, builder.build(), source);
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
        int[] executorOfTask = executorOfTask(executors);
        Map<String, int[]> tasksOf = tasksByComponent(executorToComponent);

        Map<String, ComponentCommon> components = new LinkedHashMap<>();
        for (Map.Entry<String, SpoutSpec> e : topology.get_spouts().entrySet()) {
            components.put(e.getKey(), e.getValue().get_common());
        }
        for (Map.Entry<String, Bolt> e : topology.get_bolts().entrySet()) {
            components.put(e.getKey(), e.getValue().get_common());
        }
        Map<String, Double> rate = componentRates(topology, tasksOf);

        TaskGraph.Builder builder = TaskGraph.builder(executors.size());
        double[] taskLoad = new double[executorOfTask.length];
        for (String spout : topology.get_spouts().keySet()) {
            for (int task : tasksOf.getOrDefault(spout, new int[0])) {
                taskLoad[task] += 1;
            }
        }
        for (Map.Entry<String, Bolt> bolt : topology.get_bolts().entrySet()) {
            int[] targets = tasksOf.getOrDefault(bolt.getKey(), new int[0]);
            if (targets.length == 0) {
                continue;
            }
            for (Map.Entry<GlobalStreamId, Grouping> input : bolt.getValue().get_common().get_inputs().entrySet()) {
                String source = input.getKey().get_componentId();
                int[] sources = tasksOf.getOrDefault(source, new int[0]);
                double streamRate = rate.getOrDefault(source, 0.0);
                if (sources.length == 0 || streamRate == 0) {
                    continue;
                }
                addStream(builder, taskLoad, executorOfTask, sources, targets, streamRate, input.getValue());
            }
        }
        double[] executorLoad = new double[executors.size()];
        for (int t = 0; t < taskLoad.length; t++) {
            if (executorOfTask[t] >= 0) {
                executorLoad[executorOfTask[t]] += taskLoad[t];
            }
        }
        setLoads(builder, executorLoad);
        return new ExecutorGraph(executors, builder.build(), STRUCTURE);
    }

    private static void addStream(TaskGraph.Builder builder, double[] taskLoad, int[] executorOfTask, int[] sources,
                                  int[] targets, double streamRate, Grouping grouping) {
        double perSource = streamRate / sources.length;
        if (grouping.is_set_all()) {
            for (int s : sources) {
                for (int d : targets) {
                    link(builder, executorOfTask, s, d, perSource);
                    taskLoad[d] += perSource;
                }
            }
        } else if (grouping.is_set_fields() && grouping.get_fields().isEmpty()) {
            int d = targets[0];
            for (int s : sources) {
                link(builder, executorOfTask, s, d, perSource);
                taskLoad[d] += perSource;
            }
        } else if (grouping.is_set_local_or_shuffle()) {
            for (int i = 0; i < sources.length; i++) {
                int from;
                int to;
                if (targets.length >= sources.length) {
                    from = (int) ((long) i * targets.length / sources.length);
                    to = (int) ((long) (i + 1) * targets.length / sources.length);
                } else {
                    from = (int) ((long) i * targets.length / sources.length);
                    to = from + 1;
                }
                double each = perSource / (to - from);
                for (int j = from; j < to; j++) {
                    link(builder, executorOfTask, sources[i], targets[j], each);
                    taskLoad[targets[j]] += each;
                }
            }
        } else {
            double each = perSource / targets.length;
            for (int s : sources) {
                for (int d : targets) {
                    link(builder, executorOfTask, s, d, each);
                    taskLoad[d] += each;
                }
            }
        }
    }

    private static void link(TaskGraph.Builder builder, int[] executorOfTask, int sourceTask, int targetTask,
                             double amount) {
        int a = sourceTask < executorOfTask.length ? executorOfTask[sourceTask] : -1;
        int b = targetTask < executorOfTask.length ? executorOfTask[targetTask] : -1;
        if (a >= 0 && b >= 0) {
            builder.addTraffic(a, b, amount);
        }
    }

    /** Output rate per component: spouts emit one unit per task, bolts emit what they receive. */
    private static Map<String, Double> componentRates(StormTopology topology, Map<String, int[]> tasksOf) {
        Map<String, Double> rate = new HashMap<>();
        for (String spout : topology.get_spouts().keySet()) {
            rate.put(spout, (double) tasksOf.getOrDefault(spout, new int[0]).length);
        }
        // Bolts in dependency order; a cycle (rare, but legal) is cut after as many passes as bolts.
        Map<String, Bolt> bolts = topology.get_bolts();
        for (int pass = 0; pass <= bolts.size(); pass++) {
            boolean changed = false;
            for (Map.Entry<String, Bolt> bolt : bolts.entrySet()) {
                if (rate.containsKey(bolt.getKey())) {
                    continue;
                }
                double in = 0;
                boolean ready = true;
                for (Map.Entry<GlobalStreamId, Grouping> input : bolt.getValue().get_common().get_inputs().entrySet()) {
                    String source = input.getKey().get_componentId();
                    Double r = rate.get(source);
                    if (r == null) {
                        if (bolts.containsKey(source) || topology.get_spouts().containsKey(source)) {
                            ready = pass == bolts.size(); // last pass: ignore unresolved (cyclic) inputs
                            if (!ready) {
                                break;
                            }
                        }
                        continue;
                    }
                    int targets = tasksOf.getOrDefault(bolt.getKey(), new int[0]).length;
                    in += input.getValue().is_set_all() ? r * targets : r;
                }
                if (ready) {
                    rate.put(bolt.getKey(), in);
                    changed = true;
                }
            }
            if (!changed && rate.keySet().containsAll(bolts.keySet())) {
                break;
            }
        }
        return rate;
    }

    private static Map<String, int[]> tasksByComponent(Map<ExecutorDetails, String> executorToComponent) {
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
     * CPU time of an executor when every executor reported one, otherwise the tuples it received and
     * emitted. Executors without measurements get the smallest measured load.
     */
    public static ExecutorGraph fromTraffic(Collection<ExecutorDetails> executorSet, TrafficSnapshot traffic) {
        List<ExecutorDetails> executors = sorted(executorSet);
        int[] executorOfTask = executorOfTask(executors);
        TaskGraph.Builder builder = TaskGraph.builder(executors.size());
        double[] tuples = new double[executors.size()];
        double[] cpu = new double[executors.size()];
        boolean[] hasCpu = new boolean[executors.size()];
        for (TaskTraffic task : traffic.tasks()) {
            int source = task.taskId() >= 0 && task.taskId() < executorOfTask.length ? executorOfTask[task.taskId()] : -1;
            if (source < 0) {
                continue;
            }
            if (task.cpuNanosPerSecond() > 0) {
                cpu[source] += task.cpuNanosPerSecond();
                hasCpu[source] = true;
            }
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
        boolean allCpu = true;
        for (boolean b : hasCpu) {
            allCpu &= b;
        }
        setLoads(builder, allCpu ? cpu : tuples);
        return new ExecutorGraph(executors, builder.build(), "recorded traffic");
    }

    /** Loads as given; zero loads get the smallest positive load (every executor costs something). */
    private static void setLoads(TaskGraph.Builder builder, double[] load) {
        double smallest = smallestPositive(load);
        for (int i = 0; i < load.length; i++) {
            builder.weight(i, load[i] > 0 ? load[i] : smallest);
        }
    }

    /** The load an executor that receives nothing is given: the smallest positive load, 1 when there is none. */
    static double smallestPositive(double[] loads) {
        double smallest = Double.POSITIVE_INFINITY;
        for (double l : loads) {
            if (l > 0) {
                smallest = Math.min(smallest, l);
            }
        }
        return smallest == Double.POSITIVE_INFINITY ? 1 : smallest;
    }
}
