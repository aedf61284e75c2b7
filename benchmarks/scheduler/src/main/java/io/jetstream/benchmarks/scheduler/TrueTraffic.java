package io.jetstream.benchmarks.scheduler;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.storm.generated.Bolt;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.generated.StormTopology;

/**
 * The traffic a placed topology really carries, as Storm's groupings deliver it: every spout task
 * emits one tuple per unit time, a task emits what it receives times its component's selectivity;
 * shuffle and fields groupings spread a task's output evenly over the target tasks; local-or-shuffle
 * sends it to the target tasks in the sender's worker when there are any (evenly over all otherwise);
 * the skewed fields grouping sends each source task's output over the targets with Zipf(1.5) weights in
 * an order of its own (its keys live mostly in a few partitions). This is the yardstick every scheduler's
 * placement is measured with; the schedulers never see it, except JetStream's online mode, which reads
 * it as recorded traffic.
 */
final class TrueTraffic {
    final int tasks;            // task ids 1..tasks; index 0 unused
    final double[][] traffic;   // traffic[s][d], tuples per unit time
    final double[] load;        // tuples received (emitted, for spouts) per task

    private TrueTraffic(int tasks) {
        this.tasks = tasks;
        this.traffic = new double[tasks + 1][tasks + 1];
        this.load = new double[tasks + 1];
    }

    /**
     * @param workerOf worker of each task id (any numbering), used only by local-or-shuffle; null
     *     means "no placement yet" (local-or-shuffle then behaves as shuffle)
     */
    static TrueTraffic of(TopologyFamilies.Generated generated, Map<String, int[]> tasksOf, int taskCount,
                          TopologyFamilies.Grouping kind, int[] workerOf) {
        TrueTraffic t = new TrueTraffic(taskCount);
        StormTopology topology = generated.topology();
        double[] out = new double[taskCount + 1];
        for (String spout : topology.get_spouts().keySet()) {
            for (int task : tasksOf.get(spout)) {
                out[task] = 1;
                t.load[task] += 1;
            }
        }
        // Bolts in dependency order (the generated topologies are DAGs).
        List<String> order = new ArrayList<>();
        Map<String, Bolt> bolts = new LinkedHashMap<>(topology.get_bolts());
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
        for (String bolt : order) {
            int[] targets = tasksOf.get(bolt);
            double[] in = new double[taskCount + 1];
            for (Map.Entry<GlobalStreamId, Grouping> input :
                    topology.get_bolts().get(bolt).get_common().get_inputs().entrySet()) {
                int[] sources = tasksOf.get(input.getKey().get_componentId());
                for (int s : sources) {
                    double[] share = share(s, targets, input.getValue(), kind, workerOf);
                    for (int j = 0; j < targets.length; j++) {
                        double amount = out[s] * share[j];
                        t.traffic[s][targets[j]] += amount;
                        in[targets[j]] += amount;
                    }
                }
            }
            // Selectivities (WordCount's five words a sentence, the random DAG's skewed edge weights) are
            // what only measurement reveals: they apply in the online (skewed) evaluation; the offline
            // ones judge each scheduler on the traffic the structure implies.
            double selectivity = kind == TopologyFamilies.Grouping.SKEWED
                    ? generated.selectivity().getOrDefault(bolt, 1.0) : 1.0;
            for (int d : targets) {
                t.load[d] += in[d];
                out[d] = in[d] * selectivity;
            }
        }
        return t;
    }

    private static double[] share(int source, int[] targets, Grouping grouping, TopologyFamilies.Grouping kind,
                                  int[] workerOf) {
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
        if (kind == TopologyFamilies.Grouping.SKEWED && grouping.is_set_fields()) {
            // Zipf(1.5) over the targets, in an order fixed per source task.
            List<Integer> order = new ArrayList<>();
            for (int j = 0; j < targets.length; j++) {
                order.add(j);
            }
            java.util.Collections.shuffle(order, new Random(source * 7919L + targets[0]));
            double sum = 0;
            for (int r = 0; r < targets.length; r++) {
                share[order.get(r)] = 1 / Math.pow(r + 1, 1.5);
                sum += share[order.get(r)];
            }
            for (int j = 0; j < targets.length; j++) {
                share[j] /= sum;
            }
            return share;
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
