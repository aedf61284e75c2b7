package io.jetstream.benchmarks.scheduler;

import io.jetstream.harness.Median;
import io.jetstream.harness.plot.Figure;
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
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.apache.storm.Config;
import org.apache.storm.metric.StormMetricsRegistry;
import org.apache.storm.scheduler.Cluster;
import org.apache.storm.scheduler.DefaultScheduler;
import org.apache.storm.scheduler.EvenScheduler;
import org.apache.storm.scheduler.ExecutorDetails;
import org.apache.storm.scheduler.IScheduler;
import org.apache.storm.scheduler.SchedulerAssignment;
import org.apache.storm.scheduler.SchedulerAssignmentImpl;
import org.apache.storm.scheduler.SupervisorDetails;
import org.apache.storm.scheduler.Topologies;
import org.apache.storm.scheduler.TopologyDetails;
import org.apache.storm.scheduler.WorkerSlot;
import org.apache.storm.scheduler.resource.ResourceAwareScheduler;
import org.apache.storm.scheduler.resource.normalization.ResourceMetrics;
import org.apache.storm.utils.Utils;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * JetStream's scheduler against Storm's even, default and resource-aware schedulers, all run on the
 * same generated topologies and the same {@link Cluster}s, every placement judged by the traffic Storm's
 * groupings really carry under rates no scheduler sees from the structure ({@link RateModel}, several
 * random draws per case, scored by {@link TrueTraffic}): the share of the traffic crossing nodes, the
 * max/mean node load, scheduling time. JetStream runs as in production, online: it places from
 * structure (rates unknown), the true rates of that placement are recorded as its traffic hook would,
 * and after the rebalance period it re-plans from them and redeploys by itself when its policy says
 * it pays (rates measured). Prints a table per grouping kind and stage, the bound check (uniform rates),
 * the scale test (1,000 executors), and writes the trade-off figure when {@code -Djetstream.plots.dir} is set.
 *
 * <p>Run: {@code ./mvnw -q -Pscheduler-eval -DskipTests package -pl benchmarks/scheduler -am}
 */
