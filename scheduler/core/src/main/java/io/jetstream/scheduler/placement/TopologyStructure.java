package io.jetstream.scheduler.placement;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A topology's shape without an engine: its components (spouts and bolts) and the streams between
 * them with how each is grouped — all that TurboStream's offline mode knows — and the task graph it
 * implies ({@link #taskGraph}). Storm's and JStorm's adapters translate their topologies into it.
 *
 * <p>The structural model: every spout task emits one unit of rate; a bolt emits what it receives
 * (selectivity 1); a stream's rate is shared by its source's tasks. A {@link Grouping#SPREAD}
 * subscription (shuffle, fields, partial-key, custom, direct) spreads it evenly over all
 * source-target task pairs; {@link Grouping#ALL} sends each tuple to every target task;
 * {@link Grouping#GLOBAL} (a fields grouping without fields) sends everything to the lowest target
 * task; {@link Grouping#LOCAL_OR_SHUFFLE} is modelled as the engines deliver it once each source task
 * has a target task in its worker: every source task feeds its own share of the target tasks, so a
 * placement that keeps those pairs together makes the stream local. A unit's load is the rate its
 * tasks receive (emit, for spouts); units that receive nothing (ackers, system tasks) get the
 * smallest load of the others.
 *
 * <p>Immutable; thread-safe.
 */
public final class TopologyStructure {
    /** How a stream's tuples are spread over the target component's tasks. */
    public enum Grouping {
        /** Evenly over all target tasks (shuffle, fields with keys, partial key, custom, direct). */
        SPREAD,
        /** Every tuple to every target task. */
        ALL,
        /** Every tuple to the lowest target task. */
        GLOBAL,
        /** To the target tasks in the sender's worker, to all when it has none. */
        LOCAL_OR_SHUFFLE;

        /**
         * An engine's grouping, from what Storm's and JStorm's {@code Grouping} unions say about it:
         * {@code all}; a fields grouping without fields (global); local-or-shuffle (or JStorm's
         * local-first); anything else spreads.
         */
        public static Grouping of(boolean all, boolean fieldsWithoutKeys, boolean localFirst) {
            if (all) {
                return ALL;
            }
            if (fieldsWithoutKeys) {
                return GLOBAL;
            }
            return localFirst ? LOCAL_OR_SHUFFLE : SPREAD;
        }
    }

    /** One subscription of {@code target} to a stream of {@code source}. */
    public record Stream(String source, String target, Grouping grouping) {}

    private final Map<String, Boolean> spoutByComponent;
    private final List<Stream> streams;

    private TopologyStructure(Map<String, Boolean> spoutByComponent, List<Stream> streams) {
        this.spoutByComponent = spoutByComponent;
        this.streams = streams;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Collects components and streams; a stream may name a component added later. */
    public static final class Builder {
        private final Map<String, Boolean> spoutByComponent = new LinkedHashMap<>();
        private final List<Stream> streams = new ArrayList<>();

        public Builder spout(String name) {
            spoutByComponent.put(name, true);
            return this;
        }

        public Builder bolt(String name) {
            spoutByComponent.put(name, false);
            return this;
        }

        public Builder stream(String source, String target, Grouping grouping) {
            streams.add(new Stream(source, target, grouping));
            return this;
        }

        public TopologyStructure build() {
            return new TopologyStructure(new LinkedHashMap<>(spoutByComponent), List.copyOf(streams));
        }
    }

    public List<Stream> streams() {
        return streams;
    }

    /** The components, spouts and bolts, in the order they were added. */
    public List<String> components() {
        return List.copyOf(spoutByComponent.keySet());
    }

    public boolean isSpout(String component) {
        return spoutByComponent.getOrDefault(component, false);
    }

    /**
     * Output rate of every component with tasks: spouts one unit per task, bolts what they receive
     * ({@code all} multiplies a stream by its target tasks). Bolts are resolved in dependency order;
     * a cycle (rare, but legal) is cut after as many passes as there are components.
     *
     * @param tasksOf the task ids of each component
     */
    public Map<String, Double> componentRates(Map<String, int[]> tasksOf) {
        return componentRates(tasksOf, c -> 1.0, (source, target) -> 1.0, new HashMap<>());
    }

    /**
     * Output rate of every component with tasks under given rates: spouts one unit per task, a bolt
     * what it receives times its selectivity; a stream carries its source's output times its multiplier.
     *
     * @param received filled with the tuples every component receives (a spout's: what it emits)
     */
    Map<String, Double> componentRates(Map<String, int[]> tasksOf, java.util.function.ToDoubleFunction<String> selectivity,
                                       java.util.function.ToDoubleBiFunction<String, String> multiplier,
                                       Map<String, Double> received) {
        Map<String, Double> rate = new HashMap<>();
        List<String> bolts = new ArrayList<>();
        for (Map.Entry<String, Boolean> c : spoutByComponent.entrySet()) {
            if (c.getValue()) {
                rate.put(c.getKey(), (double) tasks(tasksOf, c.getKey()).length);
                received.put(c.getKey(), (double) tasks(tasksOf, c.getKey()).length);
            } else {
                bolts.add(c.getKey());
            }
        }
        for (int pass = 0; pass <= bolts.size(); pass++) {
            boolean changed = false;
            for (String bolt : bolts) {
                if (rate.containsKey(bolt)) {
                    continue;
                }
                double in = 0;
                boolean ready = true;
                for (Stream s : streams) {
                    if (!s.target().equals(bolt)) {
                        continue;
                    }
                    Double r = rate.get(s.source());
                    if (r == null) {
                        if (spoutByComponent.containsKey(s.source())) {
                            ready = pass == bolts.size(); // last pass: ignore unresolved (cyclic) inputs
                            if (!ready) {
                                break;
                            }
                        }
                        continue;
                    }
                    double carried = r * multiplier.applyAsDouble(s.source(), bolt);
                    in += s.grouping() == Grouping.ALL ? carried * tasks(tasksOf, bolt).length : carried;
                }
                if (ready) {
                    rate.put(bolt, in * selectivity.applyAsDouble(bolt));
                    received.put(bolt, in);
                    changed = true;
                }
            }
            if (!changed && rate.keySet().containsAll(bolts)) {
                break;
            }
        }
        return rate;
    }

    /**
     * The offline task graph over placement units (Storm's executors, JStorm's tasks).
     *
     * @param tasksOf the task ids of each component
     * @param unitOfTask the unit of every task id, -1 for a task not placed
     * @param units number of units (vertices)
     */
    public TaskGraph taskGraph(Map<String, int[]> tasksOf, int[] unitOfTask, int units) {
        Map<String, Double> rate = componentRates(tasksOf);
        TaskGraph.Builder builder = TaskGraph.builder(units);
        double[] taskLoad = new double[unitOfTask.length];
        for (Map.Entry<String, Boolean> c : spoutByComponent.entrySet()) {
            if (c.getValue()) {
                for (int task : tasks(tasksOf, c.getKey())) {
                    taskLoad[task] += 1;
                }
            }
        }
        for (Stream s : streams) {
            int[] sources = tasks(tasksOf, s.source());
            int[] targets = tasks(tasksOf, s.target());
            double streamRate = rate.getOrDefault(s.source(), 0.0);
            if (sources.length > 0 && targets.length > 0 && streamRate > 0) {
                addStream(builder, taskLoad, unitOfTask, sources, targets, streamRate, s.grouping());
            }
        }
        double[] unitLoad = new double[units];
        for (int t = 0; t < taskLoad.length; t++) {
            if (unitOfTask[t] >= 0) {
                unitLoad[unitOfTask[t]] += taskLoad[t];
            }
        }
        double smallest = smallestPositive(unitLoad);
        for (int i = 0; i < units; i++) {
            builder.weight(i, unitLoad[i] > 0 ? unitLoad[i] : smallest);
        }
        return builder.build();
    }

    /** The load a unit that receives nothing is given: the smallest positive load, 1 when there is none. */
    public static double smallestPositive(double[] loads) {
        double smallest = Double.POSITIVE_INFINITY;
        for (double l : loads) {
            if (l > 0) {
                smallest = Math.min(smallest, l);
            }
        }
        return smallest == Double.POSITIVE_INFINITY ? 1 : smallest;
    }

    private static int[] tasks(Map<String, int[]> tasksOf, String component) {
        int[] tasks = tasksOf.get(component);
        return tasks == null ? new int[0] : tasks;
    }

    private static void addStream(TaskGraph.Builder builder, double[] taskLoad, int[] unitOfTask, int[] sources,
                                  int[] targets, double streamRate, Grouping grouping) {
        double perSource = streamRate / sources.length;
        switch (grouping) {
            case ALL -> {
                for (int s : sources) {
                    for (int d : targets) {
                        link(builder, taskLoad, unitOfTask, s, d, perSource);
                    }
                }
            }
            case GLOBAL -> {
                for (int s : sources) {
                    link(builder, taskLoad, unitOfTask, s, targets[0], perSource);
                }
            }
            case LOCAL_OR_SHUFFLE -> {
                for (int i = 0; i < sources.length; i++) {
                    int from = (int) ((long) i * targets.length / sources.length);
                    int to = targets.length >= sources.length
                            ? (int) ((long) (i + 1) * targets.length / sources.length)
                            : from + 1;
                    double each = perSource / (to - from);
                    for (int j = from; j < to; j++) {
                        link(builder, taskLoad, unitOfTask, sources[i], targets[j], each);
                    }
                }
            }
            case SPREAD -> {
                double each = perSource / targets.length;
                for (int s : sources) {
                    for (int d : targets) {
                        link(builder, taskLoad, unitOfTask, s, d, each);
                    }
                }
            }
        }
    }

    private static void link(TaskGraph.Builder builder, double[] taskLoad, int[] unitOfTask, int sourceTask,
                             int targetTask, double amount) {
        if (targetTask < taskLoad.length) {
            taskLoad[targetTask] += amount;
        }
        int a = sourceTask < unitOfTask.length ? unitOfTask[sourceTask] : -1;
        int b = targetTask < unitOfTask.length ? unitOfTask[targetTask] : -1;
        if (a >= 0 && b >= 0) {
            builder.addTraffic(a, b, amount);
        }
    }
}
