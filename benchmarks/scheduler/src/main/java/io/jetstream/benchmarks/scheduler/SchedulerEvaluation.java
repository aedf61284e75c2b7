package io.jetstream.benchmarks.scheduler;

import io.jetstream.core.plot.Chart;
import io.jetstream.scheduler.storm.JetStreamScheduler;
import io.jetstream.scheduler.traffic.DirectoryTrafficStore;
import io.jetstream.scheduler.traffic.TaskTraffic;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.storm.Config;
import org.apache.storm.metric.StormMetricsRegistry;
import org.apache.storm.scheduler.Cluster;
import org.apache.storm.scheduler.DefaultScheduler;
import org.apache.storm.scheduler.EvenScheduler;
import org.apache.storm.scheduler.ExecutorDetails;
import org.apache.storm.scheduler.IScheduler;
import org.apache.storm.scheduler.SchedulerAssignment;
import org.apache.storm.scheduler.SupervisorDetails;
import org.apache.storm.scheduler.Topologies;
import org.apache.storm.scheduler.TopologyDetails;
import org.apache.storm.scheduler.WorkerSlot;
import org.apache.storm.scheduler.resource.ResourceAwareScheduler;
import org.apache.storm.scheduler.resource.normalization.ResourceMetrics;
import org.apache.storm.utils.Utils;

/**
 * JetStream's scheduler against Storm's even, default and resource-aware schedulers, all run on the
 * same generated topologies and the same {@link Cluster}s, every placement judged by the traffic Storm's
 * groupings would really carry ({@link TrueTraffic}): share of it crossing nodes, max/mean node load,
 * scheduling time. Prints one table per grouping kind, the scale test (1,000 executors), and writes
 * the trade-off figure (traffic vs allowed imbalance) when {@code -Djetstream.plots.dir} is set.
 *
 * <p>Run: {@code ./mvnw -q -Pscheduler-eval -DskipTests package -pl benchmarks/scheduler -am}
 */
public final class SchedulerEvaluation {
    /** Clusters: nodes x slots per node. */
    static final int[][] CLUSTERS = {{2, 2}, {4, 4}, {8, 2}, {8, 8}, {16, 4}, {16, 8}};
    static final String OURS = "jetstream";
    static final List<String> SCHEDULERS = List.of("even", "default", "ras", OURS);

    /** Executors per slot of the generated topologies ({@code --executors-per-slot}). */
    static int executorsPerSlot = 2;

    record Outcome(double crossFraction, double maxOverMean, double millis) {}