@Command(name = "SchedulerEvaluation", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Storm's schedulers against JetStream's on the same generated topologies and clusters.")
public final class SchedulerEvaluation implements Callable<Integer> {
    /** Clusters: nodes x slots per node. */
    static final int[][] CLUSTERS = {{2, 2}, {4, 4}, {8, 2}, {8, 8}, {16, 4}, {16, 8}};
    static final String OURS = "jetstream";
    static final List<String> STOCK = List.of("even", "default", "ras");
    /** The virtual time between JetStream's placement from structure and its online check: one rebalance period and a second. */
    static final long ONLINE_CHECK_AFTER_MS = 600_000 + 1_000;
    /** Recorded rates are the model's per unit time times this (tuples per second; above the rebalance floor). */
    static final double RECORDED_SCALE = 1_000;

    /** Executors per slot of the generated topologies ({@code --executors-per-slot}). */
    static int executorsPerSlot = 2;
    /** Random rate models each case is scored under ({@code --rate-draws}). */
    static int rateDraws = 4;
    /** The families of the tables ({@code --families}; all by default). */
    static List<String> families = TopologyFamilies.NAMES;
    /** Node-load cap of the measured-rates bound, relative to the mean node load (the target's). */
    static final double BOUND_CAP = 1.15;

    record Outcome(double crossFraction, double maxOverMean, double millis) {}

    /** Sums over cases: traffic crossing nodes, max/mean node load, scheduling times, cases. */
    static final class Sums {
        double cross;
        double load;
        double maxMillis;
        final List<Double> millis = new ArrayList<>();
        /** Every case's max/mean node load, in the order the cases ran (the same for every scheduler). */
        final List<Double> loads = new ArrayList<>();
        int count;

        void add(Outcome o) {
            cross += o.crossFraction();
            load += o.maxOverMean();
            maxMillis = Math.max(maxMillis, o.millis());
            millis.add(o.millis());
            loads.add(o.maxOverMean());
            count++;
        }

        /** Mean and standard error of this scheduler's max/mean node load minus {@code other}'s, case by case. */
        double[] loadExcessOver(Sums other) {
            int n = loads.size();
            double sum = 0;
            double squares = 0;
            for (int i = 0; i < n; i++) {
                double d = loads.get(i) - other.loads.get(i);
                sum += d;
                squares += d * d;
            }
            double mean = sum / n;
            double variance = n > 1 ? (squares - n * mean * mean) / (n - 1) : 0;
            return new double[] {mean, Math.sqrt(Math.max(0, variance) / n)};
        }

        double medianMillis() {
            return millis.isEmpty() ? 0 : Median.of(millis);
        }

        double cross() {
            return cross / count;
        }

        double load() {
            return load / count;
        }
    }

    @Spec
    private CommandSpec spec;
    @Parameters(showDefaultValue = Visibility.NEVER, paramLabel = "jetstream.scheduler.OPTION=VALUE",
            description = "JetStream scheduler options.")
    private Map<String, String> schedulerOptions = new LinkedHashMap<>();
    @Option(names = "--kinds", split = ",", paramLabel = "KIND", description = "Groupings of the tables: shuffle, local-or-shuffle.")
    private List<String> kindNames = List.of("shuffle", "local-or-shuffle");
    @Option(names = "--families", split = ",", paramLabel = "FAMILY", description = "Topology families of the tables (all by default).")
    private List<String> familyNames = TopologyFamilies.NAMES;
    @Option(names = "--executors-per-slot", paramLabel = "N", description = "Executors per worker slot.")
    private int executorsPerSlotOption = 2;
    @Option(names = "--rate-draws", paramLabel = "N", description = "Random rate models per case.")
    private int rateDrawsOption = 4;
    @Option(names = "--verbose",
            description = "Every case and rate model, with the online check's verdict and, for shuffle, the bound.")
    private boolean verbose;
    @Option(names = "--no-tables", description = "Skip the per-family tables.")
    private boolean noTables;
    @Option(names = "--no-scale", description = "Skip the scaling run.")
    private boolean noScale;
    @Option(names = "--no-tradeoff", description = "Skip the trade-off figure (left alone).")
    private boolean noTradeOff;
    @Option(names = "--bounds", description = "Also compare with the placement bounds.")
    private boolean bounds;

    public static void main(String[] args) {
        // Storm's schedulers leave non-daemon threads behind; this is a command-line run, so end it.
        System.exit(new CommandLine(new SchedulerEvaluation()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Locale.setDefault(Locale.ROOT);
        // Every scheduler logs each placement at INFO; the tables are the output.
        org.apache.logging.log4j.core.config.Configurator.setRootLevel(org.apache.logging.log4j.Level.ERROR);
        org.apache.logging.log4j.core.config.Configurator.setAllLevels("", org.apache.logging.log4j.Level.ERROR);
        // The resource-aware scheduler logs its failure to place the 1,000-executor cases at ERROR; the table says so.
        org.apache.logging.log4j.core.config.Configurator.setLevel("org.apache.storm.scheduler.resource",
                org.apache.logging.log4j.Level.OFF);
        Map<String, Object> options = new HashMap<>(schedulerOptions);
        for (String key : options.keySet()) {
            if (!key.startsWith("jetstream.scheduler.")) {
                throw new ParameterException(spec.commandLine(), "expected jetstream.scheduler.<option>=<value>, got " + key);
            }
        }
        List<TopologyFamilies.Grouping> kinds = new ArrayList<>();
        if (!noTables) {
            for (String k : kindNames) {
                try {
                    kinds.add(TopologyFamilies.Grouping.valueOf(k.toUpperCase(Locale.ROOT).replace('-', '_')));
                } catch (IllegalArgumentException e) {
                    throw new ParameterException(spec.commandLine(), "--kinds takes shuffle or local-or-shuffle, not " + k);
                }
            }
        }
        if (executorsPerSlotOption < 1 || rateDrawsOption < 1) {
            throw new ParameterException(spec.commandLine(), "--executors-per-slot and --rate-draws must be >= 1");
        }
        executorsPerSlot = executorsPerSlotOption;
        rateDraws = rateDrawsOption;
        families = familyNames;
        for (String f : families) {
            if (!TopologyFamilies.NAMES.contains(f)) {
                throw new ParameterException(spec.commandLine(), "unknown family " + f + "; known: " + TopologyFamilies.NAMES);
            }
        }
        boolean scale = !noScale;
        boolean tradeOff = !noTradeOff;
        System.out.println("JetStream options: " + (options.isEmpty() ? "defaults" : options) + "; " + rateDraws
                + " random rate models per case");
        Path trafficDir = Files.createTempDirectory("jetstream-eval-traffic");
        Map<TopologyFamilies.Grouping, Map<String, Map<String, Sums>>> all = new LinkedHashMap<>();
        for (TopologyFamilies.Grouping kind : kinds) {
            Map<String, Map<String, Sums>> byFamily = new LinkedHashMap<>();
            for (String family : families) {
                byFamily.put(family, evaluateFamily(family, kind, options, trafficDir, rateDraws, verbose));
            }
            all.put(kind, byFamily);
            printUnknown(kind, byFamily);
            printMeasured(kind, byFamily);
        }
        if (!all.isEmpty()) {
            summary(all);
        }
        if (scale) {
            scale(options, trafficDir);
        }
        if (tradeOff) {
            tradeOff(trafficDir);
        }
        if (bounds) {
            bounds(options, trafficDir);
            measuredBounds(options, trafficDir);
        }
        return 0;
    }

    /** Keys of the per-family sums besides the stock schedulers. */
    static final String OURS_UNKNOWN = OURS + " (rates unknown)";
    static final String OURS_MEASURED = OURS + " (rates measured)";
    /** The least max/mean node load any placement could have (a single task heavier than a node's share). */
    static final String FLOOR = "floor";
    /**
     * Shuffle only: the least inter-node traffic any placement can have under the true rates with every
     * node within max({@link #BOUND_CAP}, floor) × the mean load ({@link FluidPlacementBound}); its
     * {@code maxOverMean} is that cap.
     */
    static final String BOUND = "bound";

    /**
     * Every scheduler on every cluster for one family, each placement scored under {@code draws} random
     * rate models: the stock schedulers and JetStream from structure once per case, JetStream online once per draw.
     */
    static Map<String, Sums> evaluateFamily(String family, TopologyFamilies.Grouping kind, Map<String, Object> options,
                                            Path trafficDir, int draws, boolean verbose) throws IOException {
        Map<String, Sums> sums = new LinkedHashMap<>();
        int rebalanced = 0;
        for (int[] shape : CLUSTERS) {
            Case c = Case.of(family, kind, shape[0], shape[1], 17 * shape[0] + shape[1]);
            Map<String, Placed> stock = new LinkedHashMap<>();
            for (String scheduler : STOCK) {
                stock.put(scheduler, c.place(scheduler, Map.of(), trafficDir));
            }
            for (int draw = 0; draw < draws; draw++) {
                RateModel rates = c.rates(draw);
                for (Map.Entry<String, Placed> s : stock.entrySet()) {
                    sums.computeIfAbsent(s.getKey(), k -> new Sums()).add(c.score(s.getValue(), rates));
                }
                Online online = c.online(options, trafficDir, rates);
                Outcome unknown = c.score(online.fromStructure(), rates);
                Outcome measured = c.score(online.now(), rates);
                sums.computeIfAbsent(OURS_UNKNOWN, k -> new Sums()).add(unknown);
                sums.computeIfAbsent(OURS_MEASURED, k -> new Sums()).add(measured);
                double floor = TrueTraffic.of(c.generated.topology(), c.tasksOf, c.taskCount, rates, null)
                        .maxOverMeanFloor(c.nodes);
                sums.computeIfAbsent(FLOOR, k -> new Sums()).add(new Outcome(0, floor, 0));
                String bound = "";
                if (kind == TopologyFamilies.Grouping.SHUFFLE) {
                    long start = System.nanoTime();
                    TrueTraffic truth = TrueTraffic.of(c.generated.topology(), c.tasksOf, c.taskCount, rates, null);
                    FluidPlacementBound.Classes classes = FluidPlacementBound.of(c.generated.topology(), c.tasksOf, truth);
                    double capRatio = Math.max(BOUND_CAP, floor);
                    FluidPlacementBound.Bound b = FluidPlacementBound.maxLocal(classes, c.nodes,
                            capRatio * classes.totalLoad() / c.nodes);
                    sums.computeIfAbsent(BOUND, k -> new Sums()).add(new Outcome(b.minCrossFraction(), capRatio,
                            (System.nanoTime() - start) / 1e6));
                    bound = String.format("; bound %.3f at %.2f (%s)", b.minCrossFraction(), capRatio,
                            b.exact() ? "exact" : "fluid");
                }
                rebalanced += online.rebalanced() ? 1 : 0;
                if (verbose) {
                    Outcome even = c.score(stock.get("even"), rates);
                    System.out.printf("  %s %s %dx%d (%d executors) draw %d: even %.3f / %.2f; unknown %.3f / %.2f; "
                                    + "measured %.3f / %.2f%s; floor %.2f%s%n", family, kind, shape[0], shape[1],
                            c.executorCount(), draw, even.crossFraction(), even.maxOverMean(), unknown.crossFraction(),
                            unknown.maxOverMean(), measured.crossFraction(), measured.maxOverMean(),
                            online.rebalanced() ? " (rebalanced)" : "", floor, bound);
                    System.out.printf("    %s%n", online.status().replaceAll(".*online check: ", "online check: ")
                            .replaceAll(".*rebalanced from", "rebalanced from"));
                }
            }
        }
        Sums r = new Sums();
        r.cross = rebalanced;
        r.count = 1;
        sums.put("rebalanced", r);
        return sums;
    }

    private static void printUnknown(TopologyFamilies.Grouping kind, Map<String, Map<String, Sums>> byFamily) {
        System.out.printf("%n## %s groupings, rates unknown (JetStream from structure), mean over %d clusters x %d rate models%n",
                name(kind), CLUSTERS.length, rateDraws);
        System.out.println("| family | inter-node traffic even / default / RAS / JetStream | JetStream / even "
                + "| max/mean node load even / default / RAS / JetStream | JetStream ms, median / max |");
        System.out.println("|---|---|---|---|---|");
        for (Map.Entry<String, Map<String, Sums>> f : byFamily.entrySet()) {
            Map<String, Sums> s = f.getValue();
            Sums ours = s.get(OURS_UNKNOWN);
            System.out.printf("| %s | %.3f / %.3f / %.3f / %.3f | %.2f | %.2f / %.2f / %.2f / %.2f | %.0f / %.0f |%n",
                    f.getKey(), s.get("even").cross(), s.get("default").cross(), s.get("ras").cross(), ours.cross(),
                    ours.cross() / s.get("even").cross(), s.get("even").load(), s.get("default").load(),
                    s.get("ras").load(), ours.load(), ours.medianMillis(), ours.maxMillis);
        }
    }

    private static void printMeasured(TopologyFamilies.Grouping kind, Map<String, Map<String, Sums>> byFamily) {
        boolean bounded = kind == TopologyFamilies.Grouping.SHUFFLE;
        System.out.printf("%n## %s groupings, rates measured (JetStream online: placed from structure, then re-planned "
                + "from the recorded traffic and redeployed when its policy says it pays), mean over %d clusters x %d rate models%n",
                name(kind), CLUSTERS.length, rateDraws);
        if (bounded) {
            System.out.printf("(bound: the least inter-node traffic any placement can have under the true rates with every node "
                    + "within max(%.2f, floor) x the mean load, FluidPlacementBound; cap: that factor, mean over the cases)%n", BOUND_CAP);
        }
        System.out.println("| family | inter-node traffic even / JetStream | JetStream / even "
                + "| max/mean node load even / JetStream / floor | rebalanced | JetStream re-plan ms, median / max |"
                + (bounded ? " bound (cap) | bound / even |" : ""));
        System.out.println("|---|---|---|---|---|---|" + (bounded ? "---|---|" : ""));
        for (Map.Entry<String, Map<String, Sums>> f : byFamily.entrySet()) {
            Map<String, Sums> s = f.getValue();
            Sums ours = s.get(OURS_MEASURED);
            String bound = "";
            if (bounded) {
                Sums b = s.get(BOUND);
                bound = String.format(" %.3f (%.2f) | %.2f |", b.cross(), b.load(), b.cross() / s.get("even").cross());
            }
            System.out.printf("| %s | %.3f / %.3f | %.2f | %.2f / %.2f / %.2f | %d of %d | %.0f / %.0f |%s%n",
                    f.getKey(), s.get("even").cross(), ours.cross(), ours.cross() / s.get("even").cross(),
                    s.get("even").load(), ours.load(), s.get(FLOOR).load(), (int) s.get("rebalanced").cross,
                    ours.count, ours.medianMillis(), ours.maxMillis, bound);
        }
    }

    private static String name(TopologyFamilies.Grouping kind) {
        return kind.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private static void summary(Map<TopologyFamilies.Grouping, Map<String, Map<String, Sums>>> all) {
        System.out.println();
        System.out.println("## Summary: JetStream against even, averaged over families (per family: mean over clusters and rate models)");
        for (var kind : all.entrySet()) {
            for (String stage : List.of(OURS_UNKNOWN, OURS_MEASURED)) {
                double ratio = 0;
                double load = 0;
                double evenLoad = 0;
                double worstRatio = 0;
                double worstLoadExcess = Double.NEGATIVE_INFINITY;
                String worstLoadFamily = "";
                double worstLoad = 0;
                int n = 0;
                for (Map.Entry<String, Map<String, Sums>> f : kind.getValue().entrySet()) {
                    Map<String, Sums> s = f.getValue();
                    double r = s.get(stage).cross() / s.get("even").cross();
                    ratio += r;
                    worstRatio = Math.max(worstRatio, r);
                    load += s.get(stage).load();
                    evenLoad += s.get("even").load();
                    worstLoad = Math.max(worstLoad, s.get(stage).load());
                    double excess = s.get(stage).load() - s.get("even").load();
                    if (excess > worstLoadExcess) {
                        worstLoadExcess = excess;
                        worstLoadFamily = f.getKey();
                    }
                    n++;
                }
                System.out.printf("- %s, %s: traffic %.2f x even (worst family %.2f); max/mean node load %.2f against even's "
                                + "%.2f (highest family %.2f; largest excess over even %+.2f, %s)%n", name(kind.getKey()), stage,
                        ratio / n, worstRatio, load / n, evenLoad / n, worstLoad, worstLoadExcess, worstLoadFamily);
                StringBuilder excess = new StringBuilder("  max/mean node load minus even's, case by case (mean +- standard error):");
                for (Map.Entry<String, Map<String, Sums>> f : kind.getValue().entrySet()) {
                    double[] d = f.getValue().get(stage).loadExcessOver(f.getValue().get("even"));
                    excess.append(String.format(" %s %+.3f +- %.3f;", f.getKey(), d[0], d[1]));
                }
                System.out.println(excess);
            }
            if (kind.getKey() == TopologyFamilies.Grouping.SHUFFLE) {
                double bound = 0;
                double worst = 0;
                int n = 0;
                for (Map<String, Sums> s : kind.getValue().values()) {
                    double r = s.get(BOUND).cross() / s.get("even").cross();
                    bound += r;
                    worst = Math.min(worst == 0 ? r : worst, r);
                    n++;
                }
                System.out.printf("- %s, bound under the true rates within max(%.2f, floor) x the mean load: no placement goes "
                        + "below %.2f x even on average (lowest family %.2f)%n", name(kind.getKey()), BOUND_CAP, bound / n, worst);
            }
        }
    }

    /** About 1,000 executors on 16 nodes x 8 slots: scheduling time of every scheduler, one rate model. */
    private static void scale(Map<String, Object> options, Path trafficDir) throws Exception {
        System.out.println();
        System.out.println("## Scale: WordCount, random DAG and linear pipeline with about 1,000 executors, 16 nodes x 8 slots "
                + "(fastest of three runs; one rate model)");
        for (String family : List.of("wordcount", "random-dag", "linear")) {
            for (TopologyFamilies.Grouping kind : TopologyFamilies.Grouping.values()) {
                Case c = Case.ofExecutors(family, kind, 16, 8, 1000, 99);
                RateModel rates = c.rates(0);
                StringBuilder line = new StringBuilder(String.format("- %s, %s, %d executors:", family, name(kind),
                        c.executorCount()));
                for (String scheduler : STOCK) {
                    Outcome best = null;
                    try {
                        for (int rep = 0; rep < 3; rep++) {
                            Outcome o = c.score(c.place(scheduler, Map.of(), trafficDir), rates);
                            best = best == null || o.millis() < best.millis() ? o : best;
                        }
                    } catch (IllegalStateException e) {
                        java.util.regex.Matcher placed = java.util.regex.Pattern.compile("(\\d+) of (\\d+) executors scheduled")
                                .matcher(e.getMessage());
                        line.append(String.format(" %s could not place it (%s);", scheduler, placed.find()
                                ? "its default strategy gave up after 10,000 search states, " + placed.group(1) + " of "
                                        + placed.group(2) + " executors placed"
                                : e.getMessage().replaceAll(".*unassigned: ", "")));
                        continue;
                    }
                    line.append(String.format(" %s %.0f ms (traffic %.3f, load %.2f);", scheduler, best.millis(),
                            best.crossFraction(), best.maxOverMean()));
                }
                Online fastest = null;
                for (int rep = 0; rep < 3; rep++) {
                    Online o = c.online(options, trafficDir, rates);
                    fastest = fastest == null || o.now().millis() < fastest.now().millis() ? o : fastest;
                }
                Outcome unknown = c.score(fastest.fromStructure(), rates);
                Outcome measured = c.score(fastest.now(), rates);
                line.append(String.format(" JetStream from structure %.0f ms (traffic %.3f, load %.2f), re-planned from "
                                + "measured traffic %.0f ms (traffic %.3f, load %.2f%s)", fastest.fromStructure().millis(),
                        unknown.crossFraction(), unknown.maxOverMean(), fastest.now().millis(), measured.crossFraction(),
                        measured.maxOverMean(), fastest.rebalanced() ? ", rebalanced" : ", kept"));
                System.out.println(line);
            }
        }
    }

    /**
     * Shuffle groupings from structure, uniform rates: how far below the even scheduler's inter-node traffic any
     * placement can go whose nodes each carry at most {@code cap} × the mean load ({@link PlacementBound}),
     * for the target's 1.15 (or JetStream's own load where no placement meets 1.15) and for 1.3, next to
     * what JetStream reaches. Averaged like the tables: per family the mean over clusters, then over families.
     */
    private static void bounds(Map<String, Object> options, Path trafficDir) throws Exception {
        System.out.println();
        System.out.println("## Bounds: shuffle from structure, uniform rates, the least inter-node traffic any placement can have "
                + "(JetStream with " + (options.isEmpty() ? "default options" : options) + ")");
        System.out.println("| family | cluster | even (load) | JetStream (load) | bound at max(1.15, JetStream's load) | bound at 1.3 "
                + "| bound never hotter than even | method, node configurations |");
        System.out.println("|---|---|---:|---:|---:|---:|---:|---|");
        double sumOurs = 0;
        double sumTight = 0;
        double sumLoose = 0;
        double sumRobust = 0;
        double worstGap = 0;
        for (String family : TopologyFamilies.NAMES) {
            double even = 0;
            double ours = 0;
            double tight = 0;
            double loose = 0;
            double robust = 0;
            for (int[] shape : CLUSTERS) {
                Case c = Case.of(family, TopologyFamilies.Grouping.SHUFFLE, shape[0], shape[1], 17 * shape[0] + shape[1]);
                Outcome e = c.run("even", Map.of(), trafficDir);
                Outcome o = c.run(OURS, options, trafficDir);
                PlacementBound.Structure s = PlacementBound.of(c.generated, c.tasksOf, c.taskCount);
                double mean = s.totalLoad() / c.nodes;
                double capRatio = Math.max(1.15, o.maxOverMean() + 1e-9);
                long start = System.nanoTime();
                PlacementBound.Bound b = PlacementBound.maxLocal(s, c.nodes, capRatio * mean);
                PlacementBound.Bound b13 = PlacementBound.maxLocal(s, c.nodes, Math.max(1.3, capRatio) * mean);
                // Never hotter than even whatever the rates: at most even's share of every component on a node
                // (else hotter when that component carries the load) and, under these uniform rates, at most
                // even's hottest node.
                PlacementBound.Bound bRobust = PlacementBound.maxLocal(s.spreadAsEven(c.nodes), c.nodes,
                        (e.maxOverMean() + 1e-9) * mean);
                double seconds = (System.nanoTime() - start) / 1e9;
                double lower = 1 - b.maxLocal() / s.totalTraffic();
                double lower13 = 1 - b13.maxLocal() / s.totalTraffic();
                double lowerRobust = 1 - bRobust.maxLocal() / s.totalTraffic();
                System.out.printf("| %s | %dx%d | %.3f (%.2f) | %.3f (%.2f) | %.3f | %.3f | %.3f | %s / %s / %s, %,d configurations, %.1f s |%n",
                        family, shape[0], shape[1], e.crossFraction(), e.maxOverMean(), o.crossFraction(), o.maxOverMean(),
                        lower, lower13, lowerRobust, method(b), method(b13), method(bRobust), b.configurations(), seconds);
                even += e.crossFraction();
                ours += o.crossFraction();
                tight += lower;
                loose += lower13;
                robust += lowerRobust;
            }
            System.out.printf("| **%s** | mean | %.3f | %.3f (%.2f x even) | %.3f (%.2f x even) | %.3f (%.2f x even) | %.3f (%.2f x even) | |%n",
                    family, even / CLUSTERS.length, ours / CLUSTERS.length, ours / even, tight / CLUSTERS.length, tight / even,
                    loose / CLUSTERS.length, loose / even, robust / CLUSTERS.length, robust / even);
            sumOurs += ours / even;
            sumTight += tight / even;
            sumLoose += loose / even;
            sumRobust += robust / even;
            worstGap = Math.max(worstGap, (ours - tight) / even);
            System.out.flush();
        }
        int families = TopologyFamilies.NAMES.size();
        System.out.printf("- averaged over families: JetStream %.3f x even; no placement within max(1.15, JetStream's load) "
                + "goes below %.3f x even, none within 1.3 below %.3f x even; JetStream %.3f above the bound (largest family "
                + "gap %.3f); no placement never hotter than even goes below %.3f x even%n", sumOurs / families,
                sumTight / families, sumLoose / families, (sumOurs - sumTight) / families, worstGap, sumRobust / families);
    }

    /**
     * Rates measured, for the families whose tasks stay interchangeable under the rate models (every
     * stream a shuffle: SOL, and any random DAG draw without keys): the least inter-node traffic any
     * placement can have with every node within max(1.15, JetStream's load) × the mean, next to
     * JetStream online and even, per case and rate model; averaged as the tables.
     */
    private static void measuredBounds(Map<String, Object> options, Path trafficDir) throws Exception {
        System.out.println();
        System.out.println("## Bounds with the rates measured (families whose tasks stay interchangeable: every stream a shuffle)");
        System.out.println("| family | cluster | rate model | even | JetStream online (load) | bound at max(1.15, JetStream's load) | method |");
        System.out.println("|---|---|---:|---:|---:|---:|---|");
        for (String family : TopologyFamilies.NAMES) {
            double even = 0;
            double ours = 0;
            double bound = 0;
            int n = 0;
            for (int[] shape : CLUSTERS) {
                Case c = Case.of(family, TopologyFamilies.Grouping.SHUFFLE, shape[0], shape[1], 17 * shape[0] + shape[1]);
                Placed evenPlaced = c.place("even", Map.of(), trafficDir);
                for (int draw = 0; draw < rateDraws; draw++) {
                    RateModel rates = c.rates(draw);
                    PlacementBound.Structure s;
                    try {
                        s = PlacementBound.of(c.generated, c.tasksOf, c.taskCount, rates);
                    } catch (IllegalArgumentException keyed) {
                        continue; // a fields grouping's keys make the tasks of a component differ
                    }
                    Outcome e = c.score(evenPlaced, rates);
                    Outcome o = c.score(c.online(options, trafficDir, rates).now(), rates);
                    PlacementBound.Bound b = PlacementBound.maxLocal(s, c.nodes,
                            Math.max(1.15, o.maxOverMean() + 1e-9) * s.totalLoad() / c.nodes);
                    double lower = 1 - b.maxLocal() / s.totalTraffic();
                    System.out.printf("| %s | %dx%d | %d | %.3f | %.3f (%.2f) | %.3f | %s |%n", family, shape[0], shape[1],
                            draw, e.crossFraction(), o.crossFraction(), o.maxOverMean(), lower, method(b));
                    even += e.crossFraction();
                    ours += o.crossFraction();
                    bound += lower;
                    n++;
                }
            }
            if (n > 0) {
                System.out.printf("| **%s** | mean of %d | | %.3f | %.3f (%.2f x even) | %.3f (%.2f x even) | |%n", family, n,
                        even / n, ours / n, ours / even, bound / n, bound / even);
            }
            System.out.flush();
        }
    }

    private static String method(PlacementBound.Bound b) {
        return b.exact() ? "exact" : "Lagrangian";
    }

    /**
     * Traffic against imbalance under the random rate models, in two panels per grouping kind. Rates
     * unknown: JetStream from structure with the rate spread it assumes swept (0.5, 1 = default, 2), and
     * trusting the structure's uniform rates with its balance factor swept (TurboStream's consolidation);
     * rates measured: JetStream online with its balance factor (and its rebalance guard, 1 + the factor)
     * swept. The stock schedulers as points.
     */
    private static void tradeOff(Path trafficDir) throws Exception {
        double[] spreads = {0.5, 1.0, 2.0};
        double[] factors = {0.05, 0.15, 0.3, 0.6, 0.95};
        int draws = Math.min(rateDraws, 2);
        List<Figure> panels = new ArrayList<>();
        System.out.println();
        System.out.println("## Trade-off: mean over families, clusters and " + draws + " rate models (x = max/mean node load, "
                + "y = inter-node traffic / even); rate spread 0.5, 1 (default), 2; balance factor 0.05, 0.15 (default), 0.3, 0.6, 0.95");
        for (TopologyFamilies.Grouping kind : TopologyFamilies.Grouping.values()) {
            Figure unknown = Figure.of(name(kind) + ", rates unknown", "max/mean node load (1 = balanced)",
                    "inter-node traffic (Storm's even scheduler = 1)", false, false);
            Figure measured = Figure.of(name(kind) + ", rates measured", "max/mean node load (1 = balanced)",
                    "inter-node traffic (Storm's even scheduler = 1)", false, false);
            double[][] robust = new double[2][spreads.length];
            for (int i = 0; i < spreads.length; i++) {
                double[] p = tradeOffPoint(kind, Map.of("jetstream.scheduler.structure.rate-spread", spreads[i]), trafficDir,
                        draws, false);
                robust[0][i] = p[1];
                robust[1][i] = p[0];
            }
            double[][] uniform = new double[2][factors.length];
            double[][] online = new double[2][factors.length];
            for (int i = 0; i < factors.length; i++) {
                double[] u = tradeOffPoint(kind, Map.of("jetstream.scheduler.structure.rates", "uniform",
                        "jetstream.scheduler.balance-factor", factors[i]), trafficDir, draws, false);
                uniform[0][i] = u[1];
                uniform[1][i] = u[0];
                // Online the rebalance guard follows the balance factor: a plan the guard refuses is never deployed.
                double[] m = tradeOffPoint(kind, Map.of("jetstream.scheduler.balance-factor", factors[i],
                        "jetstream.scheduler.rebalance.max-imbalance", 1 + factors[i]), trafficDir, draws, true);
                online[0][i] = m[1];
                online[1][i] = m[0];
            }
            unknown.line("JetStream, rates unknown (rate spread 0.5, 1, 2)", robust[0], robust[1]);
            unknown.line("JetStream trusting uniform rates (balance factor 0.05 ... 0.95)", uniform[0], uniform[1]);
            measured.line("JetStream online (balance factor 0.05 ... 0.95)", online[0], online[1]);
            System.out.printf("- %s, rates unknown, JetStream (rate spread 0.5, 1, 2): %s%n", name(kind), points(robust[0], robust[1]));
            System.out.printf("- %s, rates unknown, JetStream trusting uniform rates: %s%n", name(kind),
                    points(uniform[0], uniform[1]));
            System.out.printf("- %s, rates measured, JetStream online: %s%n", name(kind), points(online[0], online[1]));
            for (String stock : STOCK) {
                double[] r = tradeOffPoint(kind, Map.of(), trafficDir, draws, false, stock);
                for (Figure panel : List.of(unknown, measured)) {
                    panel.point(stock + " scheduler", r[1], r[0]);
                }
                System.out.printf("- %s, %s scheduler: (%.2f, %.2f)%n", name(kind), stock, r[1], r[0]);
            }
            panels.add(unknown);
            panels.add(measured);
        }
        System.out.println("figure: " + Figure.write("scheduler-tradeoff.png", 2, panels));
    }

    private static double[] tradeOffPoint(TopologyFamilies.Grouping kind, Map<String, Object> options, Path trafficDir,
                                          int draws, boolean measured) throws IOException {
        return tradeOffPoint(kind, options, trafficDir, draws, measured, OURS);
    }

    /**
     * {traffic / even's, max/mean load}, each averaged over families, clusters and rate models: JetStream from
     * structure or, {@code measured}, after its online check; or a stock scheduler.
     */
    private static double[] tradeOffPoint(TopologyFamilies.Grouping kind, Map<String, Object> options, Path trafficDir,
                                          int draws, boolean measured, String scheduler) throws IOException {
        double ratio = 0;
        double load = 0;
        int n = 0;
        for (String family : TopologyFamilies.NAMES) {
            for (int[] shape : CLUSTERS) {
                Case c = Case.of(family, kind, shape[0], shape[1], 17 * shape[0] + shape[1]);
                Placed even = c.place("even", Map.of(), trafficDir);
                Placed placed = measured ? null : c.place(scheduler, options, trafficDir);
                for (int draw = 0; draw < draws; draw++) {
                    RateModel rates = c.rates(draw);
                    double evenCross = c.score(even, rates).crossFraction();
                    Outcome o = c.score(measured ? c.online(options, trafficDir, rates).now() : placed, rates);
                    ratio += evenCross == 0 ? 1 : o.crossFraction() / evenCross;
                    load += o.maxOverMean();
                    n++;
                }
            }
        }
        return new double[] {ratio / n, load / n};
    }

    private static String points(double[] x, double[] y) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < x.length; i++) {
            sb.append(String.format("(%.2f, %.2f) ", x[i], y[i]));
        }
        return sb.toString().trim();
    }

    /** Where a scheduler put every task (node and worker by task id) and how long it took. */
    record Placed(int[] nodeOf, int[] workerOf, double millis) {}

    /** JetStream online on one case: its placement from structure, the placement after its online check, and whether that redeployed. */
    record Online(Placed fromStructure, Placed now, boolean rebalanced, String status) {}

    /** Online runs so far: each gets a topology id, and so a folder of traffic records, of its own. */
    private static final java.util.concurrent.atomic.AtomicLong ONLINE_RUNS = new java.util.concurrent.atomic.AtomicLong(1);

    /** One topology on one cluster. */
    static final class Case {
        final TopologyFamilies.Generated generated;
        final TopologyFamilies.Grouping kind;
        final int nodes;
        final int slotsPerNode;
        final Map<String, Integer> parallelism;
        final Map<String, int[]> tasksOf;
        final int taskCount;
        final String id;
        private final long seed;

        private Case(TopologyFamilies.Generated generated, TopologyFamilies.Grouping kind, int nodes, int slotsPerNode,
                     long seed) {
            this.generated = generated;
            this.kind = kind;
            this.nodes = nodes;
            this.slotsPerNode = slotsPerNode;
            this.seed = seed;
            this.parallelism = parallelism(generated);
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
            return new Case(g, kind, nodes, slots, seed);
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

        /** The {@code draw}-th random rate model of this case (the same for every scheduler and run). */
        RateModel rates(int draw) {
            return RateModel.random(generated.topology(), parallelism, seed * 1_000 + draw);
        }

        /** Placed by {@code scheduler} (JetStream offline) and scored under the structure's own uniform rates. */
        Outcome run(String scheduler, Map<String, Object> options, Path trafficDir) throws IOException {
            return score(place(scheduler, options, trafficDir), RateModel.UNIFORM);
        }

        /** The traffic and loads of a placement under {@code rates}. */
        Outcome score(Placed placed, RateModel rates) {
            TrueTraffic truth = TrueTraffic.of(generated.topology(), tasksOf, taskCount, rates, placed.workerOf());
            return new Outcome(truth.crossFraction(placed.nodeOf()), truth.maxOverMeanLoad(placed.nodeOf(), nodes),
                    placed.millis());
        }

        /** Placed by {@code scheduler} from the topology alone (JetStream in offline mode). */
        Placed place(String scheduler, Map<String, Object> options, Path trafficDir) {
            Map<String, Object> conf = conf(id, "offline", options, trafficDir);
            TopologyDetails topology = topology(id, conf);
            Topologies topologies = new Topologies(topology);
            Cluster cluster = cluster(topologies, conf, Map.of());
            IScheduler s = newScheduler(scheduler);
            s.prepare(conf, new StormMetricsRegistry());
            long start = System.nanoTime();
            s.schedule(topologies, cluster);
            return placed(scheduler, cluster, id, (System.nanoTime() - start) / 1e6);
        }

        /**
         * JetStream online, as in production: placed from structure, then, once the rebalance period has
         * passed, checked against the traffic its hook recorded under that placement ({@code rates} as
         * measured) and redeployed if its policy says so. A topology id of its own per run keeps records apart.
         */
        Online online(Map<String, Object> options, Path trafficDir, RateModel rates) throws IOException {
            String runId = id.substring(0, id.length() - 2) + "-" + ONLINE_RUNS.incrementAndGet();
            Map<String, Object> conf = conf(runId, "online", options, trafficDir);
            long[] clock = {1_000_000_000L};
            JetStreamScheduler scheduler = new JetStreamScheduler(() -> clock[0]);
            scheduler.prepare(conf, new StormMetricsRegistry());
            TopologyDetails topology = topology(runId, conf);
            Topologies topologies = new Topologies(topology);
            Cluster first = cluster(topologies, conf, Map.of());
            long start = System.nanoTime();
            scheduler.schedule(topologies, first);
            Placed fromStructure = placed(OURS, first, runId, (System.nanoTime() - start) / 1e6);

            clock[0] += ONLINE_CHECK_AFTER_MS;
            record(new DirectoryTrafficStore(trafficDir), runId, rates, fromStructure.workerOf(), clock[0]);
            SchedulerAssignment current = first.getAssignmentById(runId);
            Cluster second = cluster(topologies, conf, Map.of(runId, new SchedulerAssignmentImpl(current)));
            start = System.nanoTime();
            scheduler.schedule(topologies, second);
            Placed now = placed(OURS, second, runId, (System.nanoTime() - start) / 1e6);
            boolean rebalanced = !second.getAssignmentById(runId).getExecutorToSlot().equals(current.getExecutorToSlot());
            scheduler.cleanup();
            new DirectoryTrafficStore(trafficDir).prune(java.util.Set.of()); // this run's records are done with
            return new Online(fromStructure, now, rebalanced, second.getStatusMap().get(runId));
        }

        private Map<String, Object> conf(String topologyId, String mode, Map<String, Object> options, Path trafficDir) {
            Map<String, Object> conf = new HashMap<>(Utils.readDefaultConfig());
            conf.put(Config.TOPOLOGY_NAME, topologyId);
            conf.put(Config.TOPOLOGY_WORKERS, nodes * slotsPerNode);
            conf.put(Config.TOPOLOGY_ACKER_EXECUTORS, 0);
            conf.put("jetstream.scheduler.mode", mode);
            conf.put("jetstream.scheduler.traffic.dir", trafficDir.toString());
            conf.putAll(options);
            return conf;
        }

        private TopologyDetails topology(String topologyId, Map<String, Object> conf) {
            Map<ExecutorDetails, String> executors = new HashMap<>();
            tasksOf.forEach((component, tasks) -> {
                for (int t : tasks) {
                    executors.put(new ExecutorDetails(t, t), component);
                }
            });
            return new TopologyDetails(topologyId, conf, generated.topology(), nodes * slotsPerNode, executors, 0,
                    "evaluation");
        }

        private Cluster cluster(Topologies topologies, Map<String, Object> conf,
                                Map<String, ? extends SchedulerAssignment> assignments) {
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
            return new Cluster(new EvaluationNimbus(), new ResourceMetrics(new StormMetricsRegistry()), supervisors,
                    new HashMap<>(assignments), topologies, conf);
        }

        private Placed placed(String scheduler, Cluster cluster, String topologyId, double millis) {
            SchedulerAssignment assignment = cluster.getAssignmentById(topologyId);
            if (assignment == null || assignment.getExecutorToSlot().size() != taskCount) {
                throw new IllegalStateException(scheduler + " left executors of " + topologyId + " unassigned: "
                        + cluster.getStatusMap().get(topologyId));
            }
            int[] nodeOf = new int[taskCount + 1];
            int[] workerOf = new int[taskCount + 1];
            Map<WorkerSlot, Integer> workerIds = new HashMap<>();
            for (Map.Entry<ExecutorDetails, WorkerSlot> e : assignment.getExecutorToSlot().entrySet()) {
                int task = e.getKey().getStartTask();
                nodeOf[task] = Integer.parseInt(e.getValue().getNodeId().substring(4));
                workerOf[task] = workerIds.computeIfAbsent(e.getValue(), k -> workerIds.size());
            }
            return new Placed(nodeOf, workerOf, millis);
        }

        /**
         * What the traffic hook records under a placement: every task's true rates to each target task
         * (local-or-shuffle as routed there) and its CPU time per second, proportional to its load.
         */
        private void record(DirectoryTrafficStore store, String topologyId, RateModel rates, int[] workerOf, long now)
                throws IOException {
            TrueTraffic truth = TrueTraffic.of(generated.topology(), tasksOf, taskCount, rates, workerOf);
            for (int s = 1; s <= taskCount; s++) {
                Map<Integer, Double> to = new HashMap<>();
                for (int d = 1; d <= taskCount; d++) {
                    if (truth.traffic[s][d] > 0) {
                        to.put(d, truth.traffic[s][d] * RECORDED_SCALE);
                    }
                }
                store.write(topologyId, new TaskTraffic(s, now, truth.load[s] * 1e6, to));
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
