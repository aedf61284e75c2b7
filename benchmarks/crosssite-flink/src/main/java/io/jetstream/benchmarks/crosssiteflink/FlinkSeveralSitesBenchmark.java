package io.jetstream.benchmarks.crosssiteflink;

import static io.jetstream.benchmarks.crosssiteflink.FlinkCrossSiteBenchmark.label;
import static io.jetstream.benchmarks.crosssiteflink.FlinkCrossSiteBenchmark.spread;
import static io.jetstream.benchmarks.crosssiteflink.FlinkCrossSiteBenchmark.sum;

import io.jetstream.benchmarks.crosssite.testbed.Testbed;
import io.jetstream.benchmarks.crosssite.testbed.TestbedNode;
import io.jetstream.benchmarks.crosssite.testbed.TestbedSpec;
import io.jetstream.harness.TextTable;
import java.nio.file.Files;
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
 * One Flink job's stream to jobs on two other sites, on a three-site testbed (2 nodes per site, {@code --mbit} per node,
 * {@code --rtt-ms}): the sending job on a0, a landing and a receiving job on each of sites B and C (b1/c1 and b0/c0).
 * Two sides, one after the other within each of {@code --runs} runs: <b>one sink to both sites</b>
 * ({@code crosssite.landings}: one multicast stream per writer, each event serialised and copied once) against <b>a
 * sink per site</b> (two {@code CrossSiteSink}s fed the same stream: what a job does without it). Per side: the
 * sending job's CPU per event and each receiving job's end-to-end latency at each of {@code --rates}, and the goodput
 * of the slower site with senders unthrottled ({@code --max}). Medians over the runs with their range, and the ratio
 * one-sink / sink-per-site (median of the per-run ratios).
 *
 * <p>Root only: {@code flock /tmp/jetstream-bench.lock ./mvnw -B -ntp -o -q -Pcrosssite-flink-bench -DskipTests package
 * -pl benchmarks/crosssite-flink -am -Dbench.class=FlinkSeveralSitesBenchmark}.
 */
@Command(name = "FlinkSeveralSitesBenchmark", mixinStandardHelpOptions = true, sortOptions = false,
        description = "A Flink job to jobs on two other sites: one CrossSiteSink to both against a CrossSiteSink per site.")
public final class FlinkSeveralSitesBenchmark implements Callable<Integer> {
    static final String ONE_SINK = "one sink, both sites";
    static final String SINK_PER_SITE = "a sink per site";
    private static final List<String> SITES = List.of("b", "c");

    @Option(names = "--guarantee", defaultValue = "exactly-once", description = "Default: ${DEFAULT-VALUE}.")
    String guarantee;

    @Option(names = "--rates", split = ",", defaultValue = "2000", description = "Fixed rates, events/s (default: ${DEFAULT-VALUE}).")
    List<Double> rates;

