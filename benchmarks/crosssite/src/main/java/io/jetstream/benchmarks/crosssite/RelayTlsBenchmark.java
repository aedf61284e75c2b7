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
 * What TLS costs on the legs of a relayed stream (root only): one acknowledged stream a0 → b0 over
 * the direct route and three relays, plaintext against TLS on every leg (sender → relay, relay →
 * receiver, sender → receiver; JDK provider, EC P-256 certificate), at full speed and at a fixed rate.
 * Per configuration: goodput, one-way latency p50/p99 at the fixed rate, and CPU seconds per GB
 * delivered of the sender, the receiver and the three relays together. Plaintext and TLS alternate,
 * {@code --runs} times each; medians.
 *
 * <p>{@code -Dbench.class=RelayTlsBenchmark}.
 */
@Command(name = "RelayTlsBenchmark", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Plaintext vs TLS on every leg of a stream through three relays.")
public final class RelayTlsBenchmark implements Callable<Integer> {
    @Option(names = "--runs", defaultValue = "3")
    int runs;

    @Option(names = "--duration-s", defaultValue = "12")
    double durationSeconds;

    @Option(names = "--record-size", defaultValue = "800")
    int recordSize;

    @Option(names = "--fixed-rate", defaultValue = "10000", description = "Records/s of the latency runs (default: ${DEFAULT-VALUE}).")
    int fixedRate;

    @Option(names = "--mbit", defaultValue = "50")
    int mbit;

    @Option(names = "--rtt-ms", defaultValue = "50")
    int rttMillis;

    @Option(names = "--root", defaultValue = "../..")
    Path root;

    @Option(names = "--work", defaultValue = "target/crosssite-bench/RelayTlsBenchmark")
    Path work;

    public static void main(String[] args) {
        System.exit(new CommandLine(new RelayTlsBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (!Testbed.available()) {
            System.out.println("RelayTlsBenchmark skipped: " + Testbed.unavailableReason());
            return 0;
        }
        Map<String, List<double[]>> results = new LinkedHashMap<>();
        try (Testbed testbed = Testbed.up(TestbedSpec.of(2, 4, mbit, rttMillis).withPrefix("jstls"));
                CrossSiteRig rig = new CrossSiteRig(testbed, root, work)) {
            TestbedNode sender = testbed.node("a0");
            TestbedNode receiver = testbed.node("b0");
            List<TestbedNode> relayNodes = List.of(testbed.node("a1"), testbed.node("a2"), testbed.node("a3"));
            for (int r = 0; r < runs; r++) {
                for (boolean tls : new boolean[] {false, true}) {
                    rig.stopRelays();
                    if (tls) {
                        rig.enableTls();
                    } else {
                        rig.disableTls();
                    }
                    List<String> relays = rig.startRelays(relayNodes);
                    String mode = tls ? "TLS" : "plaintext";
                    for (boolean full : new boolean[] {true, false}) {
                        List<String> args = new ArrayList<>(List.of("--record-size", Integer.toString(recordSize), "--duration-s",
                                Double.toString(durationSeconds), "--rate", full ? "0" : Integer.toString(fixedRate), "--reliability",
                                "acknowledged", "--via", String.join(",", relays),
                                "--set", "jetstream.transport.window-bytes=16777216"));
                        double relaysBefore = rig.relaysCpuSeconds();
                        CrossSiteRig.Result res = rig.stream(sender, receiver, args, List.of(), 3, (long) durationSeconds + 120);
                        double relaysCpu = rig.relaysCpuSeconds() - relaysBefore;
                        double gb = res.stream().path("payloadBytes").asDouble() / 1e9;
                        double[] v = {res.goodputMBps(3), res.latencyMillis("p50"), res.latencyMillis("p99"),
                            cpu(res.sender()) / gb, cpu(res.receiver()) / gb,
                            relaysCpu / gb};
                        String config = mode + (full ? ", full speed" : ", " + fixedRate + " records/s");
                        results.computeIfAbsent(config, k -> new ArrayList<>()).add(v);
                        System.out.printf("#   %-28s %6.2f MB/s, p50 %.1f ms, p99 %.1f ms; CPU s/GB sender %.1f receiver %.1f relays %.1f; "
                                + "lost %d, duplicated %d%n", config, v[0], v[1], v[2], v[3], v[4], v[5], res.lost(), res.duplicated());
                    }
                }
            }
        }
        TextTable t = new TextTable("legs", "goodput MB/s", "p50 ms", "p99 ms", "sender CPU s/GB", "receiver CPU s/GB", "relays CPU s/GB");
        for (Map.Entry<String, List<double[]>> e : results.entrySet()) {
            t.row(e.getKey(), med(e.getValue(), 0, 2), med(e.getValue(), 1, 1), med(e.getValue(), 2, 1), med(e.getValue(), 3, 1),
                    med(e.getValue(), 4, 1), med(e.getValue(), 5, 1));
        }
        System.out.printf("%nDirect route + 3 relays, %d-byte records, %d Mbit/s per node, RTT %d ms, %d runs (medians; CPU from the "
                + "start of streaming, connection set-up included):%n%s%n", recordSize, mbit, rttMillis, runs, t);
        return 0;
    }

    /** CPU seconds a perf process used from its start of streaming to its end. */
    private static double cpu(com.fasterxml.jackson.databind.JsonNode report) {
        return report.path("cpuSeconds").asDouble() - report.path("cpuSecondsAtStart").asDouble();
    }

    private static String med(List<double[]> v, int i, int decimals) {
        return TextTable.number(Median.of(v.stream().map(a -> a[i]).toList()), decimals);
    }
}
