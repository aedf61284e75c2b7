package io.jetstream.benchmarks.crosssite;

import io.jetstream.benchmarks.crosssite.testbed.Testbed;
import io.jetstream.benchmarks.crosssite.testbed.TestbedNode;
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
 * JetStream §6.7 on the two-site testbed: the goodput of one acknowledged stream from a0 (site A)
 * to b0 (site B) over the direct route and 1, 2, 3 relays of site A (a1..a3), each node's link to
 * the other site capped at {@code --mbit}, against the one-route goodput measured in the same run;
 * beside it, k + 1 parallel direct connections from a0 alone (they share a0's cap). Every
 * configuration runs {@code --runs} times, interleaved; the table gives the median goodput, its
 * range, and the ratio of medians to one route. The sender offers as fast as the stream takes
 * records (adaptive batching, the defaults), so goodput is what the routes carry.
 *
 * <p>Root only (network namespaces); run it with
 * {@code ./mvnw -q -o -Pcrosssite-bench -DskipTests package -pl benchmarks/crosssite -am
 * -Dbench.class=RelayAggregationBenchmark -Dbench.args="--runs 3"}.
 */
@Command(name = "RelayAggregationBenchmark", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Goodput over 0..3 relays vs one route, and vs parallel direct connections, on the two-site testbed.")
public final class RelayAggregationBenchmark implements Callable<Integer> {
    @Option(names = "--runs", defaultValue = "3", description = "Runs per configuration (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--duration-s", defaultValue = "14", description = "Seconds each sender sends (default: ${DEFAULT-VALUE}).")
    double durationSeconds;

    @Option(names = "--record-sizes", split = ",", defaultValue = "224,800",
            description = "Record sizes in bytes (default: ${DEFAULT-VALUE}, the paper's).")
    List<Integer> recordSizes;

    @Option(names = "--mbit", defaultValue = "50", description = "Per-node inter-site cap, Mbit/s (default: ${DEFAULT-VALUE}).")
    int mbit;

    @Option(names = "--rtt-ms", defaultValue = "50", description = "Round trip between the sites (default: ${DEFAULT-VALUE}).")
    int rttMillis;

    @Option(names = "--max-relays", defaultValue = "3", description = "Relays at most (default: ${DEFAULT-VALUE}).")
    int maxRelays;

    @Option(names = "--window-bytes", defaultValue = "16777216",
            description = "jetstream.transport.window-bytes of the sender: at least routes × rate × round trip, queues included "
                    + "(default: ${DEFAULT-VALUE}).")
    int windowBytes;

    @Option(names = "--no-parallel-direct", description = "Skip the parallel direct connections.")
    boolean noParallelDirect;

    @Option(names = "--root", defaultValue = "../..", description = "The repository's root (default: ${DEFAULT-VALUE}).")
    Path root;

    @Option(names = "--work", defaultValue = "target/crosssite-bench/RelayAggregationBenchmark", description = "Logs and reports (default: ${DEFAULT-VALUE}).")
    Path work;

    public static void main(String[] args) {
        System.exit(new CommandLine(new RelayAggregationBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (!Testbed.available()) {
            System.out.println("RelayAggregationBenchmark skipped: " + Testbed.unavailableReason());
            return 0;
        }
        TestbedSpec spec = TestbedSpec.of(2, maxRelays + 1, mbit, rttMillis).withPrefix("jsagg");
        System.out.printf("# two sites, %d nodes each, %d Mbit/s per node to the other site, RTT %d ms; %d runs of %.0f s per "
                + "configuration, interleaved%n", maxRelays + 1, mbit, rttMillis, runs, durationSeconds);
        try (Testbed testbed = Testbed.up(spec); CrossSiteRig rig = new CrossSiteRig(testbed, root, work)) {
            TestbedNode sender = testbed.node("a0");
            TestbedNode receiver = testbed.node("b0");
            List<TestbedNode> relayNodes = new ArrayList<>();
            for (int i = 1; i <= maxRelays; i++) {
                relayNodes.add(testbed.node("a" + i));
            }
            List<String> relays = rig.startRelays(relayNodes);
            for (int size : recordSizes) {
                Map<String, List<Double>> goodput = new LinkedHashMap<>();
                Map<String, long[]> faults = new LinkedHashMap<>();
                for (int r = 0; r < runs; r++) {
                    for (int k = 0; k <= maxRelays; k++) {
                        List<String> args = new ArrayList<>(common(size));
                        if (k > 0) {
                            args.add("--via");
                            args.add(String.join(",", relays.subList(0, k)));
                        }
                        record(goodput, faults, "relays " + k, rig.stream(sender, receiver, args, List.of(), 2, (long) durationSeconds + 90));
                    }
                    if (!noParallelDirect) {
                        for (int k = 1; k <= maxRelays; k++) {
                            List<String> args = new ArrayList<>(common(size));
                            args.add("--parallel-direct");
                            args.add(Integer.toString(k + 1));
                            record(goodput, faults, (k + 1) + " direct connections",
                                    rig.stream(sender, receiver, args, List.of(), 2, (long) durationSeconds + 90));
                        }
                    }
                }
                print(size, goodput, faults);
            }
        }
        return 0;
    }

    private List<String> common(int size) {
        return List.of("--record-size", Integer.toString(size), "--duration-s", Double.toString(durationSeconds), "--rate", "0",
                "--reliability", "acknowledged", "--set", "jetstream.transport.window-bytes=" + windowBytes);
    }

    private static void record(Map<String, List<Double>> goodput, Map<String, long[]> faults, String config, CrossSiteRig.Result r) {
        double g = r.goodputMBps(3);
        goodput.computeIfAbsent(config, c -> new ArrayList<>()).add(g);
        long[] f = faults.computeIfAbsent(config, c -> new long[2]);
        f[0] += r.lost();
        f[1] += r.duplicated();
        int maxRoutes = 0;
        for (var n : r.sender().path("routesTimeline")) {
            maxRoutes = Math.max(maxRoutes, n.path("routesInUse").asInt());
        }
        System.out.printf("#   %-24s %7.2f MB/s (%.1f Mbit/s), lost %d, duplicated %d, most routes in use %d%n", config, g,
                g * 8, r.lost(), r.duplicated(), maxRoutes);
    }

    private void print(int size, Map<String, List<Double>> goodput, Map<String, long[]> faults) {
        double one = Median.of(goodput.get("relays 0"));
        TextTable t = new TextTable("configuration", "routes", "goodput MB/s (median)", "range", "× one route", "target", "lost", "dup");
        for (Map.Entry<String, List<Double>> e : goodput.entrySet()) {
            String config = e.getKey();
            List<Double> v = e.getValue();
            double m = Median.of(v);
            int routes = config.startsWith("relays") ? 1 + Integer.parseInt(config.substring(7))
                    : Integer.parseInt(config.substring(0, config.indexOf(' ')));
            String target = config.startsWith("relays") ? "≥ " + TextTable.number(0.9 * routes, 2) : "(no gain expected)";
            t.row(config, routes, TextTable.number(m, 2), TextTable.number(v.stream().mapToDouble(d -> d).min().orElse(0), 2) + "–"
                    + TextTable.number(v.stream().mapToDouble(d -> d).max().orElse(0), 2), TextTable.number(m / one, 2), target,
                    faults.get(config)[0], faults.get(config)[1]);
        }
        System.out.printf("%n%d-byte records, %d Mbit/s per node, RTT %d ms, %d runs:%n%s%n", size, mbit, rttMillis, runs, t);
    }
}
