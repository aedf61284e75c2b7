package io.jetstream.benchmarks.flink;

import io.jetstream.flink.cluster.FlinkProcessCluster;
import io.jetstream.flink.shuffle.JetStreamShuffleServiceFactory;
import io.jetstream.harness.LatencySummary;
import io.jetstream.harness.Median;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.runtime.io.network.NettyShuffleServiceFactory;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.legacy.RichSinkFunction;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Parameters;

/**
 * The same-host case of several TaskManagers per node (Kubernetes, YARN): the job of
 * {@link FlinkFlushBenchmark} ({@code source -> rebalance -> map -> keyBy -> sink}, both hops across
 * TaskManagers) on a session cluster whose two TaskManagers are JVMs of their own on this host
 * ({@link FlinkProcessCluster}). Stock Flink moves the buffers over Netty on TCP loopback; JetStream as
 * it ships moves them through the shared-memory ring, with flush control deciding when each
 * subpartition's data leaves.
 *
 * <p>Sides, all in one run, each on a cluster of its own (a JobManager and two fresh TaskManager JVMs)
 * in every round, the order reversed in odd rounds: stock at buffer timeouts 1 ms and 100 ms (Flink's
 * default), JetStream at Flink's default as it ships (ring), and with the ring off (Flink's Netty, flush
 * control only). Per side: p50/p99 at fixed rates (the sink, in the source's TaskManager, takes
 * {@code nanoTime - stamp}; its first second is warm-up), and the unpaced maximum (records over the
 * time between the sink's first and last record; the better of two runs per round, the median over
 * rounds). The ring side checks in the TaskManagers' logs that its exchanges went over the ring.
 *
 * <p>Arguments (optional, positional; {@code --help} lists them): {@code rounds seconds-per-rate max-records [key=value ...]};
 * the key=value pairs configure every side's cluster (e.g. {@code env.java.opts.taskmanager=-agentpath:...} to profile the
 * TaskManagers, whose pids are printed per side).
 */
