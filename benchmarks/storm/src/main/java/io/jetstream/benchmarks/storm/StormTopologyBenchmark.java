package io.jetstream.benchmarks.storm;

import io.jetstream.benchmarks.storm.TopologyRun.Deployment;
import io.jetstream.benchmarks.storm.TopologyRun.Phase;
import io.jetstream.harness.Arguments;
import io.jetstream.harness.LatencySummary;
import io.jetstream.harness.ScratchDirectory;
import io.jetstream.harness.TextTable;
import io.jetstream.harness.report.TopologyResults.PhaseResult;
import io.jetstream.storm.cluster.StormCluster;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Storm's stock messaging context against ours inside a real Storm cluster on this host: ZooKeeper,
 * Nimbus and one supervisor with one slot per worker, worker JVMs launched by the supervisor with
 * JetStream's shaded jar in {@code extlib/} ({@link StormCluster}). The topology
 * ({@code CrossWorkerTopology}: spout → relay → sink with acking, both edges grouped so that every
 * tuple crosses workers twice) is submitted once per context per round, alternating which goes first,
 * and moved through phases: a warm-up, then fixed total rates (complete latency p50/p99 from the
 * spouts' acks, each after a settling phase), then as fast as acking allows (maximum throughput).
 * Engine logs go to files under the cluster's directory; progress lines to stdout.
 *
 * <pre>
 * ./mvnw -q -Pstorm-bench -DskipTests package -pl benchmarks/storm -am -Dbench.class=StormTopologyBenchmark \
 *   -Dbench.args="--rounds 2 --seconds 15"
 * options: --stock CLASS --ours CLASS --rounds 2 --workers 4 --rates 1000,10000,50000 --warmup-seconds 20
 *          --settle-seconds 3 --seconds 15 --payload-bytes 128 --max-spout-pending 1000
 *          --stock-conf key=value --ours-conf key=value (repeatable: topology configuration of either side)
 *          --logs-to DIR (keep the engine logs, which go with the cluster's temporary directory otherwise)
 * </pre>
 */
public final class StormTopologyBenchmark {
    private final String stock;
    private final String ours;
    private final int rounds;
    private final int workers;
    private final List<Integer> rates;
    private final int warmupSeconds;
    private final int settleSeconds;
    private final int seconds;
    private final Deployment deployment;
    private final Map<String, Object> stockConf;
    private final Map<String, Object> oursConf;
    private final String logsTo;
    /** Results by phase name, then side, one per round. */
    private final Map<String, Map<String, List<PhaseResult>>> results = new LinkedHashMap<>();

    private StormTopologyBenchmark(Arguments args) {
        this.stock = args.string("stock", StormHopLatency.STOCK);
        this.ours = args.string("ours", StormHopLatency.JETSTREAM);
        this.rounds = args.integer("rounds", 2);
        this.workers = args.integer("workers", 4);
        this.rates = args.integers("rates", List.of(1_000, 10_000, 50_000));
        this.warmupSeconds = args.integer("warmup-seconds", 20);
        this.settleSeconds = args.integer("settle-seconds", 3);
        this.seconds = args.integer("seconds", 15);
        this.deployment = new Deployment(workers, workers, args.integer("payload-bytes", 128), args.integer("max-spout-pending", 1_000));
        this.stockConf = TopologyConf.parse(args.all("stock-conf"));
        this.oursConf = TopologyConf.parse(args.all("ours-conf"));
        this.logsTo = args.string("logs-to", "");
        args.requireAllRead();
        if (workers < 4) {
            throw new IllegalArgumentException("--workers must be at least 4");
        }
    }

    public static void main(String[] argv) throws Exception {
        new StormTopologyBenchmark(new Arguments(argv)).run();
    }

    private List<Phase> phases() {
        List<Phase> phases = new ArrayList<>();
        phases.add(Phase.settle(rates.get(0), warmupSeconds));
        for (int rate : rates) {
            phases.add(Phase.settle(rate, settleSeconds));
            phases.add(Phase.measure(String.format("%,d tuples/s", rate), rate, seconds));
        }
        phases.add(Phase.settle(0, settleSeconds));
        phases.add(Phase.measure("max throughput", 0, seconds));
        return phases;
    }

    private void run() throws Exception {
        BenchmarkEnvironment env = new BenchmarkEnvironment();
        System.out.printf("Storm topology benchmark: %d workers on one supervisor, spout → relay → sink with acking, every tuple crossing workers twice%n"
                + "stock = %s%nours  = %s%n%d rounds, %d s per measured phase, %d B payload, max.spout.pending %d%n%n",
                workers, stock, ours, rounds, seconds, deployment.payloadBytes(), deployment.maxSpoutPending());
        try (ScratchDirectory scratch = ScratchDirectory.create("jetstream-storm-topology-bench-");
                StormCluster cluster = StormCluster.builder()
                        .extlib(env.transportJar())
                        .workerJvmFlags(env.workerJvmFlags())
                        .workerJvmOptions("-Xmx768m")
                        .supervisor("127.0.0.1", workers)
                        .start()) {
            System.out.printf("cluster up in %s (logs under %s)%n", cluster.home().root(), cluster.home().logs());
            int submission = 0;
            for (int round = 0; round < rounds; round++) {
                List<String> order = round % 2 == 0 ? List.of("stock", "ours") : List.of("ours", "stock");
                for (String side : order) {
                    String contextClass = side.equals("stock") ? stock : ours;
                    Map<String, Object> conf = side.equals("stock") ? stockConf : oursConf;
                    Map<String, PhaseResult> phases = TopologyRun.run(cluster, "bench-" + side + "-" + submission++, contextClass, conf,
                            deployment, phases(), scratch.path());
                    for (Map.Entry<String, PhaseResult> p : phases.entrySet()) {
                        results.computeIfAbsent(p.getKey(), k -> new LinkedHashMap<>()).computeIfAbsent(side, k -> new ArrayList<>())
                                .add(p.getValue());
                        System.out.printf("round %d/%d %-5s %-18s %s%n", round + 1, rounds, side, p.getKey(), TopologyRun.describe(p.getValue()));
                    }
                }
            }
            if (!logsTo.isEmpty()) {
                cluster.copyLogsTo(java.nio.file.Path.of(logsTo));
                System.out.println("engine logs copied to " + logsTo);
            }
        }
        printResults();
    }

    private void printResults() {
        TextTable table = new TextTable("phase", "stock p50 ms", "stock p99 ms", "stock acked/s", "ours p50 ms", "ours p99 ms", "ours acked/s",
                "p50 ours/stock", "p99 ours/stock", "throughput ours/stock");
        for (Map.Entry<String, Map<String, List<PhaseResult>>> e : results.entrySet()) {
            List<PhaseResult> s = e.getValue().getOrDefault("stock", List.of());
            List<PhaseResult> o = e.getValue().getOrDefault("ours", List.of());
            LatencySummary sl = LatencySummary.ofAll(s.stream().map(PhaseResult::latencies).toList());
            LatencySummary ol = LatencySummary.ofAll(o.stream().map(PhaseResult::latencies).toList());
            double st = meanThroughput(s);
            double ot = meanThroughput(o);
            table.row(e.getKey(), TextTable.number(sl.p50Micros() / 1e3, 2), TextTable.number(sl.p99Micros() / 1e3, 2), TextTable.number(st, 0),
                    TextTable.number(ol.p50Micros() / 1e3, 2), TextTable.number(ol.p99Micros() / 1e3, 2), TextTable.number(ot, 0),
                    TextTable.number(ol.p50Micros() / sl.p50Micros(), 2), TextTable.number(ol.p99Micros() / sl.p99Micros(), 2),
                    TextTable.number(ot / st, 2));
        }
        System.out.printf("%nComplete latency pooled over %d rounds, throughput averaged (stock = %s, ours = %s):%n%n%s", rounds, stock, ours, table);
    }

    private static double meanThroughput(List<PhaseResult> runs) {
        return runs.stream().mapToDouble(PhaseResult::throughput).average().orElse(Double.NaN);
    }
}
