package io.jetstream.demo;

import io.jetstream.benchmarks.crosssite.CrossSiteRig;
import io.jetstream.benchmarks.crosssite.testbed.Testbed;
import io.jetstream.benchmarks.crosssite.testbed.TestbedNode;
import io.jetstream.benchmarks.crosssite.testbed.TestbedSpec;
import io.jetstream.demo.Demo.Plan;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The demo's cross-site row (root only: the two-site testbed of network namespaces): one
 * acknowledged stream from a0 in site A to b0 in site B, each node's link to the other site 50 Mbit/s
 * with a 50 ms round trip, over the direct route alone and over the direct route and three relays of
 * site A (a1..a3, {@code jetstream-relay} processes), sides alternating; goodput at full speed, with
 * every record accounted for by the receiver ({@code jetstream-perf}).
 *
 * <p>One thread.
 */
final class CrossSiteDemo {
    static final String DIRECT = "direct route";
    static final String RELAYS = "direct + 3 relays";
    static final Section.Metric GOODPUT = new Section.Metric("goodput", "records/s", true);
    static final Section.Metric GOODPUT_MB = new Section.Metric("goodput", "MB/s", false);
    private static final int RECORD_SIZE = 800;

    private final Plan plan;
    private final Progress progress;

    CrossSiteDemo(Plan plan, Progress progress) {
        this.plan = plan;
        this.progress = progress;
    }

    /** Seconds the row is planned to take. */
    static double plannedSeconds(Plan plan) {
        return 5 + plan.rounds() * 2 * (plan.warmupSeconds() + plan.measureSeconds() + 6);
    }

    Section run(Path root, Path work) throws Exception {
        Section section = new Section("Cross-site: one stream between two emulated sites (50 Mbit/s per node, RTT 50 ms), "
                + RECORD_SIZE + "-byte records", plan.rounds(), List.of(DIRECT, RELAYS), List.of(GOODPUT, GOODPUT_MB),
                List.of(new Section.Comparison(RELAYS, DIRECT)));
        try (Testbed testbed = Testbed.up(TestbedSpec.of(2, 4, 50, 50).withPrefix("jsdemo"));
                CrossSiteRig rig = new CrossSiteRig(testbed, root, work)) {
            TestbedNode sender = testbed.node("a0");
            TestbedNode receiver = testbed.node("b0");
            List<String> relays = rig.startRelays(List.of(testbed.node("a1"), testbed.node("a2"), testbed.node("a3")));
            double seconds = plan.warmupSeconds() + plan.measureSeconds() + 1;
            for (int round = 0; round < plan.rounds(); round++) {
                for (String side : List.of(DIRECT, RELAYS)) {
                    progress.phase(String.format(Locale.ROOT, "Cross-site round %d/%d, %s: a stream from site A to site B at "
                            + "full speed", round + 1, plan.rounds(), side), seconds + 6);
                    List<String> args = new ArrayList<>(List.of("--record-size", Integer.toString(RECORD_SIZE), "--rate", "0",
                            "--duration-s", Double.toString(seconds), "--reliability", "acknowledged",
                            "--set", "jetstream.transport.window-bytes=16777216"));
                    if (side.equals(RELAYS)) {
                        args.add("--via");
                        args.add(String.join(",", relays));
                    }
                    CrossSiteRig.Result r = rig.stream(sender, receiver, args, List.of(), 0, (long) seconds + 90);
                    double mb = r.goodputMBps(plan.warmupSeconds());
                    section.record(side, GOODPUT, mb * 1e6 / RECORD_SIZE);
                    section.record(side, GOODPUT_MB, mb);
                    if (r.lost() != 0 || r.duplicated() != 0) {
                        section.deliveryProblem(String.format(Locale.ROOT, "%s: %d records lost, %d duplicated (see %s)", side,
                                r.lost(), r.duplicated(), r.receiverLog()));
                    }
                }
            }
        }
        section.note("Relays are nodes of the sender's site, each with its own 50 Mbit/s to the other site; the receiver checks "
                + "every record once, in order. Measured properly (3 runs, 224- and 800-byte records, parallel direct "
                + "connections beside): docs/benchmarks.md, \"Across sites\".");
        return section;
    }
}
