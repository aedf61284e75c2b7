package io.jetstream.benchmarks.crosssiteflink;

import io.jetstream.benchmarks.crosssite.testbed.Testbed;
import io.jetstream.benchmarks.crosssite.testbed.TestbedSpec;
import io.jetstream.harness.Median;
import io.jetstream.harness.TextTable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.ToDoubleFunction;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * A Flink job streaming to a Flink job on another site (issue 42's benchmark), on the two-site testbed
 * (4 nodes per site, {@code --mbit} per node, {@code --rtt-ms}): per guarantee, the Kafka chain
 * ({@link KafkaChainRig}) and JetStream with each of {@code --relays} relays ({@link JetStreamLinkRig}),
 * one after the other within each of {@code --runs} runs: the maximum sustained goodput (senders
 * unthrottled for {@code --duration-s}) and end-to-end latency p50/p99 at each of {@code --rates}, and
 * the sending site's CPU per event. Reports the median over the runs with its range, and JetStream's
 * ratio to the chain (median of the per-run ratios, with their range).
 *
 * <p>Root only: {@code flock /tmp/jetstream-bench.lock ./mvnw -B -ntp -o -q -Pcrosssite-flink-bench -DskipTests package
 * -pl benchmarks/crosssite-flink -am}.
 */
@Command(name = "FlinkCrossSiteBenchmark", mixinStandardHelpOptions = true, sortOptions = false,
        description = "A Flink job to a Flink job across the testbed's sites, Kafka + MirrorMaker 2 against JetStream.")
public final class FlinkCrossSiteBenchmark implements Callable<Integer> {
    static final String KAFKA = "kafka+MM2";

    @Option(names = "--via", split = ",", defaultValue = "kafka,jetstream", description = "Links (default: ${DEFAULT-VALUE}).")
    List<String> via;

    @Option(names = "--relays", split = ",", defaultValue = "0,3", description = "JetStream's relay counts (default: ${DEFAULT-VALUE}).")
    List<Integer> relayCounts;

    @Option(names = "--guarantees", split = ",", defaultValue = "at-least-once,exactly-once", description = "Default: ${DEFAULT-VALUE}.")
    List<String> guarantees;

    @Option(names = "--rates", split = ",", defaultValue = "5000", description = "Fixed rates, events/s (default: ${DEFAULT-VALUE}).")
    List<Double> rates;

    @Option(names = "--max", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Also measure the maximum goodput (default: ${DEFAULT-VALUE}).")
    boolean max;

    @Option(names = "--runs", defaultValue = "3", description = "Runs; medians and ranges over them (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--record-bytes", defaultValue = "100")
    int recordBytes;

    @Option(names = "--duration-s", defaultValue = "30")
    double durationSeconds;

    @Option(names = "--warmup-s", defaultValue = "5")
    double warmupSeconds;

    @Option(names = "--parallelism", defaultValue = "2")
    int parallelism;

    @Option(names = "--checkpoint-interval-ms", defaultValue = "1000")
    long checkpointIntervalMs;

    @Option(names = "--mbit", defaultValue = "50")
    int mbit;

    @Option(names = "--rtt-ms", defaultValue = "50")
    int rttMillis;

    @Option(names = "--root", defaultValue = "../..", description = "The repository (for the landing's and relay's jars).")
    Path root;

    @Option(names = "--work", defaultValue = "target/crosssite-flink-bench")
    Path work;

    public static void main(String[] args) {
        int code = new CommandLine(new FlinkCrossSiteBenchmark()).execute(args);
        System.exit(code);
    }

    /** One side's figures of one run. */
    private record Figures(double goodputMBps, double p50, double p99, long delivered, long missing, long duplicated, double cpuMicros) {
        static Figures of(JobPair.Result r, double cpuMicros) {
            return new Figures(r.goodputMBps(), r.latencyMillis("p50"), r.latencyMillis("p99"), r.distinct(), r.missing(),
                    r.duplicated(), cpuMicros);
        }
    }

    @Override
    public Integer call() throws Exception {
        if (!Testbed.available()) {
            System.out.println("FlinkCrossSiteBenchmark skipped: " + Testbed.unavailableReason());
            return 0;
        }
        List<String> sides = new ArrayList<>();
        for (String v : via) {
            switch (v) {
                case KafkaLink.NAME -> sides.add(KAFKA);
                case JetStreamLink.NAME -> relayCounts.forEach(n -> sides.add(jetstream(n)));
                default -> throw new IllegalArgumentException("--via " + v + ": expected kafka or jetstream");
            }
        }
        TextTable t = new TextTable("guarantee", "offered ev/s", "link", "goodput MB/s", "× chain", "p50 ms", "p99 ms",
                "delivered", "missing", "duplicated", "site-A CPU µs/event");
        List<String> details = new ArrayList<>();
        try (Testbed testbed = Testbed.up(TestbedSpec.of(2, 4, mbit, rttMillis).withPrefix("jsfk"));
                JetStreamLinkRig jetstream = new JetStreamLinkRig(testbed, root.toAbsolutePath().normalize(), work.toAbsolutePath().resolve("jetstream"))) {
            KafkaChainRig kafka = new KafkaChainRig(testbed, work.toAbsolutePath().resolve("kafka"));
            for (String g : guarantees) {
                Guarantee guarantee = Guarantee.of(g);
                List<Double> offered = new ArrayList<>();
                if (max) {
                    offered.add(0.0);
                }
                offered.addAll(rates);
                for (double rate : offered) {
                    KafkaChainRig.Settings s = new KafkaChainRig.Settings(guarantee, rate, recordBytes, durationSeconds, parallelism,
                            checkpointIntervalMs, warmupSeconds);
                    Map<String, List<Figures>> bySide = new LinkedHashMap<>();
                    for (int run = 0; run < runs; run++) {
                        for (String side : sides) {
                            Figures f;
                            if (side.equals(KAFKA)) {
                                KafkaChainRig.Measurement m = kafka.measure(s);
                                f = Figures.of(m.jobs(), m.sendingSiteCpuMicrosPerEvent());
                                details.add(side + " " + g + " " + label(rate) + " run " + (run + 1) + ": " + m.jobs().sender()
                                        + "; logs " + m.jobs().senderLog().getParent());
                            } else {
                                JetStreamLinkRig.Measurement m = jetstream.measure(s, relays(side));
                                f = Figures.of(m.jobs(), m.sendingSiteCpuMicrosPerEvent());
                                details.add(side + " " + g + " " + label(rate) + " run " + (run + 1) + ": " + m.jobs().sender()
                                        + "; landing CPU " + TextTable.number(m.landingCpuSeconds(), 1) + " s; logs "
                                        + m.jobs().senderLog().getParent());
                            }
                            bySide.computeIfAbsent(side, k -> new ArrayList<>()).add(f);
                            System.out.printf("# %s %s %s run %d: %.3f MB/s, p50 %.1f ms, p99 %.1f ms, %d delivered, %d missing, %d duplicated%n",
                                    g, label(rate), side, run + 1, f.goodputMBps(), f.p50(), f.p99(), f.delivered(), f.missing(), f.duplicated());
                        }
                    }
                    List<Figures> chain = bySide.get(KAFKA);
                    for (Map.Entry<String, List<Figures>> e : bySide.entrySet()) {
                        List<Figures> fs = e.getValue();
                        String ratio = "-";
                        if (chain != null && !e.getKey().equals(KAFKA)) {
                            List<Double> ratios = new ArrayList<>();
                            for (int i = 0; i < fs.size(); i++) {
                                ratios.add(rate == 0 ? fs.get(i).goodputMBps() / chain.get(i).goodputMBps()
                                        : fs.get(i).p50() / chain.get(i).p50());
                            }
                            ratio = spread(ratios, 2) + (rate == 0 ? "" : " (p50)");
                        }
                        t.row(g, label(rate), e.getKey(), spread(fs, Figures::goodputMBps, 3), ratio, spread(fs, Figures::p50, 1),
                                spread(fs, Figures::p99, 1), sum(fs, Figures::delivered), rate == 0 ? "-" : sum(fs, Figures::missing),
                                sum(fs, Figures::duplicated), spread(fs, Figures::cpuMicros, 1));
                    }
                }
            }
        }
        System.out.printf("%n%d-byte events, parallelism %d, checkpoints every %d ms, %d Mbit/s per node, RTT %d ms, %.0f s per run, "
                + "%d runs (median [min–max]; \"× chain\": goodput ratio at max, p50 ratio at a fixed rate, median of the per-run ratios):%n%s%n",
                recordBytes, parallelism, checkpointIntervalMs, mbit, rttMillis, durationSeconds, runs, t);
        details.forEach(System.out::println);
        return 0;
    }

    private static String jetstream(int relays) {
        return relays == 0 ? "jetstream direct" : "jetstream + " + relays + " relays";
    }

    private static int relays(String side) {
        return side.equals("jetstream direct") ? 0 : Integer.parseInt(side.replaceAll("\\D+", ""));
    }

    static String label(double rate) {
        return rate == 0 ? "max" : TextTable.number(rate, 0);
    }

    /** The median of {@code f} over {@code fs} with its range, for a table. */
    static <T> String spread(List<T> fs, ToDoubleFunction<T> f, int decimals) {
        List<Double> values = new ArrayList<>();
        fs.forEach(x -> values.add(f.applyAsDouble(x)));
        return spread(values, decimals);
    }

    /** The median of {@code values} with its range, for a table. */
    static String spread(List<Double> values, int decimals) {
        double lo = values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
        double hi = values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        return TextTable.number(Median.of(values), decimals) + (values.size() > 1
                ? " [" + TextTable.number(lo, decimals) + "–" + TextTable.number(hi, decimals) + "]" : "");
    }

    static <T> String sum(List<T> fs, java.util.function.ToLongFunction<T> f) {
        return Long.toString(fs.stream().mapToLong(f).sum());
    }
}
