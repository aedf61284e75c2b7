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
 * JetStream §3.5 (Algorithm 1) on the testbed: relays a1..a4 whose links to site B differ
 * ({@code --relay-mbit}, 10/25/50/50 by default), one acknowledged stream a0 → b0 at full speed with
 * all four offered, the relays chosen by the ant colony, by its greedy first solution alone, and at
 * random (drawn once). Halfway through each run, the last relay's link drops to a fifth. Per choice:
 * goodput before the drop, after it (once settled), and the seconds from the drop until goodput is
 * back to 0.9 × the new optimum for four seconds in a row (the best set after the drop, measured in the same run: the direct
 * route and the fastest remaining relays in order). Medians over {@code --runs} interleaved runs.
 *
 * <p>Batches are fixed (64 KiB by default), so that the comparison is of the relay choice alone: with
 * adaptive batching the oracle sizes batches from what its probes measure, and a relay's queue hides
 * its slower link from them; batches of several MB then took seconds across a 10 Mbit/s relay while
 * strict ordering held everything behind them ({@code --batch-bytes 0} shows it).
 *
 * <p>Root only; {@code -Dbench.class=RelayChoiceBenchmark}.
 */
@Command(name = "RelayChoiceBenchmark", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Ant colony vs greedy vs random relay choice, with a relay's link dropping mid-run.")
public final class RelayChoiceBenchmark implements Callable<Integer> {
    @Option(names = "--runs", defaultValue = "3")
    int runs;

    @Option(names = "--duration-s", defaultValue = "40")
    double durationSeconds;

    @Option(names = "--record-size", defaultValue = "800")
    int recordSize;

    @Option(names = "--mbit", defaultValue = "50", description = "The sender's and receiver's link (default: ${DEFAULT-VALUE}).")
    int mbit;

    @Option(names = "--relay-mbit", split = ",", defaultValue = "10,25,50,50")
    List<Integer> relayMbit;

    @Option(names = "--rtt-ms", defaultValue = "50")
    int rttMillis;

    @Option(names = "--batch-bytes", defaultValue = "65536",
            description = "Fixed batches of this many bytes; 0: adaptive batching (default: ${DEFAULT-VALUE}; see the class comment).")
    int batchBytes;

    @Option(names = "--choices", split = ",", defaultValue = "ant-colony,greedy,random")
    List<String> choices;

    @Option(names = "--root", defaultValue = "../..")
    Path root;

    @Option(names = "--work", defaultValue = "target/crosssite-bench/RelayChoiceBenchmark")
    Path work;

    public static void main(String[] args) {
        System.exit(new CommandLine(new RelayChoiceBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (!Testbed.available()) {
            System.out.println("RelayChoiceBenchmark skipped: " + Testbed.unavailableReason());
            return 0;
        }
        int relays = relayMbit.size();
        TestbedSpec spec = TestbedSpec.of(2, relays + 1, mbit, rttMillis).withPrefix("jschoice");
        for (int i = 0; i < relays; i++) {
            spec = spec.withOverride("a" + (i + 1), relayMbit.get(i));
        }
        int dropped = relays; // the last relay (a fast one by default) drops to a fifth
        int droppedTo = Math.max(1, relayMbit.get(relays - 1) / 5);
        double dropAt = durationSeconds / 2;
        Map<String, List<double[]>> results = new LinkedHashMap<>();
        try (Testbed testbed = Testbed.up(spec); CrossSiteRig rig = new CrossSiteRig(testbed, root, work)) {
            TestbedNode sender = testbed.node("a0");
            TestbedNode receiver = testbed.node("b0");
            List<TestbedNode> relayNodes = new ArrayList<>();
            for (int i = 1; i <= relays; i++) {
                relayNodes.add(testbed.node("a" + i));
            }
            List<String> relayAddresses = rig.startRelays(relayNodes);
            TestbedNode droppedNode = testbed.node("a" + dropped);
            List<String> best = bestAfterDrop(relayAddresses, dropped, droppedTo);
            for (int r = 0; r < runs; r++) {
                testbed.setRate(droppedNode, droppedTo);
                CrossSiteRig.Result optimum = rig.stream(sender, receiver, args(List.of("--via", String.join(",", best), "--duration-s",
                        "20")), List.of(), 2, 120);
                double newOptimum = optimum.goodputMBps(4);
                results.computeIfAbsent("optimum after the drop (" + best.size() + " relays in order)", k -> new ArrayList<>())
                        .add(new double[] {Double.NaN, newOptimum, Double.NaN});
                System.out.printf("#   optimum after the drop: %.2f MB/s%n", newOptimum);
                for (String choice : choices) {
                    testbed.setRate(droppedNode, relayMbit.get(relays - 1));
                    CrossSiteRig.Result res = rig.stream(sender, receiver, args(List.of("--via", String.join(",", relayAddresses),
                            "--relay-choice", choice, "--duration-s", Double.toString(durationSeconds))), List.of(), 2,
                            (long) durationSeconds + 200, dropAt, () -> testbed.setRate(droppedNode, droppedTo));
                    double[] v = analyse(res, dropAt, newOptimum);
                    results.computeIfAbsent(choice, k -> new ArrayList<>()).add(v);
                    System.out.printf("#   %-10s before %.2f MB/s, after %.2f MB/s, back to 0.9 x optimum after %.1f s; lost %d, duplicated %d%n",
                            choice, v[0], v[1], v[2], res.lost(), res.duplicated());
                }
            }
        }
        TextTable t = new TextTable("relay choice", "before the drop MB/s", "after MB/s", "s to 0.9 × new optimum", "runs");
        for (Map.Entry<String, List<double[]>> e : results.entrySet()) {
            t.row(e.getKey(), med(e.getValue(), 0, 2), med(e.getValue(), 1, 2), med(e.getValue(), 2, 1), e.getValue().size());
        }
        System.out.printf("%nRelay links %s Mbit/s (a1..a%d), a%d drops to %d Mbit/s at %.0f s; %d-byte records, RTT %d ms; medians "
                + "(ranges in the lines above):%n%s%n", relayMbit, relays, dropped, droppedTo, dropAt, recordSize, rttMillis, t);
        return 0;
    }

    private List<String> args(List<String> extra) {
        List<String> a = new ArrayList<>(List.of("--record-size", Integer.toString(recordSize), "--rate", "0", "--reliability",
                "acknowledged", "--set", "jetstream.transport.window-bytes=16777216",
                // a slow choice leaves a backlog: drained before the close rather than dropped by its timeout
                "--set", "jetstream.transport.close-timeout-ms=120000"));
        if (batchBytes > 0) {
            a.addAll(List.of("--set", "jetstream.batch.mode=fixed", "--set", "jetstream.batch.fixed.target-bytes=" + batchBytes));
        }
        a.addAll(extra);
        return a;
    }

    /**
     * The best set after the drop under round-robin (routes × slowest rate): the direct route at
     * {@code mbit} and the fastest relays while adding one raises the product.
     */
    private List<String> bestAfterDrop(List<String> addresses, int dropped, int droppedTo) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < addresses.size(); i++) {
            order.add(i);
        }
        order.sort((x, y) -> Integer.compare(rateAfter(y, dropped, droppedTo), rateAfter(x, dropped, droppedTo)));
        List<String> best = new ArrayList<>();
        double bestGoodput = mbit;
        int slowest = mbit;
        for (int i : order) {
            int s = Math.min(slowest, rateAfter(i, dropped, droppedTo));
            double g = (best.size() + 2) * (double) s;
            if (g <= bestGoodput) {
                break;
            }
            best.add(addresses.get(i));
            bestGoodput = g;
            slowest = s;
        }
        return best;
    }

    private int rateAfter(int relayIndex, int dropped, int droppedTo) {
        return relayIndex + 1 == dropped ? droppedTo : relayMbit.get(relayIndex);
    }

    /** {before, after, seconds to recover} from the receiver's timeline. */
    private static double[] analyse(CrossSiteRig.Result r, double dropAt, double optimum) {
        List<double[]> timeline = r.timeline();
        List<Double> before = new ArrayList<>();
        List<Double> after = new ArrayList<>();
        double recovered = Double.NaN;
        double end = timeline.isEmpty() ? 0 : timeline.get(timeline.size() - 1)[0];
        for (int i = 0; i < timeline.size(); i++) {
            double t = timeline.get(i)[0];
            double mb = timeline.get(i)[1];
            if (t > dropAt - 8 && t <= dropAt) {
                before.add(mb);
            }
            if (t > dropAt + 12 && t < end - 3) {
                after.add(mb);
            }
            if (t > dropAt + 1 && Double.isNaN(recovered) && sustained(timeline, i, 0.9 * optimum)) {
                recovered = t - 1 - dropAt; // the interval ending at t began a second earlier
            }
        }
        return new double[] {before.isEmpty() ? Double.NaN : Median.of(before), after.isEmpty() ? Double.NaN : Median.of(after),
                recovered};
    }

    /** Whether the goodput of interval {@code i} and of the {@value #SUSTAINED} after it all reach {@code level}. */
    private static boolean sustained(List<double[]> timeline, int i, double level) {
        if (i + SUSTAINED >= timeline.size()) {
            return false;
        }
        for (int k = i; k <= i + SUSTAINED; k++) {
            if (timeline.get(k)[1] < level) {
                return false;
            }
        }
        return true;
    }

    /** Intervals after the first that must also reach the level for goodput to count as back. */
    private static final int SUSTAINED = 3;

    private static String med(List<double[]> v, int i, int decimals) {
        List<Double> xs = v.stream().map(a -> a[i]).filter(d -> !Double.isNaN(d)).toList();
        return xs.isEmpty() ? "-" : TextTable.number(Median.of(xs), decimals);
    }
}