@Command(name = "FlinkProcessBenchmark", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Stock Flink shuffle against JetStream's between two TaskManager JVMs on this host.")
public final class FlinkProcessBenchmark implements Callable<Integer> {
    static final int[] RATES = FlinkFlushBenchmark.RATES;
    static final int UNPACED_RUNS = 2;
    private static final String RING_LINE = "move over the same-host ring";

    record Side(String name, boolean jetstream, long timeoutMs, Map<String, String> conf) {}

    static final String STOCK_1MS = "stock @1 ms";
    static final String STOCK_100MS = "stock @100 ms";
    static final String OURS = "JetStream @100 ms (ring)";
    static final String OURS_NETTY = "JetStream @100 ms (Netty)";

    private static final Map<String, Map<Integer, List<double[]>>> LATENCY = new LinkedHashMap<>();
    private static final Map<String, List<Double>> THROUGHPUT = new LinkedHashMap<>();
    /** Options of every side's cluster (arguments after the third, key=value). */
    private static final Map<String, String> CLUSTER_CONF = new LinkedHashMap<>();

    @Parameters(index = "0", arity = "0..1", paramLabel = "ROUNDS",
            description = "Rounds, each running every side, alternating the order.")
    private int rounds = 2;
    @Parameters(index = "1", arity = "0..1", paramLabel = "SECONDS", description = "Seconds per fixed rate.")
    private int seconds = 4;
    @Parameters(index = "2", arity = "0..1", paramLabel = "MAX-RECORDS",
            description = "Records of each unpaced (maximum throughput) run.")
    private long maxRecords = 3_000_000;
    @Parameters(index = "3..*", showDefaultValue = Visibility.NEVER, paramLabel = "KEY=VALUE",
            description = "Configuration of every side's cluster.")
    private Map<String, String> clusterConf = new LinkedHashMap<>();

    public static void main(String[] args) {
        System.exit(new CommandLine(new FlinkProcessBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        CLUSTER_CONF.putAll(clusterConf);
        List<Side> sides = List.of(
                new Side(STOCK_1MS, false, 1, Map.of()),
                new Side(STOCK_100MS, false, 100, Map.of()),
                new Side(OURS, true, 100, Map.of()),
                new Side(OURS_NETTY, true, 100, Map.of("taskmanager.network.jetstream.ring.enabled", "false")));
        for (Side s : sides) {
            Map<Integer, List<double[]>> byRate = new LinkedHashMap<>();
            for (int r : RATES) {
                byRate.put(r, new ArrayList<>());
            }
            LATENCY.put(s.name(), byRate);
            THROUGHPUT.put(s.name(), new ArrayList<>());
        }
        Path work = Files.createTempDirectory("jetstream-flink-process-bench");
        long started = System.nanoTime();
        for (int round = 0; round < rounds; round++) {
            List<Side> order = new ArrayList<>(sides);
            if (round % 2 == 1) {
                Collections.reverse(order);
            }
            for (Side side : order) {
                runSide(side, seconds, maxRecords, round, Files.createDirectories(work.resolve("r" + round + "-" + slug(side))));
            }
        }
        print(rounds, seconds, maxRecords, (System.nanoTime() - started) / 1e9);
        return 0;
    }

    private static String slug(Side side) {
        return side.name().replaceAll("[^A-Za-z0-9]+", "-");
    }

    private static void runSide(Side side, int seconds, long maxRecords, int round, Path dir) throws Exception {
        Configuration conf = new Configuration();
        conf.setString("shuffle-service-factory.class", side.jetstream()
                ? JetStreamShuffleServiceFactory.class.getName() : NettyShuffleServiceFactory.class.getName());
        conf.setString("jobmanager.memory.process.size", "512m");
        conf.setString("restart-strategy.type", "none");
        CLUSTER_CONF.forEach(conf::setString);
        side.conf().forEach(conf::setString);
        // The network memory of FlinkFlushBenchmark's MiniCluster TaskManagers.
        Map<String, String> tm = Map.of("taskmanager.memory.network.min", "64m", "taskmanager.memory.network.max", "64m");
        try (FlinkProcessCluster cluster = FlinkProcessCluster.start(conf, 2, tm, dir)) {
            cluster.awaitTaskManagers(Duration.ofSeconds(60));
            System.out.printf("round %d  %-26s TaskManager pids %s%n", round + 1, side.name(),
                    cluster.taskManagers().stream().map(Process::pid).toList());
            int run = 0;
            for (int rate : RATES) {
                Result r = runJob(cluster, side, (long) rate * seconds, rate, dir.resolve("run-" + run++ + ".txt"));
                double[] q = {r.p50Micros / 1e3, r.p99Micros / 1e3};
                LATENCY.get(side.name()).get(rate).add(q);
                System.out.printf("round %d  %-26s %,7d rec/s  p50 %8.3f ms  p99 %8.3f ms%n", round + 1, side.name(), rate, q[0], q[1]);
            }
            double thr = 0;
            for (int i = 0; i < UNPACED_RUNS; i++) {
                Result r = runJob(cluster, side, maxRecords, 0, dir.resolve("run-" + run++ + ".txt"));
                thr = Math.max(thr, (r.count - 1) / ((r.lastNanos - r.firstNanos) / 1e9));
            }
            THROUGHPUT.get(side.name()).add(thr);
            System.out.printf("round %d  %-26s max throughput %,.0f rec/s (best of %d)%n", round + 1, side.name(), thr, UNPACED_RUNS);
            if (side.jetstream() && !side.conf().containsKey("taskmanager.network.jetstream.ring.enabled")
                    && !cluster.allLogs().contains(RING_LINE)) {
                throw new IllegalStateException(side.name() + ": no TaskManager moved buffers over the ring:\n" + cluster.tails());
            }
        }
    }

    /** What the sink saw in one job: records, the first and last arrival, and latency quantiles. */
    record Result(long count, long firstNanos, long lastNanos, double p50Micros, double p99Micros) {
        static Result read(Path file) throws IOException {
            String[] v = Files.readString(file).trim().split(" ");
            return new Result(Long.parseLong(v[0]), Long.parseLong(v[1]), Long.parseLong(v[2]), Double.parseDouble(v[3]),
                    Double.parseDouble(v[4]));
        }
    }

    private static Result runJob(FlinkProcessCluster cluster, Side side, long records, int rate, Path resultFile) throws Exception {
        Configuration c = new Configuration();
        c.set(ExecutionOptions.BUFFER_TIMEOUT, Duration.ofMillis(side.timeoutMs()));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createRemoteEnvironment("localhost", cluster.restPort(), c);
        env.setParallelism(1);
        FlinkFlushBenchmark.build(env, records, rate, new FileRecordingSink(resultFile.toString(), rate > 0 ? records : 0));
        env.execute(side.name() + (rate > 0 ? " " + rate : " max"));
        Result r = Result.read(resultFile);
        if (r.count != records) {
            throw new IllegalStateException(side.name() + ": the sink saw " + r.count + " of " + records + " records");
        }
        return r;
    }

    /**
     * Runs in a TaskManager JVM (next to the source, whose clock stamped the records): records each
     * record's latency after the first second, and writes the count, the first and last arrival and the
     * p50/p99 (µs, {@link LatencySummary}) to {@code file} when it closes.
     */
    static final class FileRecordingSink extends RichSinkFunction<Tuple2<Long, Long>> {
        private static final long serialVersionUID = 1L;
        private final String file;
        private final long maxSamples;
        private transient long[] samples;
        private transient int sampled;
        private transient long count;
        private transient long first;
        private transient long last;

        FileRecordingSink(String file, long maxSamples) {
            this.file = file;
            this.maxSamples = maxSamples;
        }

        @Override
        public void open(OpenContext context) {
            samples = new long[(int) maxSamples];
        }

        @Override
        public void invoke(Tuple2<Long, Long> value, Context context) {
            long now = System.nanoTime();
            if (count++ == 0) {
                first = now;
            }
            last = now;
            if (now - first >= 1_000_000_000L && sampled < samples.length) {
                samples[sampled++] = now - value.f0;
            }
        }

        @Override
        public void close() throws IOException {
            LatencySummary latency = LatencySummary.of(Arrays.copyOf(samples, sampled));
            Path target = Path.of(file);
            Path partial = target.resolveSibling(target.getFileName() + ".partial");
            Files.writeString(partial, count + " " + first + " " + last + " " + latency.p50Micros() + " " + latency.p99Micros(), StandardCharsets.US_ASCII);
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static double mean(String side, int rate, int quantile) {
        return LATENCY.get(side).get(rate).stream().mapToDouble(x -> x[quantile]).average().orElse(Double.NaN);
    }

    private static void print(int rounds, int seconds, long maxRecords, double wallSeconds) {
        System.out.printf("%nFlink, two TaskManager JVMs on this host, %s: %d rounds, %d s per rate, %,d records unpaced; %.0f s in all%n",
                LocalDate.now(), rounds, seconds, maxRecords, wallSeconds);
        System.out.println("Latency in ms (mean over rounds of each round's p50 / p99), max throughput in records/s "
                + "(median over rounds of the better of " + UNPACED_RUNS + " unpaced runs).");
        StringBuilder header = new StringBuilder("| side |");
        StringBuilder rule = new StringBuilder("|---|");
        for (int r : RATES) {
            header.append(String.format(" p50 @%,d | p99 @%,d |", r, r));
            rule.append("---|---|");
        }
        System.out.println(header.append(" max throughput |"));
        System.out.println(rule.append("---|"));
        for (String side : LATENCY.keySet()) {
            StringBuilder row = new StringBuilder("| " + side + " |");
            for (int r : RATES) {
                row.append(String.format(" %.3f | %.3f |", mean(side, r, 0), mean(side, r, 1)));
            }
            System.out.println(row.append(String.format(" %,.0f |", Median.of(THROUGHPUT.get(side)))));
        }
        System.out.println();
        for (int r : RATES) {
            System.out.printf("p50 @%,d rec/s: JetStream (ring) / stock@1ms = %.2f; JetStream (Netty) / stock@1ms = %.2f%n", r,
                    mean(OURS, r, 0) / mean(STOCK_1MS, r, 0), mean(OURS_NETTY, r, 0) / mean(STOCK_1MS, r, 0));
        }
        double stock100 = Median.of(THROUGHPUT.get(STOCK_100MS));
        double stock1 = Median.of(THROUGHPUT.get(STOCK_1MS));
        System.out.printf("max throughput: JetStream (ring) / stock@100ms = %.3f, / stock@1ms = %.3f; JetStream (Netty) / stock@100ms = %.3f%n",
                Median.of(THROUGHPUT.get(OURS)) / stock100, Median.of(THROUGHPUT.get(OURS)) / stock1,
                Median.of(THROUGHPUT.get(OURS_NETTY)) / stock100);
        for (String side : THROUGHPUT.keySet()) {
            System.out.printf("  %-26s per round: %s%n", side, THROUGHPUT.get(side).stream().map(t -> String.format("%,.0f", t)).toList());
        }
    }
}
