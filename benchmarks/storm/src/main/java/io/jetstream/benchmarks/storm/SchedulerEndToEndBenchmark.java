package io.jetstream.benchmarks.storm;

import io.jetstream.benchmarks.storm.placement.PlacementTopology;
import io.jetstream.benchmarks.storm.placement.PlacementTopology.Grouping;
import io.jetstream.harness.Await;
import io.jetstream.harness.EngineConfiguration;
import io.jetstream.harness.LatencySummary;
import io.jetstream.harness.ScratchDirectory;
import io.jetstream.harness.TextTable;
import io.jetstream.harness.TopologyJar;
import io.jetstream.harness.report.PhaseSchedule;
import io.jetstream.harness.report.RunControl;
import io.jetstream.harness.report.TopologyResults;
import io.jetstream.harness.report.TopologyResults.PhaseResult;
import io.jetstream.storm.cluster.StormCluster;
import io.jetstream.storm.cluster.topology.CrossWorkerTopology;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.storm.Config;
import org.apache.storm.generated.ExecutorSummary;
import org.apache.storm.generated.TopologyInfo;
import org.apache.storm.utils.NimbusClient;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Option;

/**
 * Storm's even scheduler against JetStream's ({@code io.jetstream.scheduler.storm.JetStreamScheduler}),
 * both on JetStream's transport, in a real Storm cluster with two "hosts": ZooKeeper, Nimbus and the
 * first supervisor in this network namespace, the second supervisor in a namespace of its own behind
 * a veth pair shaped by {@code tc tbf} in each direction ({@link ShapedNamespace}), with a host name of
 * its own, so that JetStream's transport ({@code HostIdentity}: boot id and host name) treats it as
 * another host: its workers talk to this side's over TCP through the shaped link, and workers on one
 * supervisor over the receiving worker's shared-memory ring. Each supervisor has {@code --slots} slots.
 *
 * <p>The topology ({@link PlacementTopology}: source → relay → sink with acking, local-or-shuffle by
 * default, parallelisms that leave some workers without a relay or a sink) is submitted once per
 * scheduler per round; Nimbus is restarted with the other {@code storm.scheduler} between sides (the
 * order alternates over rounds). Per side: complete latency p50/p99 at fixed rates, maximum
 * throughput, and where the tuples went: the bolts count their input by source task and the driver
 * maps tasks to hosts and workers from Nimbus's assignment (tuples that crossed hosts and workers, over
 * the whole run), the link's qdiscs count the bytes that crossed (data, acks and the transport's own
 * frames), and the workers' logs say which routes the transport put on the ring and which on TCP.
 *
 * <p>JetStream's scheduler runs with {@code jetstream.scheduler.mode: offline} by default: a side lasts a
 * couple of minutes and the online rebalance waits at least {@code rebalance.min-period-ms} (10 min) and
 * restarts the workers, so within a side the placement is the one from structure; its scheduler status is
 * printed. With {@code --online true} both sides' tasks record their traffic ({@code TrafficRecordingHook},
 * ZooKeeper store, {@code --online-window-ms}), JetStream's Nimbus runs in online mode with
 * {@code rebalance.min-period-ms} just past the measured phases ({@code --online-min-period-seconds}),
 * and after its phases the JetStream side is held at the highest fixed rate until the online check
 * decides; after a rebalance the phases run again under the measured placement. Needs root (network namespaces, tc, unshare); otherwise prints why and exits with 0.
 *
 * <pre>
 * ./mvnw -q -Pstorm-bench -DskipTests package -pl benchmarks/storm -am -Dbench.class=SchedulerEndToEndBenchmark \
 *   -Dbench.args="--rounds 2 --seconds 10"
 * options: --rounds 2 --slots 2 --sources 4 --relays 6 --sinks 2 --grouping local-or-shuffle|shuffle
 *          --rates 1000,5000 --warmup-seconds 15 --settle-seconds 3 --seconds 10 --payload-bytes 1024
 *          --max-spout-pending 1000 --link-rate 100mbit --link-burst 32kb --context CLASS
 *          --conf key=value (topology configuration of both sides) --ours-nimbus-conf key=value
 *          (Nimbus's configuration with JetStream's scheduler) --logs-to DIR
 *          --online false --online-window-ms 5000 --online-min-period-seconds (the phases' length + 30)
 * </pre>
 */