    public static void main(String[] args) throws Exception {
        Locale.setDefault(Locale.ROOT);
        // Every scheduler logs each placement at INFO; the tables are the output.
        org.apache.logging.log4j.core.config.Configurator.setRootLevel(org.apache.logging.log4j.Level.ERROR);
        org.apache.logging.log4j.core.config.Configurator.setAllLevels("", org.apache.logging.log4j.Level.ERROR);
        Map<String, Object> options = new HashMap<>();
        List<TopologyFamilies.Grouping> kinds = new ArrayList<>(List.of(TopologyFamilies.Grouping.values()));
        boolean scale = true;
        boolean verbose = false;
        boolean tradeOff = true;
        boolean bounds = false;
        for (String arg : args) {
            if (arg.startsWith("jetstream.scheduler.") && arg.contains("=")) {
                options.put(arg.substring(0, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
            } else if (arg.startsWith("--kinds=")) {
                kinds.clear();
                for (String k : arg.substring(8).split(",")) {
                    kinds.add(TopologyFamilies.Grouping.valueOf(k.toUpperCase(Locale.ROOT).replace('-', '_')));
                }
            } else if (arg.startsWith("--executors-per-slot=")) {
                executorsPerSlot = Integer.parseInt(arg.substring(arg.indexOf('=') + 1));
                if (executorsPerSlot < 1) {
                    throw new IllegalArgumentException("--executors-per-slot must be >= 1: " + arg);
                }
            } else if (arg.equals("--verbose")) {
                verbose = true;
            } else if (arg.equals("--no-tables")) {
                kinds.clear();
            } else if (arg.equals("--no-scale")) {
                scale = false;
            } else if (arg.equals("--no-tradeoff")) {
                tradeOff = false;
            } else if (arg.equals("--bounds")) {
                bounds = true;
            } else {
                throw new IllegalArgumentException("unknown argument " + arg + "; known: jetstream.scheduler.<option>=<value>, "
                        + "--kinds=shuffle,local-or-shuffle,skewed, --executors-per-slot=N (2), --no-tables, --no-scale, --no-tradeoff, --bounds, --verbose");
            }
        }
        System.out.println("JetStream options: " + (options.isEmpty() ? "defaults" : options));
        Path trafficDir = Files.createTempDirectory("jetstream-eval-traffic");
        Map<TopologyFamilies.Grouping, Map<String, Map<String, double[]>>> all = new LinkedHashMap<>();
        for (TopologyFamilies.Grouping kind : kinds) {
            Map<String, Map<String, double[]>> byFamily = new LinkedHashMap<>();
            for (String family : TopologyFamilies.NAMES) {
                Map<String, double[]> sums = new LinkedHashMap<>();
                for (int[] shape : CLUSTERS) {
                    Case c = Case.of(family, kind, shape[0], shape[1], 17 * shape[0] + shape[1]);
                    for (String scheduler : SCHEDULERS) {
                        Outcome o = c.run(scheduler, scheduler.equals(OURS) ? options : Map.of(), trafficDir);
                        if (verbose) {
                            System.out.printf("  %s %s %dx%d (%d executors) %s: traffic %.3f load %.2f%n", family, kind,
                                    shape[0], shape[1], c.executorCount(), scheduler, o.crossFraction(), o.maxOverMean());
                        }
                        double[] s = sums.computeIfAbsent(scheduler, k -> new double[4]);
                        s[0] += o.crossFraction();
                        s[1] += o.maxOverMean();
                        s[2] = Math.max(s[2], o.millis());
                        s[3]++;
                    }
                }
                byFamily.put(family, sums);
            }
            all.put(kind, byFamily);
            print(kind, byFamily);
        }
        if (!all.isEmpty()) {
            summary(all);
        }
        if (scale) {
            scale(trafficDir);
        }
        if (tradeOff) {
            tradeOff(trafficDir);
        }
        if (bounds) {
            bounds(options, trafficDir);
        }
        // Storm's schedulers leave non-daemon threads behind; this is a command-line run, so end it.
        System.exit(0);
    }

    private static void print(TopologyFamilies.Grouping kind, Map<String, Map<String, double[]>> byFamily) {
        System.out.printf("%n## %s groupings (%s), mean over %d clusters%n", kind.name().toLowerCase(Locale.ROOT),
                kind == TopologyFamilies.Grouping.SKEWED ? "JetStream online, from recorded traffic"
                        : "JetStream offline, from structure", CLUSTERS.length);
        System.out.println("| family | inter-node traffic even / default / RAS / JetStream | JetStream / even "
                + "| max/mean node load even / default / RAS / JetStream | JetStream max ms |");
        System.out.println("|---|---|---|---|---|");
        for (Map.Entry<String, Map<String, double[]>> f : byFamily.entrySet()) {
            Map<String, double[]> s = f.getValue();
            System.out.printf("| %s | %.3f / %.3f / %.3f / %.3f | %.2f | %.2f / %.2f / %.2f / %.2f | %.1f |%n",
                    f.getKey(), mean(s, "even", 0), mean(s, "default", 0), mean(s, "ras", 0), mean(s, OURS, 0),
                    mean(s, OURS, 0) / mean(s, "even", 0), mean(s, "even", 1), mean(s, "default", 1),
                    mean(s, "ras", 1), mean(s, OURS, 1), s.get(OURS)[2]);
        }
    }

    private static void summary(Map<TopologyFamilies.Grouping, Map<String, Map<String, double[]>>> all) {
        System.out.println();
        System.out.println("## Summary: JetStream / even inter-node traffic, averaged over families");
        for (var kind : all.entrySet()) {
            double ratio = 0;
            double worstLoad = 0;
            int n = 0;
            for (Map<String, double[]> s : kind.getValue().values()) {
                ratio += mean(s, OURS, 0) / mean(s, "even", 0);
                worstLoad = Math.max(worstLoad, mean(s, OURS, 1));
                n++;
            }
            System.out.printf("- %s: %.2f x even (worst family mean max/mean node load %.2f)%n",
                    kind.getKey().name().toLowerCase(Locale.ROOT), ratio / n, worstLoad);
        }
    }

    private static double mean(Map<String, double[]> sums, String scheduler, int field) {
        double[] s = sums.get(scheduler);
        return s[field] / s[3];
    }

    /** 1,000 executors on 16 nodes x 8 slots: scheduling time of every scheduler. */
    private static void scale(Path trafficDir) throws Exception {
        System.out.println();
        System.out.println("## Scale: WordCount, random DAG and linear pipeline with about 1,000 executors, 16 nodes x 8 slots");
        for (String family : List.of("wordcount", "random-dag", "linear")) {
            for (TopologyFamilies.Grouping kind : List.of(TopologyFamilies.Grouping.SHUFFLE,
                    TopologyFamilies.Grouping.LOCAL_OR_SHUFFLE, TopologyFamilies.Grouping.SKEWED)) {
                Case c = Case.ofExecutors(family, kind, 16, 8, 1000, 99);
                StringBuilder line = new StringBuilder(String.format("- %s, %s, %d executors:", family,
                        kind.name().toLowerCase(Locale.ROOT), c.executorCount()));
                for (String scheduler : SCHEDULERS) {
                    Outcome best = null;
                    try {
                        for (int rep = 0; rep < 3; rep++) { // warm: report the fastest of three
                            Outcome o = c.run(scheduler, Map.of(), trafficDir);
                            best = best == null || o.millis() < best.millis() ? o : best;
                        }
                    } catch (IllegalStateException e) {
                        line.append(String.format(" %s could not place it (%s);", scheduler,
                                e.getMessage().replaceAll(".*unassigned: ", "")));
                        continue;
                    }
                    line.append(String.format(" %s %.0f ms (traffic %.3f, load %.2f);", scheduler, best.millis(),
                            best.crossFraction(), best.maxOverMean()));
                }
                System.out.println(line);
            }
        }
    }

    /**
     * Shuffle groupings from structure: how far below the even scheduler's inter-node traffic any
     * placement can go whose nodes each carry at most {@code cap} × the mean load ({@link PlacementBound}),
     * for the target's 1.15 (or JetStream's own load where no placement meets 1.15) and for 1.3, next to
     * what JetStream reaches. Averaged like the tables: per family the mean over clusters, then over families.
     */
    private static void bounds(Map<String, Object> options, Path trafficDir) throws Exception {
        System.out.println();
        System.out.println("## Bounds: shuffle from structure, the least inter-node traffic any placement can have");
        System.out.println("| family | cluster | even | JetStream (load) | bound at max(1.15, JetStream's load) | bound at 1.3 | method, node configurations |");
        System.out.println("|---|---|---:|---:|---:|---:|---|");
        double sumOurs = 0;
        double sumTight = 0;
        double sumLoose = 0;
        for (String family : TopologyFamilies.NAMES) {
            double even = 0;
            double ours = 0;
            double tight = 0;
            double loose = 0;
            for (int[] shape : CLUSTERS) {
                Case c = Case.of(family, TopologyFamilies.Grouping.SHUFFLE, shape[0], shape[1], 17 * shape[0] + shape[1]);
                Outcome e = c.run("even", Map.of(), trafficDir);
                Outcome o = c.run(OURS, options, trafficDir);
                PlacementBound.Structure s = PlacementBound.of(c.generated, c.tasksOf, c.taskCount, c.kind);
                double mean = s.totalLoad() / c.nodes;
                double capRatio = Math.max(1.15, o.maxOverMean() + 1e-9);
                long start = System.nanoTime();
                PlacementBound.Bound b = PlacementBound.maxLocal(s, c.nodes, capRatio * mean);
                PlacementBound.Bound b13 = PlacementBound.maxLocal(s, c.nodes, Math.max(1.3, capRatio) * mean);
                double seconds = (System.nanoTime() - start) / 1e9;
                double lower = 1 - b.maxLocal() / s.totalTraffic();
                double lower13 = 1 - b13.maxLocal() / s.totalTraffic();
                System.out.printf("| %s | %dx%d | %.3f | %.3f (%.2f) | %.3f | %.3f | %s / %s, %,d configurations, %.1f s |%n",
                        family, shape[0], shape[1], e.crossFraction(), o.crossFraction(), o.maxOverMean(), lower, lower13,
                        b.exact() ? "exact" : "Lagrangian", b13.exact() ? "exact" : "Lagrangian", b.configurations(), seconds);
                even += e.crossFraction();
                ours += o.crossFraction();
                tight += lower;
                loose += lower13;
            }
            System.out.printf("| **%s** | mean | %.3f | %.3f (%.2f x even) | %.3f (%.2f x even) | %.3f (%.2f x even) | |%n", family,
                    even / CLUSTERS.length, ours / CLUSTERS.length, ours / even, tight / CLUSTERS.length, tight / even,
                    loose / CLUSTERS.length, loose / even);
            sumOurs += ours / even;
            sumTight += tight / even;
            sumLoose += loose / even;
            System.out.flush();
        }
        int families = TopologyFamilies.NAMES.size();
        System.out.printf("- averaged over families: JetStream %.3f x even; no placement within max(1.15, JetStream's load) "
                + "goes below %.3f x even, none within 1.3 below %.3f x even%n", sumOurs / families, sumTight / families,
                sumLoose / families);
    }

    /** Traffic against allowed imbalance: JetStream's balance factor swept, the stock schedulers as points. */
    private static void tradeOff(Path trafficDir) throws Exception {
        double[] factors = {0.05, 0.1, 0.15, 0.3, 0.6, 0.95};
        List<Chart.Panel> panels = new ArrayList<>();
        System.out.println();
        System.out.println("## Trade-off: mean over families and clusters (x = max/mean node load, "
                + "y = inter-node traffic / even), JetStream's balance factor 0.05, 0.1, 0.15 (default), 0.3, 0.6, 0.95");
        for (TopologyFamilies.Grouping kind : TopologyFamilies.Grouping.values()) {
            Chart.Panel panel = new Chart.Panel(kind.name().toLowerCase(Locale.ROOT).replace('_', '-') + " groupings",
                    "max/mean node load", "inter-node traffic / even", false);
            double[] x = new double[factors.length];
            double[] y = new double[factors.length];
            for (int i = 0; i < factors.length; i++) {
                double[] r = averageAgainstEven(kind, OURS, Map.of("jetstream.scheduler.balance-factor", factors[i]),
                        trafficDir);
                x[i] = r[1];
                y[i] = r[0];
            }
            panel.line("JetStream (balance factor 0.05 ... 0.95)", x, y);
            System.out.printf("- %s, JetStream: %s%n", kind.name().toLowerCase(Locale.ROOT), points(x, y));
            for (String stock : List.of("even", "default", "ras")) {
                double[] r = averageAgainstEven(kind, stock, Map.of(), trafficDir);
                // A point: a short horizontal tick at the scheduler's (load, traffic).
                panel.line(stock + " scheduler", new double[] {r[1] - 0.02, r[1] + 0.02}, new double[] {r[0], r[0]});
                System.out.printf("- %s, %s scheduler: (%.2f, %.2f)%n", kind.name().toLowerCase(Locale.ROOT), stock,
                        r[1], r[0]);
            }
            panels.add(panel);
        }
        Chart.write("scheduler-tradeoff.png", 3, panels);
    }

    private static String points(double[] x, double[] y) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < x.length; i++) {
            sb.append(String.format("(%.2f, %.2f) ", x[i], y[i]));
        }
        return sb.toString().trim();
    }

