package io.jetstream.benchmarks.crosssite;

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
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * JetStream §6 over a real round trip: one acknowledged stream a0 → b0 on the direct route, offered
 * as fast as it takes records, with JetStream's adaptive batches against per-event sending (a batch
 * per record, pipelined within the flow-control window) and static batch sizes (the engines' way:
 * a size target and a 100 ms flush deadline). Goodput and one-way latency (p50/p99, from each record's
 * send time to its delivery, queueing in the sender included) per configuration; medians over
 * {@code --runs} interleaved runs and ratios to adaptive.
 *
 * <p>Root only; {@code -Dbench.class=CrossSiteBatchingBenchmark}.
 */
@Command(name = "CrossSiteBatchingBenchmark", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Adaptive batches vs per-event and static batches across the testbed's round trip.")
public final class CrossSiteBatchingBenchmark implements Callable<Integer> {
    @Option(names = "--runs", defaultValue = "3")
    int runs;

    @Option(names = "--duration-s", defaultValue = "12")
    double durationSeconds;

    @Option(names = "--record-size", defaultValue = "224")
    int recordSize;

    @Option(names = "--mbit", defaultValue = "50")
    int mbit;

    @Option(names = "--rtt-ms", defaultValue = "50")
    int rttMillis;

    @Option(names = "--static-bytes", split = ",", defaultValue = "2048,16384,131072,1048576",
            description = "Static batch targets in bytes (default: ${DEFAULT-VALUE}).")
    List<Integer> staticBytes;

    @Option(names = "--root", defaultValue = "../..")
    Path root;

    @Option(names = "--work", defaultValue = "target/crosssite-bench/CrossSiteBatchingBenchmark")
    Path work;

    public static void main(String[] args) {
        System.exit(new CommandLine(new CrossSiteBatchingBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (!Testbed.available()) {
            System.out.println("CrossSiteBatchingBenchmark skipped: " + Testbed.unavailableReason());
            return 0;
        }
        Map<String, List<String>> configs = new LinkedHashMap<>();
        configs.put("adaptive", List.of());
        configs.put("per-event", List.of("--set", "jetstream.batch.mode=fixed", "--set", "jetstream.batch.fixed.target-bytes=1"));
        for (int b : staticBytes) {
            configs.put("static " + b + " B", List.of("--set", "jetstream.batch.mode=fixed", "--set",
                    "jetstream.batch.fixed.target-bytes=" + b));
        }
        Map<String, List<double[]>> results = new LinkedHashMap<>();
        try (Testbed testbed = Testbed.up(TestbedSpec.of(2, 1, mbit, rttMillis).withPrefix("jsbat"));
                CrossSiteRig rig = new CrossSiteRig(testbed, root, work)) {
            for (int r = 0; r < runs; r++) {
                for (Map.Entry<String, List<String>> c : configs.entrySet()) {
                    List<String> args = new ArrayList<>(List.of("--record-size", Integer.toString(recordSize), "--duration-s",
                            Double.toString(durationSeconds), "--rate", "0", "--reliability", "acknowledged",
                            // the same bounded backlog for every side (adaptive narrows it further), drained before the close
                            "--set", "jetstream.transport.memory-bytes=4194304", "--set", "jetstream.transport.close-timeout-ms=120000"));
                    args.addAll(c.getValue());
                    CrossSiteRig.Result res = rig.stream(testbed.node("a0"), testbed.node("b0"), args, List.of(), 3,
                            (long) durationSeconds + 200);
                    double[] v = {res.goodputMBps(3), res.latencyMillis("p50"), res.latencyMillis("p99")};
                    results.computeIfAbsent(c.getKey(), k -> new ArrayList<>()).add(v);
                    System.out.printf("#   %-18s %7.3f MB/s, p50 %.1f ms, p99 %.1f ms, lost %d, duplicated %d%n", c.getKey(), v[0], v[1],
                            v[2], res.lost(), res.duplicated());
                }
            }
        }
        double adaptive = median(results.get("adaptive"), 0);
        TextTable t = new TextTable("batching", "goodput MB/s", "range", "adaptive ×", "p50 ms", "p99 ms");
        for (Map.Entry<String, List<double[]>> e : results.entrySet()) {
            double g = median(e.getValue(), 0);
            t.row(e.getKey(), TextTable.number(g, 3), TextTable.number(min(e.getValue(), 0), 3) + "–" + TextTable.number(max(e.getValue(), 0), 3),
                    TextTable.number(adaptive / g, 2), TextTable.number(median(e.getValue(), 1), 1), TextTable.number(median(e.getValue(), 2), 1));
        }
        System.out.printf("%n%d-byte records, %d Mbit/s, RTT %d ms, %d runs (medians):%n%s%n", recordSize, mbit, rttMillis, runs, t);
        return 0;
    }

    private static double median(List<double[]> v, int i) {
        return Median.of(v.stream().map(a -> a[i]).toList());
    }

    private static double min(List<double[]> v, int i) {
        return v.stream().mapToDouble(a -> a[i]).min().orElse(Double.NaN);
    }

    private static double max(List<double[]> v, int i) {
        return v.stream().mapToDouble(a -> a[i]).max().orElse(Double.NaN);
    }
}