@Command(name = "SchedulerEndToEndBenchmark", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Storm's even scheduler against JetStream's on two hosts joined by a shaped link (needs root).")
public final class SchedulerEndToEndBenchmark implements Callable<Integer> {
    static final String EVEN = "org.apache.storm.scheduler.DefaultScheduler";
    static final String OURS = "io.jetstream.scheduler.storm.JetStreamScheduler";
    private static final List<String> SIDES = List.of("even", "JetStream");
    /** The JetStream side after its online rebalance, with {@code --online true}. */
    private static final String ONLINE_SIDE = "JetStream after online rebalance";
    private static final String HOOK = "io.jetstream.scheduler.storm.TrafficRecordingHook";
    /** The control-file phase that holds the spouts at a rate while the online check runs (apart from the schedule's 1, 2, ...). */
    private static final int HOLD_PHASE = 1_000;
    private static final Pattern ROUTE = Pattern.compile("same host: (true|false), data over (the shared-memory ring|TCP)");

    @Option(names = "--rounds", description = "Rounds, each running both sides, alternating which goes first.")
    private int rounds = 2;
    @Option(names = "--slots", description = "Worker slots per host; at least 2.")
    private int slots = 2;
    @Option(names = "--sources", description = "Spout tasks.")
    private int sources = 4;
    @Option(names = "--relays", description = "Relay bolt tasks.")
    private int relays = 6;
    @Option(names = "--sinks", description = "Sink bolt tasks.")
    private int sinks = 2;
    @Option(names = "--grouping", paramLabel = "GROUPING", description = "Grouping of both edges: local-or-shuffle or shuffle.")
    private String groupingName = "local-or-shuffle";
    @Option(names = "--rates", split = ",", description = "Total spout rates (tuples/s) of the fixed-rate phases.")
    private List<Integer> rates = List.of(1_000, 5_000);
    @Option(names = "--warmup-seconds", description = "Length of the warm-up phase.")
    private int warmupSeconds = 15;
    @Option(names = "--settle-seconds", description = "Settling phase before each measured phase.")
    private int settleSeconds = 3;
    @Option(names = "--seconds", description = "Length of each measured phase.")
    private int seconds = 10;
    @Option(names = "--payload-bytes", description = "Payload of each tuple.")
    private int payloadBytes = 1_024;
    @Option(names = "--max-spout-pending", description = "topology.max.spout.pending.")
    private int maxSpoutPending = 1_000;
    @Option(names = "--link-rate", description = "tc tbf rate of each direction of the link.")
    private String linkRate = "100mbit";
    @Option(names = "--link-burst", description = "tc tbf burst of each direction of the link.")
    private String linkBurst = "32kb";
    @Option(names = "--context", description = "The messaging context class of both sides.")
    private String context = StormHopLatency.JETSTREAM;
    @Option(names = "--conf", showDefaultValue = Visibility.NEVER, paramLabel = "KEY=VALUE",
            description = "Topology configuration of both sides (repeatable).")
    private Map<String, String> topologyConfText = new LinkedHashMap<>();
    @Option(names = "--ours-nimbus-conf", showDefaultValue = Visibility.NEVER, paramLabel = "KEY=VALUE",
            description = "Configuration of the Nimbus that runs JetStream's scheduler (repeatable).")
    private Map<String, String> oursNimbusConfText = new LinkedHashMap<>();
    @Option(names = "--logs-to", paramLabel = "DIR", showDefaultValue = Visibility.NEVER,
            description = "Keep the engine logs here (they go with the cluster's temporary directory otherwise).")
    private String logsTo = "";
    @Option(names = "--online", arity = "1",
            description = "Record traffic and let JetStream's Nimbus rebalance online after the phases (true or false).")
    private boolean online;
    @Option(names = "--online-window-ms", description = "Traffic window of the online mode.")
    private int onlineWindowMs = 5_000;
    @Option(names = "--online-min-period-seconds",
            description = "rebalance.min-period of the online mode (default: the phases' length + 30).")
    private Integer onlineMinPeriodSeconds;

    private Grouping grouping;
    private Map<String, Object> topologyConf;
    private Map<String, Object> oursNimbusConf;
    private long onlineMinPeriodMs;
    /** Measured phases by phase name, then side, one per round. */
    private final Map<String, Map<String, List<PhaseResult>>> phases = new LinkedHashMap<>();
    /** Where the tuples went, by side, one per round. */
    private final Map<String, List<Crossing>> crossings = new LinkedHashMap<>();
    private final Map<String, List<String>> statuses = new LinkedHashMap<>();

    public static void main(String[] argv) {
        System.exit(new CommandLine(new SchedulerEndToEndBenchmark()).execute(argv));
    }

    @Override
    public Integer call() throws Exception {
        if (slots < 2) {
            throw new IllegalArgumentException("--slots must be at least 2 (workers on one host share the ring), got " + slots);
        }
        grouping = Grouping.of(groupingName);
        int scheduleSeconds = warmupSeconds + rates.size() * (settleSeconds + seconds) + settleSeconds + seconds;
        // The online check must not come before the measured phases of the placement from structure are over.
        onlineMinPeriodMs = (onlineMinPeriodSeconds != null ? onlineMinPeriodSeconds : scheduleSeconds + 30) * 1_000L;
        Map<String, Object> conf = new LinkedHashMap<>();
        if (online) {
            conf.put("topology.auto.task.hooks", List.of(HOOK));
            conf.put("jetstream.scheduler.traffic.store", "zookeeper");
            conf.put("jetstream.scheduler.traffic.window-ms", onlineWindowMs);
        }
        conf.putAll(EngineConfiguration.typed(topologyConfText));
        topologyConf = conf;
        Map<String, Object> nimbus = new LinkedHashMap<>();
        nimbus.put("storm.scheduler", OURS);
        if (online) {
            nimbus.put("jetstream.scheduler.mode", "online");
            nimbus.put("jetstream.scheduler.traffic.store", "zookeeper");
            nimbus.put("jetstream.scheduler.traffic.window-ms", onlineWindowMs);
            nimbus.put("jetstream.scheduler.rebalance.min-period-ms", onlineMinPeriodMs);
        } else {
            nimbus.put("jetstream.scheduler.mode", "offline");
        }
        nimbus.putAll(EngineConfiguration.typed(oursNimbusConfText));
        oursNimbusConf = nimbus;
        if (!ShapedNamespace.runningAsRoot()) {
            System.out.println("SchedulerEndToEndBenchmark needs root (ip netns, tc tbf, unshare) to make the second host; not run.");
            return 0;
        }
        run();
        return 0;
    }

    private void run() throws Exception {
        BenchmarkEnvironment env = new BenchmarkEnvironment();
        int workers = 2 * slots;
        System.out.printf("Storm's even scheduler against JetStream's, both on %s, two hosts joined by a shaped link (%s each way, tc tbf burst %s)%n"
                + "topology: source x%d -> relay x%d -> sink x%d, %s, acking (%d ackers), %d workers (%d slots per host)%n"
                + "%d B payload, max.spout.pending %d, %d rounds, %d s per measured phase; JetStream's Nimbus: %s%n%n",
                context, linkRate, linkBurst, sources, relays, sinks, grouping.name().toLowerCase().replace('_', '-'), workers, workers,
                slots, payloadBytes, maxSpoutPending, rounds, seconds, oursNimbusConf);
        long started = System.nanoTime();
        StormCluster.Builder builder = StormCluster.builder().extlib(env.transportJar());
        if (online) {
            builder.extlib(env.schedulerJar()); // the traffic hook, in every worker
        }
        try (ScratchDirectory scratch = ScratchDirectory.create("jetstream-sched-e2e-");
                ShapedNamespace link = ShapedNamespace.create(linkRate, linkBurst);
                StormCluster cluster = builder
                        .daemonExtlib(env.schedulerJar())
                        .workerJvmOptions("-Xmx512m")
                        .coordinatorHost(link.hostAddress())
                        .supervisor(link.hostAddress(), slots)
                        .supervisor(link.peerAddress(), slots, link.peerPrefix())
                        .start()) {
            System.out.printf("cluster up: supervisors %s (host name %s) and %s (host name %s, behind the link); Nimbus with %s%n",
                    link.hostAddress(), java.net.InetAddress.getLocalHost().getHostName(), link.peerAddress(), link.peerHostName(), EVEN);
            String nimbusScheduler = EVEN;
            int submission = 0;
            for (int round = 0; round < rounds; round++) {
                List<String> order = round % 2 == 0 ? SIDES : List.of(SIDES.get(1), SIDES.get(0));
                for (String side : order) {
                    String scheduler = side.equals("even") ? EVEN : OURS;
                    if (!scheduler.equals(nimbusScheduler)) {
                        long t = System.nanoTime();
                        cluster.restartNimbus(side.equals("even") ? Map.of("storm.scheduler", EVEN) : oursNimbusConf);
                        nimbusScheduler = scheduler;
                        System.out.printf("Nimbus restarted with %s in %.1f s%n", scheduler, (System.nanoTime() - t) / 1e9);
                    }
                    runSide(cluster, link, side, round, "e2e-" + (side.equals("even") ? "even" : "jetstream") + "-" + submission++,
                            scratch.path());
                }
            }
            System.out.printf("%nthe link after the runs:%n%s%n", link.describe());
            if (!logsTo.isEmpty()) {
                cluster.copyLogsTo(Path.of(logsTo));
                System.out.println("engine logs copied to " + logsTo);
            }
        }
        System.out.printf("%nwall time %.1f min%n", (System.nanoTime() - started) / 60e9);
        printResults();
    }

    private void runSide(StormCluster cluster, ShapedNamespace link, String side, int round, String name, Path scratch) throws Exception {
        Path results = Files.createDirectories(scratch.resolve(name + "-results"));
        Path control = scratch.resolve(name + ".control");
        RunControl.write(control, 0, -1);
        Map<String, Object> conf = new HashMap<>();
        conf.put(Config.STORM_MESSAGING_TRANSPORT, context);
        conf.put(Config.TOPOLOGY_WORKERS, 2 * slots);
        conf.put(Config.TOPOLOGY_ACKER_EXECUTORS, 2 * slots);
        conf.put(Config.TOPOLOGY_MAX_SPOUT_PENDING, maxSpoutPending);
        conf.put(Config.TOPOLOGY_MESSAGE_TIMEOUT_SECS, 30);
        conf.put(CrossWorkerTopology.RESULTS_DIR, results.toString());
        conf.put(CrossWorkerTopology.CONTROL_FILE, control.toString());
        conf.put(CrossWorkerTopology.RATE_PER_SPOUT, -1);
        conf.put(CrossWorkerTopology.PAYLOAD_BYTES, payloadBytes);
        conf.putAll(topologyConf);
        Path jar = TopologyJar.ofPackages(scratch.resolve(name + ".jar"), PlacementTopology.PACKAGES);
        cluster.submit(name, conf, PlacementTopology.build(sources, relays, sinks, grouping), jar);
        try {
            TopologyResults reports = new TopologyResults(results);
            Await.until("every spout of " + name + " running", Duration.ofSeconds(240), () -> reports.spouts().size() == sources,
                    () -> "spouts " + reports.spouts());
            String id = cluster.topologyId(name).orElseThrow();
            Assignment assignment = assignment(cluster, id);
            statuses.computeIfAbsent(side, k -> new ArrayList<>()).add(assignment.status());
            System.out.printf("%nround %d/%d %s: %s (%s)%n  status: %s%n  placement: %s%n", round + 1, rounds, side, name, id,
                    assignment.status(), assignment.describe(link.hostAddress()));
            long[] before = link.sentCounters();
            Map<String, PhaseResult> measured = PhaseSchedule.ratesThenMaximum(rates, warmupSeconds, settleSeconds, seconds, true)
                    .drive(control, reports, sources);
            long[] after = link.sentCounters();
            for (Map.Entry<String, PhaseResult> p : measured.entrySet()) {
                phases.computeIfAbsent(p.getKey(), k -> new LinkedHashMap<>()).computeIfAbsent(side, k -> new ArrayList<>()).add(p.getValue());
                System.out.printf("round %d/%d %-9s %-18s %s%n", round + 1, rounds, side, p.getKey(), PhaseSchedule.describe(p.getValue()));
            }
            long acked = reports.spouts().stream().mapToLong(TopologyResults.SpoutReport::acked).sum();
            Crossing crossing = crossing(results, assignment, acked, after[0] - before[0] + after[2] - before[2],
                    routes(cluster, id));
            crossings.computeIfAbsent(side, k -> new ArrayList<>()).add(crossing);
            System.out.printf("  %s%n", crossing.describe());
            if (online && side.equals("JetStream")) {
                afterOnlineCheck(cluster, link, round, id, control, results, reports);
            }
        } finally {
            cluster.kill(name, Duration.ofSeconds(120));
        }
    }

    /**
     * Holds the spouts at the highest fixed rate until JetStream's online check has decided (its status
     * says rebalanced, or placement kept); after a rebalance, waits for the redeployed spouts and runs
     * the schedule again under the measured placement (side {@link #ONLINE_SIDE}).
     */
    private void afterOnlineCheck(StormCluster cluster, ShapedNamespace link, int round, String id, Path control, Path results,
            TopologyResults reports) throws Exception {
        int holdRate = rates.get(rates.size() - 1);
        RunControl.write(control, HOLD_PHASE, Math.max(1, holdRate / sources));
        java.util.Set<Long> pidsBefore = new java.util.HashSet<>();
        reports.spouts().forEach(r -> pidsBefore.add(r.pid()));
        long start = System.nanoTime();
        long deadline = start + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(onlineMinPeriodMs + 180_000);
        String status = "";
        while (System.nanoTime() < deadline) {
            status = assignment(cluster, id).status();
            // "placement kept" also says why it was not yet checked: the minimum period, or records still missing.
            if (status.contains("rebalanced from measured traffic") || status.contains("placement kept")
                    && !status.contains("minimum period") && !status.contains("waiting for traffic")) {
                break;
            }
            Thread.sleep(2_000);
        }
        boolean rebalanced = status.contains("rebalanced from measured traffic");
        System.out.printf("  online check after %.0f s more at %,d tuples/s: %s%n", (System.nanoTime() - start) / 1e9, holdRate, status);
        statuses.computeIfAbsent("JetStream online check", k -> new ArrayList<>()).add(status);
        if (!rebalanced) {
            return;
        }
        Await.until("the redeployed spouts of " + id + " running", Duration.ofSeconds(240),
                () -> reports.spouts().size() == sources && reports.spouts().stream().noneMatch(r -> pidsBefore.contains(r.pid())),
                () -> "spouts " + reports.spouts());
        try (Stream<Path> files = Files.list(results)) {
            for (Path f : files.toList()) {
                String name = f.getFileName().toString();
                if (name.startsWith("phase-") || name.startsWith("relay-") || name.startsWith("sink-")) {
                    Files.deleteIfExists(f);
                }
            }
        }
        Assignment assignment = assignment(cluster, id);
        System.out.printf("  placement after the rebalance: %s%n", assignment.describe(link.hostAddress()));
        long[] before = link.sentCounters();
        Map<String, PhaseResult> measured = PhaseSchedule.ratesThenMaximum(rates, warmupSeconds, settleSeconds, seconds, true)
                .drive(control, reports, sources);
        long[] after = link.sentCounters();
        for (Map.Entry<String, PhaseResult> p : measured.entrySet()) {
            phases.computeIfAbsent(p.getKey(), k -> new LinkedHashMap<>()).computeIfAbsent(ONLINE_SIDE, k -> new ArrayList<>()).add(p.getValue());
            System.out.printf("round %d/%d %-9s %-18s %s%n", round + 1, rounds, "rebalanced", p.getKey(), PhaseSchedule.describe(p.getValue()));
        }
        long acked = reports.spouts().stream().mapToLong(TopologyResults.SpoutReport::acked).sum();
        Crossing crossing = crossing(results, assignment, acked, after[0] - before[0] + after[2] - before[2], routes(cluster, id));
        crossings.computeIfAbsent(ONLINE_SIDE, k -> new ArrayList<>()).add(crossing);
        System.out.printf("  %s%n", crossing.describe());
    }

    // --- where the tasks are ---

    /** Where each task runs, as Nimbus assigned it, and the scheduler's status for the topology. */
    record Assignment(Map<Integer, String> hostOf, Map<Integer, Integer> portOf, Map<Integer, String> componentOf, String status) {
        String workerOf(int task) {
            return hostOf.get(task) + ":" + portOf.get(task);
        }

        /** Per worker (this side's host first): how many tasks of each component. */
        String describe(String firstHost) {
            Map<String, Map<String, Integer>> byWorker = new TreeMap<>((a, b) -> {
                boolean aFirst = a.startsWith(firstHost + ":");
                boolean bFirst = b.startsWith(firstHost + ":");
                return aFirst != bFirst ? (aFirst ? -1 : 1) : a.compareTo(b);
            });
            for (Map.Entry<Integer, String> e : componentOf.entrySet()) {
                byWorker.computeIfAbsent(workerOf(e.getKey()), k -> new TreeMap<>()).merge(e.getValue(), 1, Integer::sum);
            }
            List<String> parts = new ArrayList<>();
            byWorker.forEach((worker, counts) -> parts.add(worker + " " + counts));
            return String.join("; ", parts);
        }
    }

    private static Assignment assignment(StormCluster cluster, String id) throws Exception {
        TopologyInfo info;
        try (NimbusClient client = cluster.nimbus()) {
            info = client.getClient().getTopologyInfo(id);
        }
        Map<Integer, String> host = new HashMap<>();
        Map<Integer, Integer> port = new HashMap<>();
        Map<Integer, String> component = new HashMap<>();
        for (ExecutorSummary e : info.get_executors()) {
            if (e.get_component_id().startsWith("__system")) {
                continue;
            }
            for (int t = e.get_executor_info().get_task_start(); t <= e.get_executor_info().get_task_end(); t++) {
                host.put(t, e.get_host());
                port.put(t, e.get_port());
                component.put(t, e.get_component_id());
            }
        }
        return new Assignment(host, port, component, info.is_set_sched_status() ? info.get_sched_status() : "(none)");
    }

    // --- where the tuples went ---

    /** One run's traffic: data tuples received by the bolts, by edge, and how many crossed hosts and workers. */
    record Crossing(long[] received, long[] crossedHosts, long[] crossedWorkers, long acked, long linkBytes, Map<String, Integer> routes) {
        static final String[] EDGES = {"source->relay", "relay->sink"};

        double hostFraction() {
            return (double) (crossedHosts[0] + crossedHosts[1]) / Math.max(1, received[0] + received[1]);
        }

        double workerFraction() {
            return (double) (crossedWorkers[0] + crossedWorkers[1]) / Math.max(1, received[0] + received[1]);
        }

        double hostFraction(int edge) {
            return (double) crossedHosts[edge] / Math.max(1, received[edge]);
        }

        double bytesPerAcked() {
            return (double) linkBytes / Math.max(1, acked);
        }

        String describe() {
            return String.format("tuples across hosts %.1f %% (%s %.1f %%, %s %.1f %%), across workers %.1f %% of %,d; link %,d B both ways "
                    + "= %.0f B per acked tuple (%,d acked); transport routes %s", 100 * hostFraction(), EDGES[0], 100 * hostFraction(0),
                    EDGES[1], 100 * hostFraction(1), 100 * workerFraction(), received[0] + received[1], linkBytes, bytesPerAcked(), acked,
                    routes);
        }
    }

    private static Crossing crossing(Path results, Assignment assignment, long acked, long linkBytes, Map<String, Integer> routes)
            throws IOException {
        long[] received = new long[2];
        long[] crossedHosts = new long[2];
        long[] crossedWorkers = new long[2];
        try (Stream<Path> files = Files.list(results)) {
            for (Path f : files.toList()) {
                String file = f.getFileName().toString();
                int edge = file.matches("relay-\\d+") ? 0 : file.matches("sink-\\d+") ? 1 : -1;
                if (edge < 0) {
                    continue;
                }
                int task = Integer.parseInt(file.substring(file.indexOf('-') + 1));
                for (String field : Files.readString(f, StandardCharsets.UTF_8).trim().split("\\s+")) {
                    if (!field.startsWith("from")) {
                        continue;
                    }
                    int eq = field.indexOf('=');
                    int source = Integer.parseInt(field.substring(4, eq));
                    long count = Long.parseLong(field.substring(eq + 1));
                    received[edge] += count;
                    if (!assignment.hostOf().get(source).equals(assignment.hostOf().get(task))) {
                        crossedHosts[edge] += count;
                    }
                    if (!assignment.workerOf(source).equals(assignment.workerOf(task))) {
                        crossedWorkers[edge] += count;
                    }
                }
            }
        }
        return new Crossing(received, crossedHosts, crossedWorkers, acked, linkBytes, routes);
    }

    /** The transport's routes of the topology's workers, from their logs: same host or not, ring or TCP. */
    private static Map<String, Integer> routes(StormCluster cluster, String id) throws IOException {
        Map<String, Integer> routes = new TreeMap<>();
        Path dir = cluster.home().logs().resolve("workers-artifacts").resolve(id);
        if (!Files.isDirectory(dir)) {
            return routes;
        }
        try (Stream<Path> logs = Files.walk(dir)) {
            for (Path log : logs.filter(p -> p.getFileName().toString().equals("worker.log")).toList()) {
                for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                    Matcher m = ROUTE.matcher(line);
                    if (m.find()) {
                        routes.merge((m.group(1).equals("true") ? "same-host" : "other-host") + " over "
                                + (m.group(2).equals("TCP") ? "TCP" : "ring"), 1, Integer::sum);
                    }
                }
            }
        }
        return routes;
    }

    // --- the report ---

    private void printResults() {
        System.out.printf("%nComplete latency pooled over %d rounds, throughput averaged; both on %s:%n%n", rounds, context);
        System.out.println(comparison("JetStream", "JetStream"));
        if (crossings.containsKey(ONLINE_SIDE)) {
            System.out.printf("%nAfter JetStream's online rebalance (%d of %d rounds) against even:%n%n", crossings.get(ONLINE_SIDE).size(), rounds);
            System.out.println(comparison(ONLINE_SIDE, "rebalanced"));
        }
        printWhere();
    }

    private TextTable comparison(String side, String label) {
        TextTable table = new TextTable("phase", "even p50 ms", "even p99 ms", "even acked/s", label + " p50 ms", label + " p99 ms",
                label + " acked/s", "p50 ours/even", "p99 ours/even", "throughput ours/even");
        for (Map.Entry<String, Map<String, List<PhaseResult>>> e : phases.entrySet()) {
            List<PhaseResult> even = e.getValue().getOrDefault("even", List.of());
            List<PhaseResult> ours = e.getValue().getOrDefault(side, List.of());
            LatencySummary el = LatencySummary.ofAll(even.stream().map(PhaseResult::latencies).toList());
            LatencySummary ol = LatencySummary.ofAll(ours.stream().map(PhaseResult::latencies).toList());
            double et = even.stream().mapToDouble(PhaseResult::throughput).average().orElse(Double.NaN);
            double ot = ours.stream().mapToDouble(PhaseResult::throughput).average().orElse(Double.NaN);
            table.row(e.getKey(), TextTable.number(el.p50Micros() / 1e3, 2), TextTable.number(el.p99Micros() / 1e3, 2), TextTable.number(et, 0),
                    TextTable.number(ol.p50Micros() / 1e3, 2), TextTable.number(ol.p99Micros() / 1e3, 2), TextTable.number(ot, 0),
                    TextTable.number(ol.p50Micros() / el.p50Micros(), 2), TextTable.number(ol.p99Micros() / el.p99Micros(), 2),
                    TextTable.number(ot / et, 2));
        }
        return table;
    }

    private void printWhere() {
        System.out.printf("%nWhere the tuples went (whole run of each side, warm-up included; mean over rounds):%n%n");
        TextTable where = new TextTable("scheduler", "tuples across hosts", Crossing.EDGES[0] + " across hosts",
                Crossing.EDGES[1] + " across hosts", "tuples across workers", "link bytes per acked tuple", "per round across hosts");
        for (String side : crossings.keySet().stream().sorted(java.util.Comparator.comparing(s -> s.equals("even") ? 0 : 1)).toList()) {
            List<Crossing> c = crossings.getOrDefault(side, List.of());
            where.row(side, percent(c.stream().mapToDouble(Crossing::hostFraction).average().orElse(Double.NaN)),
                    percent(c.stream().mapToDouble(x -> x.hostFraction(0)).average().orElse(Double.NaN)),
                    percent(c.stream().mapToDouble(x -> x.hostFraction(1)).average().orElse(Double.NaN)),
                    percent(c.stream().mapToDouble(Crossing::workerFraction).average().orElse(Double.NaN)),
                    TextTable.number(c.stream().mapToDouble(Crossing::bytesPerAcked).average().orElse(Double.NaN), 0),
                    String.join(", ", c.stream().map(x -> percent(x.hostFraction())).toList()));
        }
        System.out.println(where);
        System.out.printf("%nScheduler status per round:%n");
        statuses.forEach((side, list) -> list.forEach(s -> System.out.printf("  %s: %s%n", side, s)));
    }

    private static String percent(double fraction) {
        return TextTable.number(100 * fraction, 1) + " %";
    }
}
