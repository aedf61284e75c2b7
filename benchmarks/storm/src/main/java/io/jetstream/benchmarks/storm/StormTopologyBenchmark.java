package io.jetstream.benchmarks.storm;

import io.jetstream.benchmarks.storm.TopologyRun.Deployment;
import io.jetstream.harness.EngineSides;
import io.jetstream.harness.ScratchDirectory;
import io.jetstream.harness.report.PhaseComparison;
import io.jetstream.harness.report.PhaseSchedule;
import io.jetstream.harness.report.TopologyResults.PhaseResult;
import io.jetstream.storm.cluster.StormCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

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
@Command(name = "StormTopologyBenchmark", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Storm's stock messaging context against JetStream's in a real Storm cluster on this host.")
public final class StormTopologyBenchmark implements Callable<Integer> {
    @Mixin
    private final EngineSides sides = new EngineSides(StormHopLatency.STOCK, StormHopLatency.JETSTREAM);
    @Option(names = "--rounds", description = "Rounds, each running both sides, alternating which goes first.")
    private int rounds = 2;
    @Option(names = "--workers", description = "Worker JVMs (slots on the one supervisor); at least 4.")
    private int workers = 4;
    @Option(names = "--rates", split = ",", description = "Total spout rates (tuples/s) of the fixed-rate phases.")
    private List<Integer> rates = List.of(1_000, 10_000, 50_000);
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

    private Deployment deployment;
    private final PhaseComparison results = new PhaseComparison();

    public static void main(String[] argv) {
        System.exit(new CommandLine(new StormTopologyBenchmark()).execute(argv));
    }

    @Override
    public Integer call() throws Exception {
        if (workers < 4) {
            throw new IllegalArgumentException("--workers must be at least 4, got " + workers);
        }
        deployment = new Deployment(workers, workers, payloadBytes, maxSpoutPending);
        run();
        return 0;
    }

    private void run() throws Exception {
        BenchmarkEnvironment env = new BenchmarkEnvironment();
        System.out.printf("Storm topology benchmark: %d workers on one supervisor, spout → relay → sink with acking, every tuple crossing workers twice%n"
                + "stock = %s%nours  = %s%n%d rounds, %d s per measured phase, %d B payload, max.spout.pending %d%n%n",
                workers, sides.stockContext(), sides.oursContext(), rounds, seconds, deployment.payloadBytes(), deployment.maxSpoutPending());
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
                    String contextClass = sides.contextOf(side);
                    Map<String, Object> conf = sides.configurationOf(side);
                    Map<String, PhaseResult> phases = TopologyRun.run(cluster, "bench-" + side + "-" + submission++, contextClass, conf,
                            deployment, PhaseSchedule.ratesThenMaximum(rates, warmupSeconds, settleSeconds, seconds, true), scratch.path());
                    for (Map.Entry<String, PhaseResult> p : phases.entrySet()) {
                        results.add(p.getKey(), side, p.getValue());
                        System.out.printf("round %d/%d %-5s %-18s %s%n", round + 1, rounds, side, p.getKey(), PhaseSchedule.describe(p.getValue()));
                    }
                }
            }
            if (!sides.logsTo().isEmpty()) {
                cluster.copyLogsTo(java.nio.file.Path.of(sides.logsTo()));
                System.out.println("engine logs copied to " + sides.logsTo());
            }
        }
        printResults();
    }

    private void printResults() {
        System.out.printf("%nComplete latency pooled over %d rounds, throughput averaged (stock = %s, ours = %s):%n%n%s", rounds, sides.stockContext(), sides.oursContext(),
                results.table());
    }
}
