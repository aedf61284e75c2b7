package io.jetstream.benchmarks.crosssiteflink;

import io.jetstream.benchmarks.crosssite.testbed.Testbed;
import io.jetstream.benchmarks.crosssite.testbed.TestbedSpec;
import io.jetstream.harness.TextTable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * A Flink job streaming to a Flink job on another site (issue 42's benchmark), on the two-site testbed
 * (2 nodes per site, {@code --mbit} per node, {@code --rtt-ms}): per link ({@code --via}) and guarantee,
 * the maximum sustained goodput (sender unthrottled for {@code --duration-s}) and end-to-end latency
 * p50/p99 at each of {@code --rates}, and the sending site's CPU per event. Over the Kafka chain now
 * ({@link KafkaChainRig}); a JetStream link joins through {@link CrossSiteLink}.
 *
 * <p>Root only: {@code flock /tmp/jetstream-bench.lock ./mvnw -B -ntp -o -q -Pcrosssite-flink-bench -DskipTests package
 * -pl benchmarks/crosssite-flink -am -Dbench.args="--via kafka"}.
 */
@Command(name = "FlinkCrossSiteBenchmark", mixinStandardHelpOptions = true, sortOptions = false,
        description = "A Flink job to a Flink job across the testbed's sites: goodput, latency, CPU per event, per link and guarantee.")
public final class FlinkCrossSiteBenchmark implements Callable<Integer> {
    @Option(names = "--via", split = ",", defaultValue = "kafka", description = "Links (default: ${DEFAULT-VALUE}).")
    List<String> via;

    @Option(names = "--guarantees", split = ",", defaultValue = "at-least-once,exactly-once", description = "Default: ${DEFAULT-VALUE}.")
    List<String> guarantees;

    @Option(names = "--rates", split = ",", defaultValue = "5000", description = "Fixed rates, events/s (default: ${DEFAULT-VALUE}).")
    List<Double> rates;

    @Option(names = "--max", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Also measure the maximum goodput (default: ${DEFAULT-VALUE}).")
    boolean max;

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

    @Option(names = "--work", defaultValue = "target/crosssite-flink-bench")
    Path work;

    public static void main(String[] args) {
        int code = new CommandLine(new FlinkCrossSiteBenchmark()).execute(args);
        System.exit(code);
    }

    @Override
    public Integer call() throws Exception {
        if (!Testbed.available()) {
            System.out.println("FlinkCrossSiteBenchmark skipped: " + Testbed.unavailableReason());
            return 0;
        }
        for (String v : via) {
            if (!v.equals(KafkaLink.NAME)) {
                throw new IllegalArgumentException("--via " + v + ": only kafka is wired into the testbed rig so far");
            }
        }
        TextTable t = new TextTable("link", "guarantee", "offered ev/s", "goodput MB/s", "p50 ms", "p99 ms", "delivered", "missing",
                "duplicated", "site-A CPU µs/event", "MM2 CPU s");
        List<String> details = new ArrayList<>();
        try (Testbed testbed = Testbed.up(TestbedSpec.of(2, 2, mbit, rttMillis).withPrefix("jsfk"))) {
            KafkaChainRig rig = new KafkaChainRig(testbed, work.toAbsolutePath());
            for (String g : guarantees) {
                Guarantee guarantee = Guarantee.of(g);
                List<Double> offered = new ArrayList<>();
                if (max) {
                    offered.add(0.0);
                }
                offered.addAll(rates);
                for (double rate : offered) {
                    KafkaChainRig.Measurement m = rig.measure(new KafkaChainRig.Settings(guarantee, rate, recordBytes, durationSeconds,
                            parallelism, checkpointIntervalMs, warmupSeconds));
                    JobPair.Result r = m.jobs();
                    t.row("kafka+MM2", guarantee.label(), rate == 0 ? "max" : TextTable.number(rate, 0), TextTable.number(r.goodputMBps(), 3),
                            TextTable.number(r.latencyMillis("p50"), 1), TextTable.number(r.latencyMillis("p99"), 1), r.distinct(),
                            rate == 0 ? "-" : Long.toString(r.missing()), r.duplicated(), TextTable.number(m.sendingSiteCpuMicrosPerEvent(), 1),
                            TextTable.number(m.mirrorMakerCpuSeconds(), 1));
                    details.add(guarantee.label() + " " + (rate == 0 ? "max" : rate) + ": sender " + r.sender() + "; logs " + r.senderLog().getParent());
                    System.out.println("# " + t.toString().lines().reduce((a, b) -> b).orElse(""));
                }
            }
        }
        System.out.printf("%n%d-byte events, parallelism %d, checkpoints every %d ms, %d Mbit/s per node, RTT %d ms, %.0f s per run:%n%s%n",
                recordBytes, parallelism, checkpointIntervalMs, mbit, rttMillis, durationSeconds, t);
        details.forEach(System.out::println);
        return 0;
    }
}