    @Option(names = "--max", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Also measure the maximum goodput (default: ${DEFAULT-VALUE}).")
    boolean max;

    @Option(names = "--runs", defaultValue = "3", description = "Runs; medians and ranges over them (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--record-bytes", defaultValue = "1000")
    int recordBytes;

    @Option(names = "--duration-s", defaultValue = "15")
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

    @Option(names = "--root", defaultValue = "../..", description = "The repository (for the landing's jar).")
    Path root;

    @Option(names = "--work", defaultValue = "target/several-sites-bench")
    Path work;

    public static void main(String[] args) {
        System.exit(new CommandLine(new FlinkSeveralSitesBenchmark()).execute(args));
    }

    /** One side's figures of one run: both receiving sites together. */
    private record Figures(double goodputMBps, double p50B, double p50C, double p99, long delivered, long missing,
            long duplicated, double cpuMicros) {
        static Figures of(List<JobPair.Result> r) {
            JobPair.Result b = r.get(0);
            JobPair.Result c = r.get(1);
            long sent = Math.max(1, b.sender().path("records").asLong());
            return new Figures(Math.min(b.goodputMBps(), c.goodputMBps()), b.latencyMillis("p50"), c.latencyMillis("p50"),
                    Math.max(b.latencyMillis("p99"), c.latencyMillis("p99")), b.distinct() + c.distinct(),
                    b.missing() + c.missing(), b.duplicated() + c.duplicated(),
                    b.sender().path("jobCpuSeconds").asDouble() * 1e6 / sent);
        }
    }

    @Override
    public Integer call() throws Exception {
        if (!Testbed.available()) {
            System.out.println("FlinkSeveralSitesBenchmark skipped: " + Testbed.unavailableReason());
            return 0;
        }
        Guarantee g = Guarantee.of(guarantee);
        Path landingJar = root.toAbsolutePath().normalize().resolve("landing/target/jetstream-landing.jar");
        if (!Files.isRegularFile(landingJar)) {
            throw new IllegalStateException(landingJar + " is missing: build it with ./mvnw -q -o -DskipTests package -pl landing -am");
        }
        Path dir = Files.createDirectories(work.toAbsolutePath());
        byte[] secretBytes = new byte[32];
        new java.security.SecureRandom().nextBytes(secretBytes);
        Path secret = Files.write(dir.resolve("stream.secret"), secretBytes);
        TextTable t = new TextTable("offered ev/s", "sink", "goodput MB/s (slower site)", "p50 ms site B", "p50 ms site C",
                "p99 ms", "delivered", "missing", "duplicated", "site-A CPU µs/event", "one sink / sink per site");
        List<String> details = new ArrayList<>();
        try (Testbed testbed = Testbed.up(TestbedSpec.of(3, 2, mbit, rttMillis).withPrefix("jsms"))) {
            List<Double> offered = new ArrayList<>();
            if (max) {
                offered.add(0.0);
            }
            offered.addAll(rates);
            int id = 0;
            for (double rate : offered) {
                Map<String, List<Figures>> bySide = new LinkedHashMap<>();
                for (int run = 0; run < runs; run++) {
                    for (String side : List.of(ONE_SINK, SINK_PER_SITE)) {
                        Path measurement = fresh(dir.resolve("m" + (++id) + "-" + (side.equals(ONE_SINK) ? "one" : "per-site")));
                        List<JobPair.Result> r = measure(testbed, landingJar, secret, side, g, rate, measurement);
                        Figures f = Figures.of(r);
                        bySide.computeIfAbsent(side, k -> new ArrayList<>()).add(f);
                        details.add(side + " " + label(rate) + " run " + (run + 1) + ": " + r.get(0).sender() + "; logs " + measurement);
                        System.out.printf("# %s %s run %d: %.3f MB/s, p50 %.1f / %.1f ms, p99 %.1f ms, %d delivered, %d missing, "
                                + "%d duplicated, %.1f µs/event%n", label(rate), side, run + 1, f.goodputMBps(), f.p50B(), f.p50C(),
                                f.p99(), f.delivered(), f.missing(), f.duplicated(), f.cpuMicros());
                    }
                }
                List<Figures> one = bySide.get(ONE_SINK);
                List<Figures> perSite = bySide.get(SINK_PER_SITE);
                for (Map.Entry<String, List<Figures>> e : bySide.entrySet()) {
                    List<Figures> fs = e.getValue();
                    String ratios = "-";
                    if (e.getKey().equals(ONE_SINK)) {
                        ratios = "CPU " + ratio(one, perSite, Figures::cpuMicros)
                                + (rate == 0 ? ", goodput " + ratio(one, perSite, Figures::goodputMBps)
                                        : ", p50 B " + ratio(one, perSite, Figures::p50B) + ", C " + ratio(one, perSite, Figures::p50C));
                    }
                    t.row(label(rate), e.getKey(), spread(fs, Figures::goodputMBps, 3), spread(fs, Figures::p50B, 1),
                            spread(fs, Figures::p50C, 1), spread(fs, Figures::p99, 1), sum(fs, Figures::delivered),
                            rate == 0 ? "-" : sum(fs, Figures::missing), sum(fs, Figures::duplicated), spread(fs, Figures::cpuMicros, 1),
                            ratios);
                }
            }
        }
        System.out.printf("%n%s, %d-byte events, parallelism %d, checkpoints every %d ms, %d Mbit/s per node, RTT %d ms, "
                + "%.0f s per run, %d runs (median [min–max]; ratios: median of the per-run ratios [range]):%n%s%n", g.label(),
                recordBytes, parallelism, checkpointIntervalMs, mbit, rttMillis, durationSeconds, runs, t);
        details.forEach(System.out::println);
        return 0;
    }

    /** One side at one rate: a landing on b1 and c1, a receiving job on b0 and c0, the sending job on a0. */
    private List<JobPair.Result> measure(Testbed testbed, Path landingJar, Path secret, String side, Guarantee g, double rate,
            Path dir) throws Exception {
        List<Process> landings = new ArrayList<>();
        try {
            StringBuilder landingsForSenders = new StringBuilder();
            List<Placement> receivers = new ArrayList<>();
            List<List<String>> receiveArgs = new ArrayList<>();
            for (String site : SITES) {
                TestbedNode landingNode = testbed.node(site + "1");
                TestbedNode jobNode = testbed.node(site + "0");
                landings.add(JetStreamLinkRig.startLanding(ProcessLauncher.on(landingNode), landingJar, secret, "0.0.0.0",
                        JetStreamLinkRig.LANDING_PORT, dir.resolve("landing-" + site), dir.resolve("landing-" + site + ".log")));
                landingsForSenders.append(landingsForSenders.length() == 0 ? "" : ",").append("site-").append(site).append('=')
                        .append(landingNode.wanAddress()).append(':').append(JetStreamLinkRig.LANDING_PORT);
                receivers.add(new Placement(ProcessLauncher.on(jobNode), jobNode.lanAddress()));
                List<String> receive = new ArrayList<>(common(g, secret));
                receive.addAll(List.of("--link", JetStreamLink.LANDING + "=" + landingNode.lanAddress() + ":" + JetStreamLinkRig.LANDING_PORT,
                        "--link", JetStreamLink.SITE + "=site A",
                        "--link", "jetstream.transport.bind-address=" + jobNode.lanAddress(),
                        "--warmup-s", Double.toString(warmupSeconds), "--idle-s", "15"));
                if (rate > 0) {
                    long expected = (long) Math.ceil(rate * durationSeconds);
                    receive.addAll(List.of("--expect-records", Long.toString(expected), "--duration-s",
                            Double.toString(durationSeconds + 120)));
                } else {
                    receive.addAll(List.of("--measure-s", Double.toString(durationSeconds), "--duration-s",
                            Double.toString(durationSeconds + 240)));
                }
                receiveArgs.add(receive);
            }
            List<String> send = new ArrayList<>(common(g, secret));
            send.addAll(List.of("--link", JetStreamLink.LANDINGS + "=" + landingsForSenders,
                    "--link", JetStreamLink.SINK_PER_SITE + "=" + side.equals(SINK_PER_SITE),
                    "--link", "jetstream.transport.window-bytes=" + (16 << 20),
                    "--rate", Double.toString(rate), "--record-bytes", Integer.toString(recordBytes),
                    "--duration-s", Double.toString(durationSeconds)));
            TestbedNode a0 = testbed.node("a0");
            return JobPair.run(new Placement(ProcessLauncher.on(a0), a0.lanAddress()), receivers, send, receiveArgs, dir, "jobs",
                    (long) durationSeconds + 240, true);
        } finally {
            for (Process p : landings) {
                JavaProcesses.stop(p);
            }
        }
    }

    private List<String> common(Guarantee g, Path secret) {
        return List.of("--via", JetStreamLink.NAME, "--guarantee", g.label(), "--parallelism", Integer.toString(parallelism),
                "--checkpoint-interval-ms", Long.toString(checkpointIntervalMs),
                "--link", JetStreamLink.STREAM + "=" + JetStreamLinkRig.STREAM,
                "--link", "jetstream.transport.auth.secret-file=" + secret,
                // Sites are namespaces of one machine here: the same-host ring would bypass the links between them.
                "--link", "jetstream.transport.ring.enabled=false");
    }

    private static Path fresh(Path dir) throws java.io.IOException {
        if (Files.exists(dir)) {
            try (java.util.stream.Stream<Path> old = Files.walk(dir)) {
                for (Path p : old.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        return Files.createDirectories(dir);
    }

    private static String ratio(List<Figures> a, List<Figures> b, ToDoubleFunction<Figures> f) {
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            ratios.add(f.applyAsDouble(a.get(i)) / f.applyAsDouble(b.get(i)));
        }
        return spread(ratios, 2);
    }

}