    /** {traffic / even traffic, max/mean load}, each averaged over families and clusters. */
    private static double[] averageAgainstEven(TopologyFamilies.Grouping kind, String scheduler,
                                               Map<String, Object> options, Path trafficDir) throws Exception {
        double ratio = 0;
        double load = 0;
        int n = 0;
        for (String family : TopologyFamilies.NAMES) {
            for (int[] shape : CLUSTERS) {
                Case c = Case.of(family, kind, shape[0], shape[1], 17 * shape[0] + shape[1]);
                Outcome even = c.run("even", Map.of(), trafficDir);
                Outcome o = c.run(scheduler, options, trafficDir);
                ratio += even.crossFraction() == 0 ? 1 : o.crossFraction() / even.crossFraction();
                load += o.maxOverMean();
                n++;
            }
        }
        return new double[] {ratio / n, load / n};
    }

    /** One topology on one cluster. */
    static final class Case {
        final TopologyFamilies.Generated generated;
        final TopologyFamilies.Grouping kind;
        final int nodes;
        final int slotsPerNode;
        final Map<String, int[]> tasksOf;
        final int taskCount;
        final String id;

        private Case(TopologyFamilies.Generated generated, TopologyFamilies.Grouping kind, int nodes, int slotsPerNode) {
            this.generated = generated;
            this.kind = kind;
            this.nodes = nodes;
            this.slotsPerNode = slotsPerNode;
            Map<String, Integer> parallelism = parallelism(generated);
            this.tasksOf = TrueTraffic.tasksByComponent(generated.topology(), parallelism);
            this.taskCount = parallelism.values().stream().mapToInt(Integer::intValue).sum();
            this.id = generated.family() + "-" + kind.name().toLowerCase(Locale.ROOT) + "-" + nodes + "x"
                    + slotsPerNode + "-1";
        }

