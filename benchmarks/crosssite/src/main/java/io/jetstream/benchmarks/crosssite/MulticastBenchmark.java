package io.jetstream.benchmarks.crosssite;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jetstream.benchmarks.crosssite.testbed.Testbed;
import io.jetstream.benchmarks.crosssite.testbed.TestbedNode;
import io.jetstream.benchmarks.crosssite.testbed.TestbedSpec;
import io.jetstream.core.api.MulticastOptions;
import io.jetstream.core.model.MulticastPlanner;
import io.jetstream.core.model.MulticastPlanner.Goal;
import io.jetstream.core.model.MulticastPlanner.Inputs;
import io.jetstream.core.model.MulticastPlanner.Site;
import io.jetstream.core.model.ThroughputCurve;
import io.jetstream.harness.Median;
import io.jetstream.harness.TextTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * JetStream §3.4 on a three-site testbed: one stream from a0 (site A) to 2, 4 and 8 receivers, half in site B
 * and half in site C (nodes b1.., c1..), by direct multicast (a0 sends every record to every receiver over
 * its own capped link) and by replication at the destination sites (a0 sends one copy to each site's
 * replicating node, b0 and c0, a {@code jetstream-relay} with {@code jetstream.replicator.port}, which sends
 * it on inside its site). Both strategies run in each run, alternating. Per configuration: the receivers'
 * latency (median over the runs of the mean of their p50s, and of the largest p99), the bytes that left a0
 * as copies of one stream's bytes, a0's CPU, and the model's prediction ({@link MulticastPlanner#evaluate})
 * from the measured batch size and the testbed's link (one-way delay RTT/2, the per-node rate; a replicating node's
 * hop {@code multicast.plan.intra-site-latency-ms}' default and 1 GB/s).
 *
 * <p>Root only (network namespaces); run it with
 * {@code ./mvnw -q -o -Pcrosssite-bench -DskipTests package -pl benchmarks/crosssite -am
 * -Dbench.class=MulticastBenchmark -Dbench.args="--runs 3"}.
 */
