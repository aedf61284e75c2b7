package io.jetstream.benchmarks.jstorm;

import backtype.storm.Config;
import backtype.storm.StormSubmitter;
import backtype.storm.utils.NimbusClient;
import com.alibaba.jstorm.client.ConfigExtension;
import io.jetstream.benchmarks.jstorm.topology.JStormCrossWorkerTopology;
import io.jetstream.harness.Await;
import io.jetstream.harness.EngineSides;
import io.jetstream.harness.ScratchDirectory;
import io.jetstream.harness.TopologyJar;
import io.jetstream.harness.report.PhaseComparison;
import io.jetstream.harness.report.PhaseSchedule;
import io.jetstream.harness.report.RunControl;
import io.jetstream.harness.report.TopologyResults;
import io.jetstream.harness.report.TopologyResults.PhaseResult;
import io.jetstream.jstorm.cluster.JStormCluster;
import io.jetstream.scheduler.jstorm.JStormAssignmentPlanner;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * JStorm 2.2.1's stock messaging context ({@code com.alibaba.jstorm.message.netty.NettyContext})
 * against JetStream's ({@code io.jetstream.jstorm.transport.JetStreamJStormContext}) on the real,
 * distributed JStorm cluster the JStorm tests start ({@link JStormCluster}: Nimbus and a supervisor
 * as JVMs, workers launched by the supervisor, JetStream's shaded jar in {@code extlib/}), all on this
 * host. The cross-worker topology ({@link JStormCrossWorkerTopology}: spout → relay → sink with
 * acking, every tuple crossing workers twice) is submitted once per context per round, alternating
 * which goes first, and moved through a warm-up, fixed total rates (complete latency from the
 * spouts' acks) and maximum throughput. Engine logs go to files under the cluster's directory.
 *
 * <pre>
 * ./mvnw -q -Pjstorm-bench -DskipTests package -pl benchmarks/jstorm -am -Dbench.args="--rounds 2 --seconds 15"
 * options: --stock CLASS --ours CLASS --rounds 2 --workers 4 --rates 1000,10000 --warmup-seconds 20
 *          --settle-seconds 3 --seconds 15 --payload-bytes 128 --max-spout-pending 1000
 *          --stock-conf key=value --ours-conf key=value (repeatable: topology configuration of either side)
 *          --logs-to DIR (keep the engine logs, which go with the cluster's temporary directory otherwise)
 * </pre>
 * JStorm's own batching stays as it ships ({@code task.batch.tuple: true}, 50 tuples or 2 ms), on both sides.
 */
@Command(name = "JStormTopologyBenchmark", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "JStorm's stock messaging context against JetStream's in a real JStorm cluster on this host.")
public final class JStormTopologyBenchmark implements Callable<Integer> {
    static final String STOCK = "com.alibaba.jstorm.message.netty.NettyContext";
    static final String JETSTREAM = "io.jetstream.jstorm.transport.JetStreamJStormContext";

    @Mixin
    private final EngineSides sides = new EngineSides(STOCK, JETSTREAM);
    @Option(names = "--rounds", description = "Rounds, each running both sides, alternating which goes first.")
    private int rounds = 2;
    @Option(names = "--workers", description = "Worker JVMs on the one supervisor.")
    private int workers = 4;
    @Option(names = "--rates", split = ",", description = "Total spout rates (tuples/s) of the fixed-rate phases.")
    private List<Integer> rates = List.of(1_000, 10_000);
    @Option(names = "--warmup-seconds", description = "Length of the warm-up phase.")
    private int warmupSeconds = 20;
    @Option(names = "--settle-seconds", description = "Settling phase before each measured phase.")
    private int settleSeconds = 3;
    @Option(names = "--seconds", description = "Length of each measured phase.")
    private int seconds = 15;
    @Option(names = "--payload-bytes", description = "Payload of each tuple.")
    private int payloadBytes = 128;
    @Option(names = "--max-spout-pending", description = "topology.max.spout.pending.")
    private int maxSpoutPending = 1_000;

    private String stock;
    private String ours;
    private String logsTo;
    private Map<String, Object> stockConf;
    private Map<String, Object> oursConf;
    private final Properties build = new Properties();
    private final PhaseComparison results = new PhaseComparison();

    public static void main(String[] argv) {
        System.exit(new CommandLine(new JStormTopologyBenchmark()).execute(argv));
    }

    @Override
    public Integer call() throws Exception {
        stock = sides.stockContext();
        ours = sides.oursContext();
        logsTo = sides.logsTo();
        stockConf = sides.configurationOf(EngineSides.STOCK);
        oursConf = sides.configurationOf(EngineSides.OURS);
        try (InputStream in = JStormTopologyBenchmark.class.getResourceAsStream("/jetstream-jstorm-benchmarks.properties")) {
            if (in == null) {
                throw new IllegalStateException("jetstream-jstorm-benchmarks.properties missing: build with Maven");
            }
            build.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        run();
        return 0;
    }

    private void run() throws Exception {
        Path extlib = requireFile(build.getProperty("jstorm.transport.jar"));
        Path slf4j = requireFile(build.getProperty("jstorm.slf4j.jar"));
        System.out.printf("JStorm topology benchmark: %d workers on one supervisor, spout → relay → sink with acking, every tuple crossing workers twice%n"
                + "stock = %s%nours  = %s%n%d rounds, %d s per measured phase, %d B payload, max.spout.pending %d%n%n",
                workers, stock, ours, rounds, seconds, payloadBytes, maxSpoutPending);
        try (ScratchDirectory scratch = ScratchDirectory.create("jetstream-jstorm-bench-")) {
            // One slot more than the topology takes: JStorm 2.2.1 fails to assign a topology that takes every slot.
            try (JStormCluster cluster = JStormCluster.start(scratch.path().resolve("cluster"), Map.of("host-a", workers + 1), extlib, slf4j)) {
                System.out.printf("cluster up in %s (logs under %s)%n", cluster.home(), cluster.home().resolve("logs"));
                try {
                    runRounds(cluster, scratch.path());
                } finally {
                    if (!logsTo.isEmpty()) {
                        copyTree(cluster.home().resolve("logs"), Path.of(logsTo));
                        System.out.println("engine logs copied to " + logsTo);
                    }
                }
            }
        }
        System.out.printf("%nComplete latency pooled over %d rounds, throughput averaged (stock = %s, ours = %s):%n%n%s", rounds, stock, ours,
                results.table());
    }

    private void runRounds(JStormCluster cluster, Path scratch) throws Exception {
        int submission = 0;
        for (int round = 0; round < rounds; round++) {
            List<String> order = round % 2 == 0 ? List.of(PhaseComparison.STOCK, PhaseComparison.OURS)
                    : List.of(PhaseComparison.OURS, PhaseComparison.STOCK);
            for (String side : order) {
                boolean isStock = side.equals(PhaseComparison.STOCK);
                Map<String, PhaseResult> phases = runOnce(cluster, "bench-" + side + "-" + submission++, isStock ? stock : ours,
                        isStock ? stockConf : oursConf, scratch);
                for (Map.Entry<String, PhaseResult> p : phases.entrySet()) {
                    results.add(p.getKey(), side, p.getValue());
                    System.out.printf("round %d/%d %-5s %-18s %s%n", round + 1, rounds, side, p.getKey(), PhaseSchedule.describe(p.getValue()));
                }
            }
        }
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private Map<String, PhaseResult> runOnce(JStormCluster cluster, String name, String contextClass, Map<String, Object> extraConf,
            Path scratch) throws Exception {
        Path results = Files.createDirectories(scratch.resolve(name + "-results"));
        Path control = scratch.resolve(name + ".control");
        RunControl.write(control, 0, -1);
        Map conf = new HashMap();
        conf.put(Config.STORM_MESSAGING_TRANSPORT, contextClass);
        conf.put(Config.TOPOLOGY_WORKERS, workers);
        conf.put(Config.TOPOLOGY_ACKER_EXECUTORS, workers);
        conf.put(Config.TOPOLOGY_MAX_SPOUT_PENDING, maxSpoutPending);
        conf.put(Config.TOPOLOGY_MESSAGE_TIMEOUT_SECS, 30);
        // nextTuple, ack and fail on one thread, as in Storm (the spout keeps its state unsynchronized).
        ConfigExtension.setSpoutSingleThread(conf, true);
        conf.put(JStormCrossWorkerTopology.RESULTS_DIR, results.toString());
        conf.put(JStormCrossWorkerTopology.CONTROL_FILE, control.toString());
        conf.put(JStormCrossWorkerTopology.PAYLOAD_BYTES, payloadBytes);
        conf.putAll(extraConf);
        Path jar = TopologyJar.ofPackages(scratch.resolve(name + ".jar"), JStormCrossWorkerTopology.PACKAGES);
        System.setProperty("storm.jar", jar.toString());
        System.setProperty("storm.conf.file", cluster.clientConfig().toString());
        forgetSubmittedJar();
        StormSubmitter.submitTopology(name, conf, JStormCrossWorkerTopology.build(workers));
        Map<String, PhaseResult> measured;
        try {
            TopologyResults reports = new TopologyResults(results);
            Await.until("every spout of " + name + " running", Duration.ofSeconds(240), () -> reports.spouts().size() == workers,
                    () -> "spouts " + reports.spouts() + "\n" + cluster.logTails(20));
            measured = PhaseSchedule.ratesThenMaximum(rates, warmupSeconds, settleSeconds, seconds, true).drive(control, reports, workers);
        } catch (Exception | AssertionError e) {
            try {
                kill(cluster, name);
            } catch (Exception | AssertionError notKilled) {
                e.addSuppressed(notKilled);
            }
            throw e;
        }
        kill(cluster, name);
        return measured;
    }

    /**
     * JStorm 2.2.1's {@code StormSubmitter} uploads the user jar once per JVM (a static
     * {@code submittedJar}), but Nimbus removes its inbox copy once the topology is set up: a second
     * submission from one JVM fails with "No jar under …/inbox/…". Forget the first upload.
     */
    private static void forgetSubmittedJar() throws ReflectiveOperationException {
        java.lang.reflect.Field submitted = StormSubmitter.class.getDeclaredField("submittedJar");
        submitted.setAccessible(true);
        submitted.set(null, null);
    }

    /** Kills the topology and waits until Nimbus has freed its slots and no process of it is left. */
    private void kill(JStormCluster cluster, String name) throws Exception {
        NimbusClient client = cluster.nimbus();
        try {
            client.getClient().killTopology(name);
        } finally {
            client.close();
        }
        int slots = cluster.slotsByHost().values().stream().mapToInt(List::size).sum();
        String home = cluster.home().toString();
        Await.until("topology " + name + " gone and its slots free", Duration.ofSeconds(120), () -> {
            NimbusClient c = cluster.nimbus();
            try {
                boolean listed = c.getClient().getClusterInfo().get_topologies().stream().anyMatch(t -> t.get_name().equals(name));
                boolean processes = ProcessHandle.allProcesses().anyMatch(p -> p.info().commandLine()
                        .map(cmd -> cmd.contains(home) && cmd.contains(name)).orElse(false));
                return !listed && !processes && JStormAssignmentPlanner.freeSlots(c.getClient()).size() == slots;
            } catch (Exception e) {
                return false;
            } finally {
                c.close();
            }
        });
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (var files = Files.walk(from)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                Files.createDirectories(target.getParent());
                Files.copy(f, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private static Path requireFile(String path) {
        Path p = Path.of(path).normalize();
        if (!Files.isRegularFile(p)) {
            throw new IllegalStateException(p + " missing: build with ./mvnw -q -DskipTests package -pl benchmarks/jstorm -am");
        }
        return p;
    }
}