        /** About {@link #executorsPerSlot} executors per slot. */
        static Case of(String family, TopologyFamilies.Grouping kind, int nodes, int slots, long seed) {
            return ofExecutors(family, kind, nodes, slots, executorsPerSlot * nodes * slots, seed);
        }

        static Case ofExecutors(String family, TopologyFamilies.Grouping kind, int nodes, int slots, int executors,
                                long seed) {
            // Components differ in parallelism (fan-out-in's branches have half, WordCount's middle stages
            // twice the base): scale the base parallelism by the tasks a family has per unit of it.
            int reference = 1000;
            double tasksPerUnit = parallelism(TopologyFamilies.generate(family, reference, kind, seed)).values().stream()
                    .mapToInt(Integer::intValue).sum() / (double) reference;
            int p = Math.max(1, (int) Math.round(executors / tasksPerUnit));
            TopologyFamilies.Generated g = TopologyFamilies.generate(family, p, kind, seed);
            return new Case(g, kind, nodes, slots);
        }

        /** Tasks of every component (one per executor, as generated). */
        private static Map<String, Integer> parallelism(TopologyFamilies.Generated g) {
            Map<String, Integer> parallelism = new HashMap<>();
            g.topology().get_spouts().forEach((k, v) -> parallelism.put(k, v.get_common().get_parallelism_hint()));
            g.topology().get_bolts().forEach((k, v) -> parallelism.put(k, v.get_common().get_parallelism_hint()));
            return parallelism;
        }