@Command(name = "MulticastBenchmark", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Direct multicast vs replication at the destination sites, 2/4/8 receivers over two sites.")
public final class MulticastBenchmark implements Callable<Integer> {
    private static final int RECEIVER_PORT = 7500;
    private static final int REPLICATOR_PORT = 7600;
    /** Bytes a record carries on the wire besides its payload: the multicast header and the batch's record header. */
    private static final int RECORD_OVERHEAD = 16 + 8;
    /** Bytes of a batch frame besides its records (length, type, batch header). */
    private static final int BATCH_OVERHEAD = 4 + 1 + 16;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Option(names = "--runs", defaultValue = "3", description = "Runs per configuration (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--destinations", split = ",", defaultValue = "2,4,8", description = "Receivers, split over sites B and C (default: ${DEFAULT-VALUE}).")
    List<Integer> destinationCounts;

    @Option(names = "--rate", defaultValue = "2000", description = "Records per second (default: ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--record-size", defaultValue = "224", description = "Bytes per record (default: ${DEFAULT-VALUE}).")
    int recordSize;

    @Option(names = "--duration-s", defaultValue = "15", description = "Seconds the sender sends (default: ${DEFAULT-VALUE}).")
    double durationSeconds;

    @Option(names = "--warmup-s", defaultValue = "5", description = "Seconds the receivers leave out of their latency (default: ${DEFAULT-VALUE}).")
    double warmupSeconds;

    @Option(names = "--mbit", defaultValue = "50", description = "Per-node inter-site cap, Mbit/s (default: ${DEFAULT-VALUE}).")
    int mbit;

    @Option(names = "--rtt-ms", defaultValue = "50", description = "Round trip between the sites (default: ${DEFAULT-VALUE}).")
    int rttMillis;

    @Option(names = "--ramp", split = ",", paramLabel = "RECORDS/S",
            description = "Instead of the comparison: a planned multicast to 4 + 4 receivers whose rate steps through these values "
                    + "(--step-s each), its quota the node's cap; per step the plan's direct connections, K_p, what left a0 and a0's CPU.")
    List<Double> ramp = new ArrayList<>();

    @Option(names = "--step-s", defaultValue = "12", description = "Seconds per ramp step (default: ${DEFAULT-VALUE}).")
    double stepSeconds;

    @Option(names = "--root", defaultValue = "../..", description = "The repository's root (default: ${DEFAULT-VALUE}).")
    Path root;

    @Option(names = "--work", defaultValue = "target/crosssite-bench/MulticastBenchmark", description = "Logs and reports (default: ${DEFAULT-VALUE}).")
    Path work;

    public static void main(String[] args) {
        System.exit(new CommandLine(new MulticastBenchmark()).execute(args));
    }

    /** One run's measurements of one configuration. */
    record Sample(double meanP50Ms, double maxP99Ms, double copies, double cpuSeconds, double predictedMs, long lost, long duplicated,
            double framingError, double outboundBytesPerSecond, Inputs inputs, List<Site> sites) {}

    /** What a user pays per GB leaving a cloud site (the order of the large providers' list prices). */
    private static final double PRICE_PER_GB = 0.09;

    @Override
    public Integer call() throws Exception {
        if (!Testbed.available()) {
            System.out.println("MulticastBenchmark skipped: " + Testbed.unavailableReason());
            return 0;
        }
        if (!ramp.isEmpty()) {
            return ramp();
        }
        int perSite = destinationCounts.stream().mapToInt(d -> (d + 1) / 2).max().orElse(1);
        TestbedSpec spec = TestbedSpec.of(3, 1 + perSite, mbit, rttMillis).withPrefix("jsmc");
        System.out.printf("# three sites, %d nodes each, %d Mbit/s per node to other sites, RTT %d ms; %.0f records/s of %d B for %.0f s "
                + "(latency after %.0f s); %d runs, strategies alternating%n", 1 + perSite, mbit, rttMillis, rate, recordSize,
                durationSeconds, warmupSeconds, runs);
        Map<String, List<Sample>> samples = new LinkedHashMap<>();
        try (Testbed testbed = Testbed.up(spec); CrossSiteRig rig = new CrossSiteRig(testbed, root, work)) {
            for (int r = 0; r < runs; r++) {
                for (int d : destinationCounts) {
                    for (boolean replicated : new boolean[] {r % 2 == 1, r % 2 == 0}) {
                        String config = d + (replicated ? " replicated" : " direct");
                        Sample s = run(rig, testbed, d, replicated);
                        samples.computeIfAbsent(config, c -> new ArrayList<>()).add(s);
                        System.out.printf("#   %-14s p50 %.1f ms (model %.1f), p99 %.1f ms, %.3f copies left a0, a0 CPU %.1f s, lost %d, "
                                + "duplicated %d, framing error %.4f%n", config, s.meanP50Ms, s.predictedMs, s.maxP99Ms, s.copies,
                                s.cpuSeconds, s.lost, s.duplicated, s.framingError);
                    }
                }
            }
        }
        print(samples);
        return 0;
    }

    private Sample run(CrossSiteRig rig, Testbed testbed, int destinations, boolean replicated) throws Exception {
        TestbedNode sender = testbed.node("a0");
        List<TestbedNode> receivers = new ArrayList<>();
        int[] perSite = {(destinations + 1) / 2, destinations / 2};
        for (int site = 0; site < 2; site++) {
            for (int i = 1; i <= perSite[site]; i++) {
                receivers.add(testbed.node((site == 0 ? "b" : "c") + i));
            }
        }
        List<Process> processes = new ArrayList<>();
        List<Path> receiverJsons = new ArrayList<>();
        try {
            for (TestbedNode n : receivers) {
                Path json = work.resolve("rx-" + n.name() + ".json");
                Files.deleteIfExists(json);
                receiverJsons.add(json);
                Path log = rig.log("rx-" + n.name());
                Process p = n.start(rig.perf("receive", "--bind", "0.0.0.0:" + RECEIVER_PORT, "--multicast", "--exit-after-streams", "1",
                        "--exit-after-idle-s", "10", "--warmup-s", Double.toString(warmupSeconds), "--json", json.toString(),
                        "--set", "jetstream.transport.window-bytes=" + CrossSiteRig.RECEIVER_WINDOW_BYTES), log);
                processes.add(p);
                CrossSiteRig.awaitLine(p, log, "listening", 30);
            }
            List<String> args = new ArrayList<>(List.of("--rate", Double.toString(rate), "--record-size", Integer.toString(recordSize),
                    "--duration-s", Double.toString(durationSeconds)));
            if (replicated) {
                for (String site : List.of("b", "c")) {
                    List<String> members = receivers.stream().filter(n -> n.site() == site.charAt(0))
                            .map(n -> n.lanAddress() + ":" + RECEIVER_PORT).toList();
                    if (members.isEmpty()) {
                        continue;
                    }
                    TestbedNode node = testbed.node(site + "0");
                    processes.add(rig.startReplicator(node, REPLICATOR_PORT, members));
                    args.addAll(List.of("--replicated", site + "=" + node.wanAddress() + ":" + REPLICATOR_PORT + "@" + String.join("+", members)));
                }
            } else {
                args.add("--direct");
                args.add(String.join(",", receivers.stream().map(n -> n.wanAddress() + ":" + RECEIVER_PORT).toList()));
            }
            Path senderJson = work.resolve("tx-multicast.json");
            Files.deleteIfExists(senderJson);
            args.addAll(List.of("--json", senderJson.toString()));
            Path senderLog = rig.log("tx-multicast");
            Process sending = sender.start(rig.perf("multicast", args.toArray(String[]::new)), senderLog);
            processes.add(sending);
            if (!sending.waitFor((long) durationSeconds + 90, TimeUnit.SECONDS) || sending.exitValue() != 0) {
                throw new IllegalStateException("the multicast sender failed or hung; see " + senderLog);
            }
            for (int i = 0; i < receivers.size(); i++) {
                if (!processes.get(i).waitFor(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("receiver " + receivers.get(i) + " did not finish; see " + work);
                }
            }
            return sample(JSON.readTree(senderJson.toFile()), receiverJsons, perSite, replicated);
        } finally {
            for (Process p : processes) {
                CrossSiteRig.stop(p);
            }
            rig.stopRelays();
        }
    }

    private Sample sample(JsonNode tx, List<Path> receiverJsons, int[] perSite, boolean replicated) throws Exception {
        double p50 = 0;
        double p99 = 0;
        long lost = 0;
        long duplicated = 0;
        for (Path json : receiverJsons) {
            JsonNode rx = JSON.readTree(json.toFile());
            p50 += rx.path("latencyMicros").path("p50").asDouble() / 1e3;
            p99 = Math.max(p99, rx.path("latencyMicros").path("p99").asDouble() / 1e3);
            JsonNode stream = rx.path("streams").path(0);
            lost += stream.path("lost").asLong();
            duplicated += stream.path("duplicated").asLong();
        }
        p50 /= receiverJsons.size();
        long records = tx.path("sent").asLong() + 1; // and the END record
        long bytes = 0;
        long batches = 0;
        long expected = 0;
        for (JsonNode d : tx.path("destinations")) {
            bytes += d.path("bytesSent").asLong();
            batches += d.path("batchesSent").asLong();
            expected += (records - 1) * (recordSize + RECORD_OVERHEAD) + (PerfEnd.BYTES + RECORD_OVERHEAD)
                    + d.path("batchesSent").asLong() * BATCH_OVERHEAD;
        }
        int copies = tx.path("destinations").size();
        double oneCopy = (double) (records - 1) * (recordSize + RECORD_OVERHEAD) + PerfEnd.BYTES + RECORD_OVERHEAD;
        double batchEvents = (double) records * copies / Math.max(1, batches);
        List<Site> sites = new ArrayList<>();
        sites.add(new Site("b", perSite[0]));
        if (perSite[1] > 0) {
            sites.add(new Site("c", perSite[1]));
        }
        Inputs in = new Inputs(rate, recordSize + RECORD_OVERHEAD, (int) Math.max(1, Math.round(batchEvents)), BATCH_OVERHEAD,
                new ThroughputCurve(rttMillis / 2e3, mbit * 1e6 / 8), 1,
                new ThroughputCurve(MulticastOptions.PLAN_INTRA_SITE_LATENCY_MS.defaultValue() / 1e3, 1e9), 0.95);
        int mask = replicated ? (1 << sites.size()) - 1 : 0;
        double predicted = MulticastPlanner.evaluate(sites, mask, 1, in, Goal.fastest(0.09, 64)).meanLatencySeconds() * 1e3;
        return new Sample(p50, p99, bytes / oneCopy, tx.path("cpuSeconds").asDouble(), predicted,
                lost, duplicated, (bytes - expected) / (double) Math.max(1, expected), bytes / tx.path("elapsedS").asDouble(), in, sites);
    }

    /**
     * Atmosphere's bound on the testbed: a planned multicast from a0 to four receivers in each of sites B and C, its
     * quota a0's cap, the rate stepping through {@link #ramp}; per step (its last half, after the plan settled) the
     * median direct connections, K_p, replicated sites, bytes per second that left a0 against the quota, and the
     * sending JVM's CPU.
     */
    private int ramp() throws Exception {
        TestbedSpec spec = TestbedSpec.of(3, 5, mbit, rttMillis).withPrefix("jsmcr");
        System.out.printf("# K_p ramp: three sites, 5 nodes each, %d Mbit/s per node, RTT %d ms; %d B records at %s records/s, %.0f s each%n",
                mbit, rttMillis, recordSize, ramp, stepSeconds);
        try (Testbed testbed = Testbed.up(spec); CrossSiteRig rig = new CrossSiteRig(testbed, root, work)) {
            List<Process> processes = new ArrayList<>();
            try {
                List<String> siteArgs = new ArrayList<>();
                for (String site : List.of("b", "c")) {
                    List<String> members = new ArrayList<>();
                    for (int i = 1; i <= 4; i++) {
                        TestbedNode n = testbed.node(site + i);
                        Path log = rig.log("rx-" + n.name());
                        Process p = n.start(rig.perf("receive", "--bind", "0.0.0.0:" + RECEIVER_PORT, "--multicast", "--max-streams", "64",
                                "--set", "jetstream.transport.window-bytes=" + CrossSiteRig.RECEIVER_WINDOW_BYTES), log);
                        processes.add(p);
                        CrossSiteRig.awaitLine(p, log, "listening", 30);
                        members.add(n.lanAddress() + ":" + RECEIVER_PORT);
                    }
                    TestbedNode node = testbed.node(site + "0");
                    processes.add(rig.startReplicator(node, REPLICATOR_PORT, members));
                    // the sender reaches the receivers at their WAN addresses, the node at its WAN address
                    List<String> wan = new ArrayList<>();
                    for (int i = 1; i <= 4; i++) {
                        wan.add(testbed.node(site + i).wanAddress() + ":" + RECEIVER_PORT);
                    }
                    siteArgs.addAll(List.of("--site", site + "=" + node.wanAddress() + ":" + REPLICATOR_PORT + "@" + String.join("+", wan)));
                }
                Path json = work.resolve("tx-ramp.json");
                Files.deleteIfExists(json);
                List<String> args = new ArrayList<>(siteArgs);
                args.addAll(List.of("--rate-steps", String.join(",", ramp.stream().map(r -> Double.toString(r)).toList()),
                        "--step-s", Double.toString(stepSeconds), "--record-size", Integer.toString(recordSize), "--json", json.toString(),
                        "--set", "jetstream.multicast.plan.outbound-quota-mbit=" + mbit,
                        "--set", "jetstream.multicast.plan.interval-ms=1000"));
                Path log = rig.log("tx-ramp");
                Process sending = testbed.node("a0").start(rig.perf("multicast", args.toArray(String[]::new)), log);
                processes.add(sending);
                if (!sending.waitFor((long) (ramp.size() * stepSeconds) + 120, TimeUnit.SECONDS) || sending.exitValue() != 0) {
                    throw new IllegalStateException("the planned multicast failed or hung; see " + log);
                }
                printRamp(JSON.readTree(json.toFile()));
            } finally {
                for (Process p : processes) {
                    CrossSiteRig.stop(p);
                }
                rig.stopRelays();
            }
        }
        return 0;
    }

    private void printRamp(JsonNode tx) {
        double quota = mbit * 1e6 / 8;
        TextTable t = new TextTable("records/s", "direct connections", "K_p", "replicated sites", "left a0 MB/s", "quota MB/s",
                "model MB/s", "a0 CPU (cores)", "plan changes");
        for (int step = 0; step < ramp.size(); step++) {
            double from = step * stepSeconds + stepSeconds / 2;
            double to = (step + 1) * stepSeconds;
            List<JsonNode> lines = new ArrayList<>();
            for (JsonNode line : tx.path("timeline")) {
                double at = line.path("t").asDouble();
                if (at >= from && at < to) {
                    lines.add(line);
                }
            }
            if (lines.isEmpty()) {
                continue;
            }
            t.row(TextTable.number(ramp.get(step), 0),
                    TextTable.number(Median.of(lines.stream().map(l -> l.path("plan.direct-connections").asDouble()).toList()), 0),
                    TextTable.number(Median.of(lines.stream().map(l -> l.path("plan.fan-out-bound").asDouble()).toList()), 0),
                    TextTable.number(Median.of(lines.stream().map(l -> l.path("plan.replicated-sites").asDouble()).toList()), 0),
                    TextTable.number(Median.of(lines.stream().map(l -> l.path("plan.measured-outbound-bytes-per-s").asDouble()).toList()) / 1e6, 2),
                    TextTable.number(quota / 1e6, 2),
                    TextTable.number(Median.of(lines.stream().map(l -> l.path("plan.predicted-outbound-bytes-per-s").asDouble()).toList()) / 1e6, 2),
                    TextTable.number(Median.of(lines.stream().map(l -> l.path("cpuShare").asDouble()).toList()), 2),
                    TextTable.number(lines.get(lines.size() - 1).path("plan.changes").asDouble(), 0));
        }
        System.out.printf("%nK_p ramp (second half of each step), %d B records, %d Mbit/s quota:%n%s%n", recordSize, mbit, t);
    }

    /** The END record perf sends last. */
    private static final class PerfEnd {
        static final int BYTES = 24;
    }

    private void print(Map<String, List<Sample>> samples) {
        TextTable t = new TextTable("receivers, strategy", "p50 ms (median)", "range", "model ms", "model / measured", "p99 ms (median)",
                "copies leaving a0", "a0 CPU s", "lost", "dup");
        for (Map.Entry<String, List<Sample>> e : samples.entrySet()) {
            List<Sample> v = e.getValue();
            List<Double> p50 = v.stream().map(Sample::meanP50Ms).toList();
            double m = Median.of(p50);
            double model = Median.of(v.stream().map(Sample::predictedMs).toList());
            t.row(e.getKey(), TextTable.number(m, 1), TextTable.number(p50.stream().mapToDouble(d -> d).min().orElse(0), 1) + "–"
                    + TextTable.number(p50.stream().mapToDouble(d -> d).max().orElse(0), 1), TextTable.number(model, 1),
                    TextTable.number(model / m, 2), TextTable.number(Median.of(v.stream().map(Sample::maxP99Ms).toList()), 1),
                    TextTable.number(Median.of(v.stream().map(Sample::copies).toList()), 3),
                    TextTable.number(Median.of(v.stream().map(Sample::cpuSeconds).toList()), 1),
                    v.stream().mapToLong(Sample::lost).sum(), v.stream().mapToLong(Sample::duplicated).sum());
        }
        System.out.printf("%n%.0f records/s of %d B, %d Mbit/s per node, RTT %d ms, %d runs:%n%s%n", rate, recordSize, mbit, rttMillis, runs, t);
        printChoices(samples);
    }

    /**
     * The chooser's decision per receiver count, from the inputs measured in the direct runs, under a latency bound
     * and under a spend limit, beside what the chosen strategy measured: whether the measured plan keeps the goal.
     */
    private void printChoices(Map<String, List<Sample>> samples) {
        TextTable t = new TextTable("receivers", "goal", "chosen", "model ms", "model $/h", "measured p50 ms", "measured $/h", "goal kept");
        for (int d : destinationCounts) {
            List<Sample> direct = samples.get(d + " direct");
            List<Sample> replicated = samples.get(d + " replicated");
            if (direct == null || replicated == null) {
                continue;
            }
            Sample basis = direct.get(0);
            double boundMs = 1.1 * Math.min(Median.of(direct.stream().map(Sample::meanP50Ms).toList()),
                    Median.of(replicated.stream().map(Sample::meanP50Ms).toList()));
            double oneCopySpend = Median.of(replicated.stream().map(x -> x.outboundBytesPerSecond() / x.copies()).toList()) * 3600 / 1e9
                    * PRICE_PER_GB;
            Goal[] goals = {new Goal(PRICE_PER_GB, Double.POSITIVE_INFINITY, boundMs / 1e3, 64),
                new Goal(PRICE_PER_GB, 3 * oneCopySpend, Double.POSITIVE_INFINITY, 64)};
            String[] names = {String.format(java.util.Locale.ROOT, "p50 ≤ %.1f ms", boundMs),
                String.format(java.util.Locale.ROOT, "≤ $%.5f/h (3 copies)", 3 * oneCopySpend)};
            for (int g = 0; g < goals.length; g++) {
                MulticastPlanner.Plan plan = MulticastPlanner.plan(basis.sites(), basis.inputs(), goals[g]);
                boolean allReplicated = plan.sites().stream().allMatch(sp -> sp.strategy() == MulticastPlanner.Strategy.REPLICATED);
                boolean allDirect = plan.sites().stream().allMatch(sp -> sp.strategy() == MulticastPlanner.Strategy.DIRECT);
                List<Sample> chosen = allReplicated ? replicated : allDirect ? direct : null;
                String measuredP50 = "-";
                String measuredSpend = "-";
                String kept = "(mixed plan: not measured)";
                if (chosen != null) {
                    double p50 = Median.of(chosen.stream().map(Sample::meanP50Ms).toList());
                    double spend = Median.of(chosen.stream().map(Sample::outboundBytesPerSecond).toList()) * 3600 / 1e9 * PRICE_PER_GB;
                    measuredP50 = TextTable.number(p50, 1);
                    measuredSpend = String.format(java.util.Locale.ROOT, "%.5f", spend);
                    kept = g == 0 ? (p50 <= boundMs ? "yes" : "no") : (spend <= 3 * oneCopySpend ? "yes" : "no");
                }
                t.row(d, names[g], allReplicated ? "replicated" : allDirect ? "direct" : plan.sites().toString(),
                        TextTable.number(plan.meanLatencySeconds() * 1e3, 1), String.format(java.util.Locale.ROOT, "%.5f", plan.spendPerHour()),
                        measuredP50, measuredSpend, kept);
            }
        }
        System.out.printf("%nThe chooser (MulticastPlanner.plan, $%.2f per GB out, K_p unbounded), from the inputs measured in the first "
                + "direct run:%n%s%n", PRICE_PER_GB, t);
    }
}
