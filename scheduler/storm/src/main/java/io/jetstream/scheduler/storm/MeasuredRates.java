package io.jetstream.scheduler.storm;

import io.jetstream.scheduler.traffic.TaskTraffic;
import io.jetstream.scheduler.traffic.TrafficSnapshot;
import java.util.HashMap;
import java.util.Map;
import org.apache.storm.scheduler.ExecutorDetails;

/**
 * What a topology's traffic records say about its rates, in the terms {@link GroupingObjective} replays
 * Storm's routing with: how much each spout task emits; for each bolt, tuples out per tuple in
 * (selectivity); for each component, CPU time per tuple it receives (emits, for a spout); the share of
 * a component's output each of its downstream components receives; and, for each stream, the share
 * each target task received (a fields grouping's keys). Rates that depend on the placement (which
 * local-or-shuffle target a tuple went to) are not kept: the objective routes them again.
 *
 * <p>Immutable; thread-safe.
 */
final class MeasuredRates {
    private final Map<Integer, Double> emitted;
    private final Map<String, Double> received;
    private final Map<String, Double> output;
    private final Map<String, Double> cpu;
    private final Map<String, Double> streamRate;
    private final Map<Long, Double> pairRate;
    private final boolean anyCpu;

    private MeasuredRates(Map<Integer, Double> emitted, Map<String, Double> received, Map<String, Double> output,
                          Map<String, Double> cpu, Map<String, Double> streamRate, Map<Long, Double> pairRate,
                          boolean anyCpu) {
        this.emitted = emitted;
        this.received = received;
        this.output = output;
        this.cpu = cpu;
        this.streamRate = streamRate;
        this.pairRate = pairRate;
        this.anyCpu = anyCpu;
    }

    static MeasuredRates of(TrafficSnapshot traffic, Map<ExecutorDetails, String> executorToComponent) {
        Map<Integer, String> componentOfTask = new HashMap<>();
        executorToComponent.forEach((e, c) -> {
            for (int t = e.getStartTask(); t <= e.getEndTask(); t++) {
                componentOfTask.put(t, c);
            }
        });
        Map<Integer, Double> emitted = new HashMap<>();
        Map<String, Double> received = new HashMap<>();
        Map<String, Double> output = new HashMap<>();
        Map<String, Double> cpu = new HashMap<>();
        Map<String, Double> streamRate = new HashMap<>();
        Map<Long, Double> pairRate = new HashMap<>();
        boolean anyCpu = false;
        for (TaskTraffic task : traffic.tasks()) {
            String source = componentOfTask.get(task.taskId());
            if (source == null) {
                continue;
            }
            cpu.merge(source, task.cpuNanosPerSecond(), Double::sum);
            anyCpu |= task.cpuNanosPerSecond() > 0;
            for (Map.Entry<Integer, Double> to : task.tuplesPerSecondTo().entrySet()) {
                String target = componentOfTask.get(to.getKey());
                if (target == null) {
                    continue;
                }
                double r = to.getValue();
                emitted.merge(task.taskId(), r, Double::sum);
                output.merge(source, r, Double::sum);
                received.merge(target, r, Double::sum);
                streamRate.merge(stream(source, target), r, Double::sum);
                pairRate.merge(((long) task.taskId() << 32) | to.getKey(), r, Double::sum);
            }
        }
        return new MeasuredRates(emitted, received, output, cpu, streamRate, pairRate, anyCpu);
    }

    private static String stream(String source, String target) {
        return source + "\u0000" + target;
    }

    /** Tuples per second the task sent to all its targets. */
    double emitted(int taskId) {
        return emitted.getOrDefault(taskId, 0.0);
    }

    /** Tuples out per tuple in (1 when the component received nothing). */
    double selectivity(String component) {
        double in = received.getOrDefault(component, 0.0);
        return in > 0 ? output.getOrDefault(component, 0.0) / in : 1;
    }

    /**
     * Load per tuple the component receives ({@code spout}: emits): its CPU time per tuple when the
     * records carry CPU time, 1 otherwise (the load is then the tuples).
     */
    double cost(String component, boolean spout) {
        if (!anyCpu) {
            return 1;
        }
        double tuples = spout ? output.getOrDefault(component, 0.0) : received.getOrDefault(component, 0.0);
        return tuples > 0 ? cpu.getOrDefault(component, 0.0) / tuples : 0;
    }

    /** The share of {@code source}'s output that {@code target} received. */
    double streamShare(String source, String target) {
        double out = output.getOrDefault(source, 0.0);
        return out > 0 ? streamRate.getOrDefault(stream(source, target), 0.0) / out : 0;
    }

    /**
     * The share of the stream {@code source} -> {@code target} each target task received (by its key),
     * or null when the stream carried nothing.
     */
    double[] targetShares(String source, int[] sourceTasks, int[] targetTasks) {
        double[] share = new double[targetTasks.length];
        double sum = 0;
        for (int j = 0; j < targetTasks.length; j++) {
            for (int s : sourceTasks) {
                share[j] += pairRate.getOrDefault(((long) s << 32) | targetTasks[j], 0.0);
            }
            sum += share[j];
        }
        if (sum == 0) {
            return null;
        }
        for (int j = 0; j < share.length; j++) {
            share[j] /= sum;
        }
        return share;
    }
}