        int executorCount() {
            return taskCount;
        }

        Outcome run(String scheduler, Map<String, Object> options, Path trafficDir) throws IOException {
            Map<String, Object> conf = new HashMap<>(Utils.readDefaultConfig());
            conf.put(Config.TOPOLOGY_NAME, id);
            conf.put(Config.TOPOLOGY_WORKERS, nodes * slotsPerNode);
            conf.put(Config.TOPOLOGY_ACKER_EXECUTORS, 0);
            conf.put("jetstream.scheduler.mode", kind == TopologyFamilies.Grouping.SKEWED ? "online" : "offline");
            conf.put("jetstream.scheduler.traffic.dir", trafficDir.toString());
            conf.putAll(options);
            Map<ExecutorDetails, String> executors = new HashMap<>();
            tasksOf.forEach((component, tasks) -> {
                for (int t : tasks) {
                    executors.put(new ExecutorDetails(t, t), component);
                }
            });
            TopologyDetails topology = new TopologyDetails(id, conf, generated.topology(), nodes * slotsPerNode,
                    executors, 0, "evaluation");
            Map<String, SupervisorDetails> supervisors = new HashMap<>();
            for (int n = 0; n < nodes; n++) {
                List<Number> ports = new ArrayList<>();
                for (int p = 0; p < slotsPerNode; p++) {
                    ports.add(6700 + p);
                }
                Map<String, Double> resources = new HashMap<>();
                // Four cores and 8 GiB per node, or room for twice a node's even share of executors
                // (10 % of a core and 128 MB each) when that is more; the 1,000-executor scale test gets
                // 16 cores and 24 GiB so that the resource-aware scheduler can place it at all.
                boolean large = taskCount > 800;
                double perNode = (double) taskCount / nodes;
                resources.put(Config.SUPERVISOR_CPU_CAPACITY, large ? 1600.0 : Math.max(400.0, 2 * perNode * 10));
                resources.put(Config.SUPERVISOR_MEMORY_CAPACITY_MB, large ? 24576.0 : Math.max(8192.0, 2 * perNode * 128));
                String sid = "sup-" + n;
                supervisors.put(sid, new SupervisorDetails(sid, "host-" + n, null, ports, resources));
            }
            if (scheduler.equals(OURS) && kind == TopologyFamilies.Grouping.SKEWED) {
                recordTraffic(new DirectoryTrafficStore(trafficDir));
            }
            Topologies topologies = new Topologies(topology);
            Cluster cluster = new Cluster(new EvaluationNimbus(), new ResourceMetrics(new StormMetricsRegistry()),
                    supervisors, new HashMap<>(), topologies, conf);
            IScheduler s = newScheduler(scheduler);
            s.prepare(conf, new StormMetricsRegistry());
            long start = System.nanoTime();
            s.schedule(topologies, cluster);
            double millis = (System.nanoTime() - start) / 1e6;
            SchedulerAssignment assignment = cluster.getAssignmentById(id);
            if (assignment == null || assignment.getExecutorToSlot().size() != executors.size()) {
                throw new IllegalStateException(scheduler + " left executors of " + id + " unassigned: "
                        + cluster.getStatusMap().get(id));
            }
            int[] nodeOf = new int[taskCount + 1];
            int[] workerOf = new int[taskCount + 1];
            Map<WorkerSlot, Integer> workerIds = new HashMap<>();
            for (Map.Entry<ExecutorDetails, WorkerSlot> e : assignment.getExecutorToSlot().entrySet()) {
                int task = e.getKey().getStartTask();
                nodeOf[task] = Integer.parseInt(e.getValue().getNodeId().substring(4));
                workerOf[task] = workerIds.computeIfAbsent(e.getValue(), k -> workerIds.size());
            }
            TrueTraffic truth = TrueTraffic.of(generated, tasksOf, taskCount, kind, workerOf);
            return new Outcome(truth.crossFraction(nodeOf), truth.maxOverMeanLoad(nodeOf, nodes), millis);
        }

        /** What the traffic hook would have recorded: the true pair rates (placement-independent here). */
        private void recordTraffic(DirectoryTrafficStore store) throws IOException {
            TrueTraffic truth = TrueTraffic.of(generated, tasksOf, taskCount, kind, null);
            long now = System.currentTimeMillis();
            for (int s = 1; s <= taskCount; s++) {
                Map<Integer, Double> to = new HashMap<>();
                for (int d = 1; d <= taskCount; d++) {
                    if (truth.traffic[s][d] > 0) {
                        to.put(d, truth.traffic[s][d]);
                    }
                }
                store.write(id, new TaskTraffic(s, now, truth.load[s] * 1000, to));
            }
        }

        private static IScheduler newScheduler(String name) {
            Supplier<IScheduler> s = switch (name) {
                case "even" -> EvenScheduler::new;
                case "default" -> DefaultScheduler::new;
                case "ras" -> ResourceAwareScheduler::new;
                case OURS -> JetStreamScheduler::new;
                default -> throw new IllegalArgumentException(name);
            };
            return s.get();
        }
    }
}
