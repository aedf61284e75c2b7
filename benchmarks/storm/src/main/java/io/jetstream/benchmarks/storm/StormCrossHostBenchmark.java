package io.jetstream.benchmarks.storm;

import io.jetstream.benchmarks.storm.TopologyRun.Deployment;
import io.jetstream.harness.EngineSides;
import io.jetstream.harness.ScratchDirectory;
import io.jetstream.harness.report.PhaseComparison;
import io.jetstream.harness.report.PhaseSchedule;
import io.jetstream.harness.report.PhaseSchedule.Phase;
import io.jetstream.harness.report.TopologyResults.PhaseResult;
import io.jetstream.storm.cluster.StormCluster;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.storm.Config;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Storm's stock messaging context against ours between two "hosts" joined by a shaped link: a real
 * Storm cluster whose first supervisor runs in this network namespace and whose second runs in a
 * namespace of its own behind a veth pair, each direction shaped by {@code tc tbf} (100 Mbit/s by
 * default; {@code netem} is not available in this kernel) ({@link ShapedNamespace}). One slot per
 * supervisor, so the cross-worker topology's two workers sit on either side and every tuple crosses
 * the link twice (there and back); ZooKeeper and Nimbus run on this side.
 *
 * <p>Stock is first given its best {@code storm.messaging.netty.transfer.batch.size}: a sweep of
 * maximum throughput over {@code --batch-sizes} picks it. Then, in rounds alternating which context
 * goes first: complete latency p50/p99 at low fixed rates, and maximum throughput.
 *
 * <p>Needs root (network namespaces, tc); otherwise prints why and exits with 0.
 *
 * <pre>
 * sudo ./mvnw -q -Pstorm-bench -DskipTests package -pl benchmarks/storm -am -Dbench.class=StormCrossHostBenchmark \
 *   -Dbench.args="--rounds 2 --seconds 15"
 * options: --stock CLASS --ours CLASS --rounds 2 --link-rate 100mbit --link-burst 32kb --low-rates 100,1000
 *          --batch-sizes 16384,65536,262144,1048576 --warmup-seconds 15 --settle-seconds 3 --seconds 10
 *          --payload-bytes 1024 --max-spout-pending 1000 --stock-conf key=value --ours-conf key=value
 *          --logs-to DIR (keep the engine logs, which go with the cluster's temporary directory otherwise)
 * </pre>
 */
@Command(name = "StormCrossHostBenchmark", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Storm's stock messaging context against JetStream's between two network namespaces joined by a shaped link (needs root).")
public final class StormCrossHostBenchmark implements Callable<Integer> {
    @Mixin
    private final EngineSides sides = new EngineSides(StormHopLatency.STOCK, StormHopLatency.JETSTREAM);
    @Option(names = "--rounds", description = "Rounds, each running both sides, alternating which goes first.")
    private int rounds = 2;
    @Option(names = "--link-rate", description = "tc tbf rate of each direction of the link.")
    private String linkRate = "100mbit";
    @Option(names = "--link-burst", description = "tc tbf burst of each direction of the link.")
    private String linkBurst = "32kb";
    @Option(names = "--low-rates", split = ",", description = "Total spout rates (tuples/s) of the fixed-rate phases.")
    private List<Integer> lowRates = List.of(100, 1_000);
    @Option(names = "--batch-sizes", split = ",",
            description = "storm.messaging.netty.transfer.batch.size values swept to give stock its best.")
    private List<Integer> batchSizes = List.of(16_384, 65_536, 262_144, 1_048_576);
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

    private Deployment deployment;
    private String stock;
    private String ours;
    private String logsTo;
    private Map<String, Object> stockConf;
    private Map<String, Object> oursConf;
    private final PhaseComparison results = new PhaseComparison();
    /** What crossed the link per acked tuple, by phase name, then side, one value per round. */
    private final Map<String, Map<String, List<LinkPerTuple>>> linkPerTuple = new LinkedHashMap<>();

    /** Link bytes and packets (both directions) per acked tuple in one phase; packets show headers and pure acknowledgements. */
    private record LinkPerTuple(double bytes, double packets) {}

    public static void main(String[] argv) {
        System.exit(new CommandLine(new StormCrossHostBenchmark()).execute(argv));
    }

    @Override
    public Integer call() throws Exception {
        if (!ShapedNamespace.runningAsRoot()) {
            System.out.println("StormCrossHostBenchmark needs root (ip netns, tc tbf) to make the second host; not run.");
            return 0;
        }
        deployment = new Deployment(2, 2, payloadBytes, maxSpoutPending);
        stock = sides.stockContext();
        ours = sides.oursContext();
        logsTo = sides.logsTo();
        stockConf = sides.configurationOf(EngineSides.STOCK);
        oursConf = sides.configurationOf(EngineSides.OURS);
        run();
        return 0;
    }

    private void run() throws Exception {
        BenchmarkEnvironment env = new BenchmarkEnvironment();
        System.out.printf("Storm across a shaped link (%s each way, tc tbf burst %s): two supervisors in two network namespaces, one worker each%n"
                + "stock = %s%nours  = %s%n%d B payload, max.spout.pending %d, %d s per measured phase%n%n",
                linkRate, linkBurst, stock, ours, deployment.payloadBytes(), deployment.maxSpoutPending(), seconds);
        try (ScratchDirectory scratch = ScratchDirectory.create("jetstream-storm-crosshost-");
                ShapedNamespace link = ShapedNamespace.create(linkRate, linkBurst);
                StormCluster cluster = StormCluster.builder()
                        .extlib(env.transportJar())
                        .workerJvmOptions("-Xmx768m")
                        .coordinatorHost(link.hostAddress())
                        .supervisor(link.hostAddress(), 1)
                        .supervisor(link.peerAddress(), 1, link.peerPrefix())
                        .start()) {
            System.out.printf("cluster up: supervisors %s (this namespace) and %s (behind the link)%n", link.hostAddress(), link.peerAddress());
            int submission = 0;

            // Stock at its best batch size: maximum throughput per transfer.batch.size.
            int bestBatch = -1;
            double best = -1;
            for (int batch : batchSizes) {
                Map<String, Object> conf = new LinkedHashMap<>(stockConf);
                conf.put(Config.STORM_NETTY_MESSAGE_BATCH_SIZE, batch);
                PhaseSchedule sweep = new PhaseSchedule(List.of(Phase.settle(lowRates.get(0), warmupSeconds), Phase.settle(0, settleSeconds),
                        Phase.measure("max throughput", 0, seconds)));
                PhaseResult max = TopologyRun.run(cluster, "sweep-" + submission++, stock, conf, deployment, sweep, scratch.path())
                        .get("max throughput");
                System.out.printf("sweep stock transfer.batch.size %,9d B: %s%n", batch, PhaseSchedule.describe(max));
                if (max.throughput() > best) {
                    best = max.throughput();
                    bestBatch = batch;
                }
            }
            System.out.printf("stock's best storm.messaging.netty.transfer.batch.size: %,d B%n%n", bestBatch);
            Map<String, Object> bestStock = new LinkedHashMap<>(stockConf);
            bestStock.put(Config.STORM_NETTY_MESSAGE_BATCH_SIZE, bestBatch);

            for (int round = 0; round < rounds; round++) {
                List<String> order = round % 2 == 0 ? List.of("stock", "ours") : List.of("ours", "stock");
                for (String side : order) {
                    Map<Integer, long[]> linkAtBoundary = new HashMap<>();
                    Map<String, PhaseResult> phases = TopologyRun.run(cluster, "cross-" + side + "-" + submission++,
                            side.equals("stock") ? stock : ours, side.equals("stock") ? bestStock : oursConf, deployment,
                            PhaseSchedule.ratesThenMaximum(lowRates, warmupSeconds, settleSeconds, seconds, true),
                            scratch.path(), phase -> linkAtBoundary.put(phase, sentCounters(link)));
                    for (Map.Entry<String, PhaseResult> p : phases.entrySet()) {
                        results.add(p.getKey(), side, p.getValue());
                        long[] from = linkAtBoundary.get(p.getValue().phase());
                        long[] to = linkAtBoundary.get(p.getValue().phase() + 1);
                        long linkBytes = to[0] - from[0] + to[2] - from[2];
                        long linkPackets = to[1] - from[1] + to[3] - from[3];
                        long acked = p.getValue().acked();
                        LinkPerTuple perTuple = acked == 0 ? new LinkPerTuple(0.0, 0.0)
                                : new LinkPerTuple((double) linkBytes / acked, (double) linkPackets / acked);
                        linkPerTuple.computeIfAbsent(p.getKey(), k -> new HashMap<>()).computeIfAbsent(side, k -> new ArrayList<>())
                                .add(perTuple);
                        System.out.printf("round %d/%d %-5s %-18s %s  link %,d B in %,d packets (both ways) = %,.0f B, %.2f packets per acked tuple%n",
                                round + 1, rounds, side, p.getKey(), PhaseSchedule.describe(p.getValue()), linkBytes, linkPackets,
                                perTuple.bytes(), perTuple.packets());
                    }
                }
            }
            System.out.printf("%nthe link after the runs:%n%s%n", link.describe());
            if (!logsTo.isEmpty()) {
                cluster.copyLogsTo(java.nio.file.Path.of(logsTo));
                System.out.println("engine logs copied to " + logsTo);
            }
            printResults(bestBatch);
        }
    }

    private void printResults(int bestBatch) {
        System.out.printf("%nComplete latency pooled over %d rounds, throughput averaged; stock with transfer.batch.size %,d B (stock = %s, ours = %s):%n%n%s",
                rounds, bestBatch, stock, ours, results.table());
        System.out.printf("%nLink bytes and packets (both qdiscs, from the phase's start to the next's) per acked tuple, mean over rounds:%n");
        for (Map.Entry<String, Map<String, List<LinkPerTuple>>> phase : linkPerTuple.entrySet()) {
            List<LinkPerTuple> stockRounds = phase.getValue().get("stock");
            List<LinkPerTuple> oursRounds = phase.getValue().get("ours");
            double s = mean(stockRounds, LinkPerTuple::bytes);
            double o = mean(oursRounds, LinkPerTuple::bytes);
            double sp = mean(stockRounds, LinkPerTuple::packets);
            double op = mean(oursRounds, LinkPerTuple::packets);
            System.out.printf("  %-18s stock %,.0f B in %.2f packets, ours %,.0f B in %.2f packets (ours/stock %.3f bytes, %.3f packets)%n",
                    phase.getKey(), s, sp, o, op, o / s, op / sp);
        }
    }

    private static double mean(List<LinkPerTuple> rounds, java.util.function.ToDoubleFunction<LinkPerTuple> field) {
        return rounds == null ? Double.NaN : rounds.stream().mapToDouble(field).average().orElse(Double.NaN);
    }

    /** The link's byte counters; a benchmark that cannot read them cannot report what crossed the link. */
    private static long[] sentCounters(ShapedNamespace link) {
        try {
            return link.sentCounters();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("reading the link's qdisc counters", e);
        }
    }
}
