package io.jetstream.benchmarks.flink;

import io.jetstream.flink.cluster.FlinkProcessCluster;
import io.jetstream.flink.shuffle.JetStreamShuffleServiceFactory;
import io.jetstream.harness.LatencySummary;
import io.jetstream.harness.Median;
import io.jetstream.harness.plot.Figure;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.io.network.NettyShuffleServiceFactory;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.shuffle.ShuffleServiceOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.legacy.SinkFunction;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Flink's static trade-off against JetStream's flush control. Job {@code source -> rebalance -> map ->
 * keyBy -> sink}, parallelism 1, the source and the sink in one slot-sharing group and the map in
 * another, on a MiniCluster of two TaskManagers with one slot each: both hops cross TaskManagers
 * (Netty). Records are (emission nanoTime, sequence): 16 bytes of payload, stamped when the source
 * emits them; the sink, in the same JVM, takes {@code nanoTime - stamp}.
 *
 * <p>Sides, all in one run: the stock shuffle ({@code NettyShuffleServiceFactory}) with
 * {@code execution.buffer-timeout.interval} 0, 1, 10 and 100 ms, and JetStream's factory at Flink's
 * default (100 ms) with flush control at its defaults, once as it ships (the two TaskManagers, on one
 * host, exchange buffers over the shared-memory ring) and once with the ring off (over Flink's Netty,
 * as stock); and JetStream as it ships under an explicit 1 ms timeout, whose p99 is compared with
 * stock's at 1 ms. Per side: p50/p99 at fixed rates (the first
 * second of each run is warm-up and not counted) and the unpaced maximum throughput (records over
 * the time between the sink's first and last record; the better of {@link #UNPACED_RUNS} runs per
 * round, the median over rounds). Every side runs on a MiniCluster of its own, in a JVM of its own
 * (this JVM's options and class path), in every round, as JMH forks: in one shared JVM the JIT's
 * code and type profiles from earlier sides decided later sides' maximum. Rounds alternate the order.
 *
 * <p>Arguments (optional, positional; {@code --help} lists them): {@code rounds seconds-per-rate max-records
 * [key=value ...]}; the key=value pairs configure the JetStream side's cluster only (variants, e.g. {@code taskmanager.network.jetstream.flush.flush-cost-us=200}).
 * {@code -Dbench.jvm.args=-Dbench.sides=<name>,<name>} runs only the named sides, named without spaces (to profile one;
 * the side JVMs inherit {@code bench.jvm.args}, so name a profiler's output file with {@code %p}).
 */
@Command(name = "FlinkFlushBenchmark", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Stock Flink's buffer timeouts against JetStream's flush control, a MiniCluster and a JVM per side.")
public final class FlinkFlushBenchmark implements Callable<Integer> {
    static final int[] RATES = {1_000, 10_000, 100_000};
    static final long[] STOCK_TIMEOUTS_MS = {0, 1, 10, 100};
    /** Unpaced runs per side per round; the better one counts. */
    static final int UNPACED_RUNS = 2;

    // The sink runs in this JVM (MiniCluster): it records here.
    static volatile long[] samples = new long[0];
    static final AtomicInteger SAMPLED = new AtomicInteger();
    static volatile long warmupUntilNanos;
    static final AtomicLong FIRST = new AtomicLong();
    static final AtomicLong LAST = new AtomicLong();
    static final AtomicLong COUNT = new AtomicLong();

    /** A side: its name, whether it runs JetStream's factory (with {@code conf}), and its buffer timeout. */
    record Side(String name, boolean jetstream, long timeoutMs, Map<String, String> conf) {}

    /** JetStream at its defaults: flush control, and the same-host ring between the two TaskManagers. */
    static final String OURS = "JetStream @100 ms (ring)";
    /** JetStream's flush control with the ring off: the bytes travel on Flink's Netty, as stock's do. */
    static final String OURS_NETTY = "JetStream @100 ms (Netty)";
    /** JetStream as it ships under a user's explicit 1 ms buffer timeout (the timeout stays an upper bound). */
    static final String OURS_1MS = "JetStream @1 ms (ring)";

    /** Per side: p50/p99 (ms) per rate, throughputs (records/s) per round. */
    static final Map<String, Map<Integer, List<double[]>>> LATENCY = new LinkedHashMap<>();
    static final Map<String, List<Double>> THROUGHPUT = new LinkedHashMap<>();
    /** Options of the JetStream side only (arguments after the third, key=value). */
    static final Map<String, String> OURS_CONF = new LinkedHashMap<>();

    @Parameters(index = "0", arity = "0..1", paramLabel = "ROUNDS",
            description = "Rounds, each running every side, alternating the order.")
    private int rounds = 2;
    @Parameters(index = "1", arity = "0..1", paramLabel = "SECONDS", description = "Seconds per fixed rate.")
    private int seconds = 4;
    @Parameters(index = "2", arity = "0..1", paramLabel = "MAX-RECORDS",
            description = "Records of each unpaced (maximum throughput) run.")
    private long maxRecords = 4_000_000;
    @Parameters(index = "3..*", showDefaultValue = Visibility.NEVER, paramLabel = "KEY=VALUE",
            description = "Configuration of the JetStream sides' clusters (variants).")
    private Map<String, String> oursConf = new LinkedHashMap<>();
    @Option(names = SIDE_FLAG, hidden = true, description = "Run only this side (by index) for one round, in a JVM of its own.")
    private Integer childSide;
    @Option(names = ROUND_FLAG, hidden = true, description = "The round a side's JVM runs.")
    private int childRound;

    public static void main(String[] args) {
        System.exit(new CommandLine(new FlinkFlushBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        OURS_CONF.putAll(oursConf);
        List<Side> all = sides();
        all.forEach(FlinkFlushBenchmark::init);
        if (childSide != null) {
            Side side = all.get(childSide);
            runCluster(List.of(side), seconds, maxRecords, childRound);
            for (int rate : RATES) {
                double[] q = LATENCY.get(side.name()).get(rate).get(0);
                System.out.printf("%s\t%s\t%d\t%s\t%s%n", RESULT, side.name(), rate, q[0], q[1]);
            }
            System.out.printf("%s\t%s\t0\t%s\t0%n", RESULT, side.name(), THROUGHPUT.get(side.name()).get(0));
            return 0;
        }
        // -Dbench.sides=name,name: only these sides, named without spaces (e.g. JetStream@100ms(ring)), to
        // profile one of them; the summary's ratios need their bases.
        String only = System.getProperty("bench.sides", "");
        List<Integer> chosen = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            if (only.isBlank() || Arrays.asList(only.split(",")).contains(all.get(i).name().replace(" ", ""))) {
                chosen.add(i);
            }
        }
        long started = System.nanoTime();
        // Every side on a MiniCluster of its own in a JVM of its own, in every round: sides sharing a
        // cluster ran on warmer TaskManagers than a side alone, and sides sharing a JVM ran on code the
        // JIT had compiled and profiled for the sides before them (the ring side read 0.72-0.74x of
        // stock @100 ms after six other sides in one JVM, 0.62-1.55x with two). The order alternates.
        for (int round = 0; round < rounds; round++) {
            List<Integer> order = new ArrayList<>(chosen);
            if (round % 2 == 1) {
                java.util.Collections.reverse(order);
            }
            for (int side : order) {
                runChild(side, round);
            }
        }
        print(rounds, seconds, maxRecords, (System.nanoTime() - started) / 1e9);
        if (only.isBlank()) {
            plot();
        }
        return 0;
    }

    private static final String SIDE_FLAG = "--side";
    private static final String ROUND_FLAG = "--round";
    private static final String RESULT = "RESULT";

    /** Stock at every timeout, then JetStream's sides, in a fixed order (a child finds its side by index). */
    private static List<Side> sides() {
        List<Side> all = new ArrayList<>();
        for (long t : STOCK_TIMEOUTS_MS) {
            all.add(new Side("stock @" + t + " ms", false, t, Map.of()));
        }
        Map<String, String> nettyConf = new LinkedHashMap<>(OURS_CONF);
        nettyConf.put("taskmanager.network.jetstream.ring.enabled", "false");
        all.add(new Side(OURS, true, 100, OURS_CONF));
        all.add(new Side(OURS_NETTY, true, 100, nettyConf));
        all.add(new Side(OURS_1MS, true, 1, OURS_CONF));
        return all;
    }

    /**
     * Runs one side for one round in a fresh JVM (this JVM's options and class path): its progress lines
     * are passed on, its results parsed from its {@value #RESULT} lines.
     */
    private void runChild(int side, int round) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(FlinkFlushBenchmark.class.getName());
        command.addAll(List.of(SIDE_FLAG, Integer.toString(side), ROUND_FLAG, Integer.toString(round), Integer.toString(rounds),
                Integer.toString(seconds), Long.toString(maxRecords)));
        oursConf.forEach((key, value) -> command.add(key + "=" + value));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (java.io.BufferedReader out = new java.io.BufferedReader(
                new java.io.InputStreamReader(process.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                String[] f = line.split("\t");
                if (f.length == 5 && f[0].equals(RESULT)) {
                    int rate = Integer.parseInt(f[2]);
                    if (rate == 0) {
                        THROUGHPUT.get(f[1]).add(Double.parseDouble(f[3]));
                    } else {
                        LATENCY.get(f[1]).get(rate).add(new double[] {Double.parseDouble(f[3]), Double.parseDouble(f[4])});
                    }
                } else {
                    System.out.println(line);
                }
            }
        }
        int exit = process.waitFor();
        if (exit != 0) {
            throw new IllegalStateException("the JVM of side " + side + " in round " + (round + 1) + " exited with " + exit);
        }
    }

    private static void init(Side s) {
        Map<Integer, List<double[]>> byRate = new LinkedHashMap<>();
        for (int r : RATES) {
            byRate.put(r, new ArrayList<>());
        }
        LATENCY.put(s.name(), byRate);
        THROUGHPUT.put(s.name(), new ArrayList<>());
    }

    private static void runCluster(List<Side> sides, int seconds, long maxRecords, int round) throws Exception {
        Configuration conf = new Configuration();
        conf.set(ShuffleServiceOptions.SHUFFLE_SERVICE_FACTORY_CLASS, sides.get(0).jetstream()
                ? JetStreamShuffleServiceFactory.class.getName() : NettyShuffleServiceFactory.class.getName());
        sides.get(0).conf().forEach(conf::setString);
        conf.set(RestOptions.BIND_PORT, "0");
        conf.set(WebOptions.TMP_DIR, FlinkProcessCluster.webTmpDir());
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("16m"));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.parse("64m"));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.parse("64m"));
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(conf).setNumTaskManagers(2).setNumSlotsPerTaskManager(1).build());
        cluster.start();
        try {
            for (Side side : sides) {
                for (int rate : RATES) {
                    double[] q = latencyRun(cluster, side, rate, seconds);
                    LATENCY.get(side.name()).get(rate).add(q);
                    System.out.printf("round %d  %-28s %,7d rec/s  p50 %8.3f ms  p99 %8.3f ms%n", round + 1, side.name(),
                            rate, q[0], q[1]);
                }
                // The better of two unpaced runs on the cluster: a maximum is what the path can carry, and
                // one run stalled by something else on this 2-vCPU machine (measured: 2.2 M against
                // 4.6 M for the same side a round later) is not the path's.
                double thr = 0;
                for (int run = 0; run < UNPACED_RUNS; run++) {
                    thr = Math.max(thr, throughputRun(cluster, side, maxRecords));
                }
                THROUGHPUT.get(side.name()).add(thr);
                System.out.printf("round %d  %-28s max throughput %,.0f rec/s (best of %d)%n", round + 1, side.name(), thr,
                        UNPACED_RUNS);
            }
        } finally {
            cluster.close();
        }
    }

    private static StreamExecutionEnvironment environment(MiniCluster cluster, Side side) throws Exception {
        java.net.URI rest = cluster.getRestAddress().get();
        Configuration c = new Configuration();
        c.set(ExecutionOptions.BUFFER_TIMEOUT, Duration.ofMillis(side.timeoutMs()));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createRemoteEnvironment(rest.getHost(), rest.getPort(), c);
        env.setParallelism(1);
        return env;
    }

    /**
     * The measured job: {@code source -> rebalance -> map -> keyBy -> sink}, the source and the sink in
     * slot-sharing group "edges", the map in "middle"; on two one-slot TaskManagers both hops cross them.
     * Records are (emission nanoTime, sequence); {@code rate} 0 is unpaced.
     */
    static void build(StreamExecutionEnvironment env, long records, double rate, SinkFunction<Tuple2<Long, Long>> sink) {
        DataGeneratorSource<Tuple2<Long, Long>> source = new DataGeneratorSource<>(
                i -> Tuple2.of(System.nanoTime(), i), records,
                rate > 0 ? RateLimiterStrategy.perSecond(rate) : RateLimiterStrategy.noOp(),
                Types.TUPLE(Types.LONG, Types.LONG));
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "source").slotSharingGroup("edges")
                .rebalance()
                .map((MapFunction<Tuple2<Long, Long>, Tuple2<Long, Long>>) t -> t)
                .returns(Types.TUPLE(Types.LONG, Types.LONG)).slotSharingGroup("middle")
                .keyBy(t -> t.f1 & 127)
                .addSink(sink).slotSharingGroup("edges");
    }

    private static double[] latencyRun(MiniCluster cluster, Side side, int rate, int seconds) throws Exception {
        long records = (long) rate * seconds;
        samples = new long[(int) records];
        SAMPLED.set(0);
        warmupUntilNanos = Long.MAX_VALUE; // set when the first record arrives
        FIRST.set(0);
        StreamExecutionEnvironment env = environment(cluster, side);
        build(env, records, rate, new RecordingSink());
        env.execute(side.name() + " " + rate);
        LatencySummary latency = LatencySummary.of(Arrays.copyOf(samples, Math.min(SAMPLED.get(), samples.length)));
        if (latency.count() == 0) {
            throw new IllegalStateException("no samples after warm-up at " + rate + " rec/s");
        }
        return new double[] {latency.p50Micros() / 1e3, latency.p99Micros() / 1e3};
    }

    private static double throughputRun(MiniCluster cluster, Side side, long records) throws Exception {
        samples = new long[0];
        FIRST.set(0);
        COUNT.set(0);
        StreamExecutionEnvironment env = environment(cluster, side);
        build(env, records, 0, new RecordingSink());
        env.execute(side.name() + " max");
        if (COUNT.get() != records) {
            throw new IllegalStateException("sink saw " + COUNT.get() + " of " + records + " records");
        }
        return (records - 1) / ((LAST.get() - FIRST.get()) / 1e9);
    }

    /** Records each record's latency after the first second (warm-up), and the first and last arrival. */
    static final class RecordingSink implements SinkFunction<Tuple2<Long, Long>> {
        @Override
        public void invoke(Tuple2<Long, Long> value, Context context) {
            long now = System.nanoTime();
            if (FIRST.get() == 0 && FIRST.compareAndSet(0, now)) {
                warmupUntilNanos = now + 1_000_000_000L;
            }
            LAST.set(now);
            COUNT.incrementAndGet();
            if (now - warmupUntilNanos >= 0) {
                long[] s = samples;
                int i = SAMPLED.getAndIncrement();
                if (i < s.length) {
                    s[i] = now - value.f0;
                }
            }
        }
    }

    /**
     * {@code docs/img/flink-tradeoff.png} (when {@code jetstream.plots.dir} is set, as the flink-bench
     * profile does): p50 against the rate per side, and each side's p50 at the lowest rate against its
     * maximum throughput, the trade-off a user picks a buffer timeout on.
     */
    private static void plot() throws java.io.IOException {
        Figure latency = Figure.of("p50 latency by offered rate", "offered rate (records/s)", "p50 (ms)", true, true);
        Figure tradeOff = Figure.of(String.format("p50 at %,d records/s against maximum throughput", RATES[0]),
                "maximum throughput (records/s)", String.format("p50 at %,d records/s (ms)", RATES[0]), false, true);
        for (String side : LATENCY.keySet()) {
            double[] x = new double[RATES.length];
            double[] y = new double[RATES.length];
            for (int i = 0; i < RATES.length; i++) {
                x[i] = RATES[i];
                y[i] = p50(side, RATES[i]);
            }
            latency.line(side, x, y);
            tradeOff.point(side, Median.of(THROUGHPUT.get(side)), p50(side, RATES[0]));
        }
        System.out.println("figure: " + Figure.write("flink-tradeoff.png", 2, List.of(latency, tradeOff)));
    }

    private static double p50(String side, int rate) {
        return LATENCY.get(side).get(rate).stream().mapToDouble(x -> x[0]).average().orElse(Double.NaN);
    }

    private static double p99(String side, int rate) {
        return LATENCY.get(side).get(rate).stream().mapToDouble(x -> x[1]).average().orElse(Double.NaN);
    }


    private static void print(int rounds, int seconds, long maxRecords, double wallSeconds) {
        System.out.printf("%nFlink flush control, %s: %d rounds, %d s per rate, %,d records unpaced; %.0f s in all%n",
                LocalDate.now(), rounds, seconds, maxRecords, wallSeconds);
        System.out.println("Latency in ms (mean over rounds of each round's p50 / p99), max throughput in records/s (median over rounds of the better of " + UNPACED_RUNS + " unpaced runs).");
        StringBuilder header = new StringBuilder("| side |");
        StringBuilder rule = new StringBuilder("|---|");
        for (int r : RATES) {
            header.append(String.format(" p50 @%,d | p99 @%,d |", r, r));
            rule.append("---|---|");
        }
        header.append(" max throughput |");
        rule.append("---|");
        System.out.println(header);
        System.out.println(rule);
        for (String side : LATENCY.keySet()) {
            StringBuilder row = new StringBuilder("| " + side + " |");
            for (int r : RATES) {
                List<double[]> q = LATENCY.get(side).get(r);
                row.append(String.format(" %.3f | %.3f |", q.stream().mapToDouble(x -> x[0]).average().orElse(Double.NaN),
                        q.stream().mapToDouble(x -> x[1]).average().orElse(Double.NaN)));
            }
            row.append(String.format(" %,.0f |", Median.of(THROUGHPUT.get(side))));
            System.out.println(row);
        }
        System.out.println();
        for (int r : RATES) {
            double stock1 = p50("stock @1 ms", r);
            double stock100 = p50("stock @100 ms", r);
            System.out.printf("p50 @%,d rec/s: JetStream (ring) / stock@1ms = %.2f; JetStream (Netty) / stock@1ms = %.2f; "
                            + "JetStream (ring) / stock@100ms = %.3f%n", r, p50(OURS, r) / stock1, p50(OURS_NETTY, r) / stock1,
                    p50(OURS, r) / stock100);
        }
        for (int r : RATES) {
            System.out.printf("p99 @%,d rec/s with an explicit 1 ms timeout: JetStream / stock@1ms = %.2f%n", r,
                    p99(OURS_1MS, r) / p99("stock @1 ms", r));
        }
        System.out.printf("max throughput: JetStream (ring) / stock@100ms = %.3f; JetStream (Netty) / stock@100ms = %.3f; "
                        + "stock@1ms / stock@100ms = %.3f; stock@0ms / stock@100ms = %.3f%n",
                Median.of(THROUGHPUT.get(OURS)) / Median.of(THROUGHPUT.get("stock @100 ms")),
                Median.of(THROUGHPUT.get(OURS_NETTY)) / Median.of(THROUGHPUT.get("stock @100 ms")),
                Median.of(THROUGHPUT.get("stock @1 ms")) / Median.of(THROUGHPUT.get("stock @100 ms")),
                Median.of(THROUGHPUT.get("stock @0 ms")) / Median.of(THROUGHPUT.get("stock @100 ms")));
    }
}
