package io.jetstream.benchmarks.storm;

import io.jetstream.benchmarks.storm.TopologyRun.Deployment;
import io.jetstream.harness.Arguments;
import io.jetstream.harness.ScratchDirectory;
import io.jetstream.harness.report.PhaseComparison;
import io.jetstream.harness.report.PhaseSchedule;
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
    private final PhaseComparison results = new PhaseComparison();

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
        this.stockConf = args.configuration("stock-conf");
        this.oursConf = args.configuration("ours-conf");
        this.logsTo = args.string("logs-to", "");
        args.requireAllRead();
        if (workers < 4) {
            throw new IllegalArgumentException("--workers must be at least 4");
        }
    }

    public static void main(String[] argv) throws Exception {
        new StormTopologyBenchmark(new Arguments(argv)).run();
    }

    private void run() throws Exception {
        BenchmarkEnvironment env = new BenchmarkEnvironment();
        System.out.printf("Storm topology benchmark: %d workers on one supervisor, spout → relay → sink with acking, every tuple crossing workers twice%n"
                + "stock = %s%nours  = %s%n%d rounds, %d s per measured phase, %d B payload, max.spout.pending %d%n%n",
                workers, stock, ours, rounds, seconds, deployment.payloadBytes(), deployment.maxSpoutPending());
        try (ScratchDirectory scratch = ScratchDirectory.create("jetstream-storm-topology-bench-");
                StormCluster cluster = StormCluster.builder()
                        .extlib(env.transportJar())
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
                            deployment, PhaseSchedule.ratesThenMaximum(rates, warmupSeconds, settleSeconds, seconds, true), scratch.path());
                    for (Map.Entry<String, PhaseResult> p : phases.entrySet()) {
                        results.add(p.getKey(), side, p.getValue());
                        System.out.printf("round %d/%d %-5s %-18s %s%n", round + 1, rounds, side, p.getKey(), PhaseSchedule.describe(p.getValue()));
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
        System.out.printf("%nComplete latency pooled over %d rounds, throughput averaged (stock = %s, ours = %s):%n%n%s", rounds, stock, ours,
                results.table());
    }
}
