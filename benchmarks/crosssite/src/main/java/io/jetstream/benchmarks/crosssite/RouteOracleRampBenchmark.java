package io.jetstream.benchmarks.crosssite;

import com.fasterxml.jackson.databind.JsonNode;
import io.jetstream.benchmarks.crosssite.testbed.Testbed;
import io.jetstream.benchmarks.crosssite.testbed.TestbedNode;
import io.jetstream.benchmarks.crosssite.testbed.TestbedSpec;
import io.jetstream.harness.Median;
import io.jetstream.harness.TextTable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * JetStream §3.6 (Algorithm 2, no idle routes) on the two-site testbed: one acknowledged stream a0 →
 * b0 with 3 relays available (a1..a3), its rate stepped up from 1,000 events/s to full speed and back;
 * per step, the routes in use (the sender's {@code routesInUse} each second), the goodput and the
 * one-way latency at the receiver. In the same run, a stream on the direct route alone at the lowest
 * rate: at that rate, one route carries the stream, so the relayed stream's latency should equal it.
 *
 * <p>Root only; {@code -Dbench.class=RouteOracleRampBenchmark}.
 */
@Command(name = "RouteOracleRampBenchmark", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Routes in use follow a rate ramp 1,000 → maximum → 1,000 events/s.")
public final class RouteOracleRampBenchmark implements Callable<Integer> {
    @Option(names = "--rates", split = ",", defaultValue = "1000,8000,20000,40000,0,40000,20000,8000,1000",
            description = "The steps in events/s, 0 = full speed (default: ${DEFAULT-VALUE}).")
    List<Double> rates;

    @Option(names = "--step-s", defaultValue = "8")
    double stepSeconds;

    @Option(names = "--record-size", defaultValue = "224")
    int recordSize;

    @Option(names = "--mbit", defaultValue = "50")
    int mbit;

    @Option(names = "--rtt-ms", defaultValue = "50")
    int rttMillis;

    @Option(names = "--relay-choice", defaultValue = "in-order")
    String relayChoice;

    @Option(names = "--root", defaultValue = "../..")
    Path root;

    @Option(names = "--work", defaultValue = "target/crosssite-bench/RouteOracleRampBenchmark")
    Path work;

    public static void main(String[] args) {
        System.exit(new CommandLine(new RouteOracleRampBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (!Testbed.available()) {
            System.out.println("RouteOracleRampBenchmark skipped: " + Testbed.unavailableReason());
            return 0;
        }
        try (Testbed testbed = Testbed.up(TestbedSpec.of(2, 4, mbit, rttMillis).withPrefix("jsramp"));
                CrossSiteRig rig = new CrossSiteRig(testbed, root, work)) {
            TestbedNode sender = testbed.node("a0");
            TestbedNode receiver = testbed.node("b0");
            List<String> relays = rig.startRelays(List.of(testbed.node("a1"), testbed.node("a2"), testbed.node("a3")));
            String steps = rates.stream().map(r -> Long.toString(Math.round(r))).collect(Collectors.joining(","));
            List<String> common = List.of("--record-size", Integer.toString(recordSize), "--reliability", "acknowledged");

            List<String> direct = new ArrayList<>(common);
            direct.addAll(List.of("--rate", Long.toString(Math.round(rates.get(0))), "--duration-s", Double.toString(2 * stepSeconds)));
            CrossSiteRig.Result oneRoute = rig.stream(sender, receiver, direct, List.of(), 2, (long) (2 * stepSeconds) + 90);

            List<String> ramp = new ArrayList<>(common);
            ramp.addAll(List.of("--via", String.join(",", relays), "--relay-choice", relayChoice, "--rate-steps", steps, "--step-s",
                    Double.toString(stepSeconds)));
            CrossSiteRig.Result r = rig.stream(sender, receiver, ramp, List.of(), 0,
                    (long) (rates.size() * stepSeconds) + 120);

            TextTable t = new TextTable("step", "offered ev/s", "routes in use (median)", "delivered ev/s", "p50 ms", "p99 ms");
            for (int i = 0; i < rates.size(); i++) {
                double from = i * stepSeconds + 1;
                double to = (i + 1) * stepSeconds;
                List<Double> routes = values(r.sender().path("routesTimeline"), "routesInUse", from, to, 0);
                double firstDelivery = firstDelivery(r.receiver());
                List<Double> delivered = values(r.receiver().path("intervals"), "recordsPerS", from, to, firstDelivery);
                List<Double> p50 = values(r.receiver().path("intervals"), "p50", from, to, firstDelivery);
                List<Double> p99 = values(r.receiver().path("intervals"), "p99", from, to, firstDelivery);
                t.row(i + 1, rates.get(i) == 0 ? "full speed" : TextTable.number(rates.get(i), 0), med(routes, 1),
                        med(delivered, 0), med(p50, 1e-3, 1), med(p99, 1e-3, 1));
            }
            System.out.printf("%nRate ramp over 3 relays (%s), %d-byte records, %d Mbit/s per node, RTT %d ms, %.0f s per step; "
                    + "lost %d, duplicated %d:%n%s%n", relayChoice, recordSize, mbit, rttMillis, stepSeconds, r.lost(), r.duplicated(), t);
            System.out.printf("Direct route alone at %.0f ev/s: p50 %.1f ms, p99 %.1f ms (the ramp's first step above: same rate)%n",
                    rates.get(0), oneRoute.latencyMillis("p50"), oneRoute.latencyMillis("p99"));
        }
        return 0;
    }

    private static double firstDelivery(JsonNode receiver) {
        for (JsonNode n : receiver.path("intervals")) {
            if (n.path("delivered").asLong() > 0) {
                return n.path("t").asDouble() - 1;
            }
        }
        return 0;
    }

    private static List<Double> values(JsonNode intervals, String field, double from, double to, double offset) {
        List<Double> v = new ArrayList<>();
        for (JsonNode n : intervals) {
            double t = n.path("t").asDouble() - offset;
            if (t > from && t <= to && n.hasNonNull(field)) {
                v.add(n.path(field).asDouble());
            }
        }
        return v;
    }

    private static String med(List<Double> v, int decimals) {
        return med(v, 1, decimals);
    }

    private static String med(List<Double> v, double scale, int decimals) {
        return v.isEmpty() ? "-" : TextTable.number(Median.of(v) * scale, decimals);
    }
}
