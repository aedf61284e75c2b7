package io.jetstream.benchmarks.scheduler;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.generated.Bolt;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.generated.StormTopology;

/**
 * The traffic a placed topology really carries, as Storm's groupings deliver it, under a
 * {@link RateModel}: every spout task emits one tuple per unit time; a bolt task emits what it receives
 * times its component's selectivity, and each of a component's streams carries its output times the
 * stream's multiplier; shuffle groupings spread a task's output evenly over the target tasks, fields
 * groupings by the model's key shares (evenly under {@link RateModel#UNIFORM}); local-or-shuffle sends
 * it to the target tasks in the sender's worker when there are any (evenly over all otherwise). A
 * task's load is the tuples it receives (emits, for a spout) times its component's cost per tuple.
 * This is the yardstick every scheduler's placement is measured with; the schedulers never see it,
 * except JetStream's online mode, which reads it as recorded traffic.
 */
final class TrueTraffic {
    final int tasks;            // task ids 1..tasks; index 0 unused
    final double[][] traffic;   // traffic[s][d], tuples per unit time
    final double[] load;        // CPU per unit time of each task: tuples received (emitted, for spouts) x cost

    private TrueTraffic(int tasks) {
        this.tasks = tasks;
        this.traffic = new double[tasks + 1][tasks + 1];
        this.load = new double[tasks + 1];
    }

    /**
     * @param workerOf worker of each task id (any numbering), used only by local-or-shuffle; null
     *     means "no placement yet" (local-or-shuffle then behaves as shuffle)
     */
    static TrueTraffic of(StormTopology topology, Map<String, int[]> tasksOf, int taskCount, RateModel rates,
                          int[] workerOf) {
        TrueTraffic t = new TrueTraffic(taskCount);
        double[] out = new double[taskCount + 1];
        for (String spout : topology.get_spouts().keySet()) {
            for (int task : tasksOf.get(spout)) {
                out[task] = 1;
                t.load[task] += rates.cost(spout);
            }
        }
        for (String bolt : dependencyOrder(topology)) {
            int[] targets = tasksOf.get(bolt);
            double[] in = new double[taskCount + 1];
            for (Map.Entry<GlobalStreamId, Grouping> input :
                    topology.get_bolts().get(bolt).get_common().get_inputs().entrySet()) {
                String source = input.getKey().get_componentId();
                double multiplier = rates.multiplier(source, bolt);
                double[] keyShares = rates.keyShares(source, bolt);
                for (int s : tasksOf.get(source)) {
                    double[] share = share(s, targets, input.getValue(), keyShares, workerOf);
                    for (int j = 0; j < targets.length; j++) {
                        double amount = out[s] * multiplier * share[j];
                        t.traffic[s][targets[j]] += amount;
                        in[targets[j]] += amount;
                    }
                }
            }
            double selectivity = rates.selectivity(bolt);
            double cost = rates.cost(bolt);
            for (int d : targets) {
                t.load[d] += in[d] * cost;
                out[d] = in[d] * selectivity;
            }
        }
        return t;
    }

    /** Bolts in dependency order (the generated topologies are DAGs). */
    private static List<String> dependencyOrder(StormTopology topology) {
        List<String> order = new ArrayList<>();
        Map<String, Bolt> bolts = new LinkedHashMap<>(new java.util.TreeMap<>(topology.get_bolts()));
        while (!bolts.isEmpty()) {
            boolean progress = false;
            for (var it = bolts.entrySet().iterator(); it.hasNext(); ) {
                var e = it.next();
                boolean ready = true;
                for (GlobalStreamId in : e.getValue().get_common().get_inputs().keySet()) {
                    if (bolts.containsKey(in.get_componentId())) {
                        ready = false;
                    }
                }
                if (ready) {
                    order.add(e.getKey());
                    it.remove();
                    progress = true;
                }
            }
            if (!progress) {
                throw new IllegalStateException("cycle in generated topology");
            }
        }
        return order;
    }

    private static double[] share(int source, int[] targets, Grouping grouping, double[] keyShares, int[] workerOf) {
        double[] share = new double[targets.length];
        if (grouping.is_set_local_or_shuffle() && workerOf != null) {
            int local = 0;
            for (int d : targets) {
                if (workerOf[d] == workerOf[source]) {
                    local++;
                }
            }
            if (local > 0) {
                for (int j = 0; j < targets.length; j++) {
                    share[j] = workerOf[targets[j]] == workerOf[source] ? 1.0 / local : 0;
                }
                return share;
            }
        }
        if (keyShares != null) {
            return keyShares;
        }
        java.util.Arrays.fill(share, 1.0 / targets.length);
        return share;
    }

    double total() {
        double sum = 0;
        for (double[] row : traffic) {
            for (double v : row) {
                sum += v;
            }
        }
        return sum;
    }

    /** Share of the traffic between tasks on different nodes. */
    double crossFraction(int[] nodeOf) {
        double cross = 0;
        for (int s = 1; s <= tasks; s++) {
            for (int d = 1; d <= tasks; d++) {
                if (traffic[s][d] > 0 && nodeOf[s] != nodeOf[d]) {
                    cross += traffic[s][d];
                }
            }
        }
        double total = total();
        return total == 0 ? 0 : cross / total;
    }

    /** Highest node load over the mean over all {@code nodes} of the cluster. */
    double maxOverMeanLoad(int[] nodeOf, int nodes) {
        double[] perNode = new double[nodes];
        double sum = 0;
        for (int task = 1; task <= tasks; task++) {
            perNode[nodeOf[task]] += load[task];
            sum += load[task];
        }
        double max = 0;
        for (double l : perNode) {
            max = Math.max(max, l);
        }
        return max / (sum / nodes);
    }

    /**
     * The least max/mean node load any placement on {@code nodes} nodes can have: 1, or the heaviest
     * task's load over the mean node's when one task alone is more than a node's share.
     */
    double maxOverMeanFloor(int nodes) {
        double sum = 0;
        double heaviest = 0;
        for (int task = 1; task <= tasks; task++) {
            sum += load[task];
            heaviest = Math.max(heaviest, load[task]);
        }
        return Math.max(1, heaviest / (sum / nodes));
    }

    static Map<String, int[]> tasksByComponent(StormTopology topology, Map<String, Integer> parallelism) {
        Map<String, int[]> out = new HashMap<>();
        List<String> names = new ArrayList<>(parallelism.keySet());
        java.util.Collections.sort(names);
        int next = 1;
        for (String name : names) {
            int[] ids = new int[parallelism.get(name)];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = next++;
            }
            out.put(name, ids);
        }
        return out;
    }
}
