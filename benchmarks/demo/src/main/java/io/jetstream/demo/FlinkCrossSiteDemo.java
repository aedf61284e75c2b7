package io.jetstream.demo;

import io.jetstream.benchmarks.crosssite.testbed.Testbed;
import io.jetstream.benchmarks.crosssite.testbed.TestbedSpec;
import io.jetstream.benchmarks.crosssiteflink.Guarantee;
import io.jetstream.benchmarks.crosssiteflink.JobPair;
import io.jetstream.benchmarks.crosssiteflink.JetStreamLinkRig;
import io.jetstream.benchmarks.crosssiteflink.KafkaChainRig;
import io.jetstream.demo.Demo.Plan;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The demo's Flink cross-site row: a Flink job's stream carried exactly once to a Flink job on another
 * site, over what users run today (KafkaSink, a Kafka cluster, MirrorMaker 2, a second Kafka cluster,
 * KafkaSource with read_committed: every broker and MirrorMaker 2 a process of its own) and over
 * JetStream (CrossSiteSink, three relays of the sending site, a landing, CrossSiteSource), sides
 * alternating; goodput at full speed, every event checked once by the receiving job. As root it runs on
 * the two-site testbed (50 Mbit/s per node, RTT 50 ms); otherwise every process runs on this host, with
 * no link between the sites and no relays, and the section says so.
 *
 * <p>One thread.
 */
final class FlinkCrossSiteDemo {
    static final String CHAIN = "Kafka + MirrorMaker 2";
    static final String JETSTREAM_RELAYS = "JetStream + 3 relays";
    static final String JETSTREAM_ONE_HOST = "JetStream, one host";
    static final String CHAIN_ONE_HOST = "Kafka + MM2, one host";
    static final Section.Metric GOODPUT = new Section.Metric("goodput", "events/s", true);
    static final Section.Metric GOODPUT_MB = new Section.Metric("goodput", "MB/s", false);
    private static final int RECORD_BYTES = 1000;
    private static final int PARALLELISM = 2;
    private static final long CHECKPOINT_INTERVAL_MS = 1000;
    /** A run's fixed cost: the jobs' JVMs and submission, and for the chain its brokers and MirrorMaker 2. */
    private static final double JETSTREAM_OVERHEAD_SECONDS = 30;
    private static final double CHAIN_OVERHEAD_SECONDS = 45;

    private final Plan plan;
    private final Progress progress;

    FlinkCrossSiteDemo(Plan plan, Progress progress) {
        this.plan = plan;
        this.progress = progress;
    }

    /**
     * Warm-up after the first event arrives, whatever the plan: the sending job's streams open their routes
     * through the relays and the oracle adds routes as it measures them (seconds on this link), and exactly
     * once releases what a checkpoint covers, once a second.
     */
    private static final double WARMUP_SECONDS = 5;
    /** The measured window, ten checkpoints; the sending job sends this long and the warm-up. */
    private static final double MEASURE_SECONDS = 10;

    /** Seconds the row is planned to take. */
    static double plannedSeconds(Plan plan) {
        return plan.jobPairRounds() * (CHAIN_OVERHEAD_SECONDS + JETSTREAM_OVERHEAD_SECONDS + 2 * (WARMUP_SECONDS + MEASURE_SECONDS));
    }

    Section run(Path root, Path work) throws Exception {
        boolean testbed = Testbed.available();
        String chainSide = testbed ? CHAIN : CHAIN_ONE_HOST;
        String ourSide = testbed ? JETSTREAM_RELAYS : JETSTREAM_ONE_HOST;
        Section section = new Section("Flink cross-site: a job's stream to a job on another site, exactly once, " + RECORD_BYTES
                + "-byte events, "
                + (testbed ? "two emulated sites (50 Mbit/s per node, RTT 50 ms)"
                        : "ONE HOST (not root: no testbed, no link between the sites, no relays)"),
                plan.jobPairRounds(), List.of(chainSide, ourSide), List.of(GOODPUT, GOODPUT_MB), List.of(new Section.Comparison(ourSide, chainSide)));
        // The sending job sends for the warm-up and the window; the receiving job measures the window after the warm-up
        // from its first event (a later start of the first event shortens the window, never lengthens it).
        KafkaChainRig.Settings settings = new KafkaChainRig.Settings(Guarantee.EXACTLY_ONCE, 0, RECORD_BYTES,
                WARMUP_SECONDS + MEASURE_SECONDS, PARALLELISM, CHECKPOINT_INTERVAL_MS, WARMUP_SECONDS);
        Path absoluteRoot = root.toAbsolutePath().normalize();
        Path absoluteWork = work.toAbsolutePath();
        if (testbed) {
            try (Testbed bed = Testbed.up(TestbedSpec.of(2, 4, 50, 50).withPrefix("jsdemf"));
                    JetStreamLinkRig jetstream = new JetStreamLinkRig(bed, absoluteRoot, absoluteWork.resolve("jetstream"))) {
                rounds(section, new KafkaChainRig(bed, absoluteWork.resolve("kafka")), jetstream, 3, settings);
            }
        } else {
            try (JetStreamLinkRig jetstream = JetStreamLinkRig.onThisHost(absoluteRoot, absoluteWork.resolve("jetstream"))) {
                rounds(section, KafkaChainRig.onThisHost(absoluteWork.resolve("kafka")), jetstream, 0, settings);
            }
        }
        section.note("Both sides: the same two jobs (parallelism " + PARALLELISM + ", checkpoints every " + CHECKPOINT_INTERVAL_MS
                + " ms), each a JVM of its own; goodput over " + (int) MEASURE_SECONDS + " s after " + (int) WARMUP_SECONDS
                + " s of warm-up; the receiving job checks every event once. Measured properly (3 runs, both "
                + "guarantees, latency at a fixed rate, CPU per event): docs/benchmarks.md, \"A Flink job to a Flink job on another site\".");
        return section;
    }

    private void rounds(Section section, KafkaChainRig chain, JetStreamLinkRig jetstream, int relays, KafkaChainRig.Settings s)
            throws Exception {
        String chainSide = section.sides.get(0);
        String ourSide = section.sides.get(1);
        for (int round = 0; round < plan.jobPairRounds(); round++) {
            progress.phase(phase(round, chainSide), CHAIN_OVERHEAD_SECONDS + s.durationSeconds());
            record(section, chainSide, chain.measure(s).jobs());
            progress.phase(phase(round, ourSide), JETSTREAM_OVERHEAD_SECONDS + s.durationSeconds());
            record(section, ourSide, jetstream.measure(s, relays).jobs());
        }
    }

    private String phase(int round, String side) {
        return String.format(Locale.ROOT, "Flink cross-site round %d/%d, %s: a job's stream to a job on the other site, exactly "
                + "once, at full speed", round + 1, plan.jobPairRounds(), side);
    }

    private static void record(Section section, String side, JobPair.Result r) {
        double mb = r.goodputMBps();
        section.record(side, GOODPUT, mb * 1e6 / RECORD_BYTES);
        section.record(side, GOODPUT_MB, mb);
        if (r.distinct() <= 0) {
            section.deliveryProblem(String.format(Locale.ROOT, "%s: the receiving job received nothing (see %s)", side,
                    r.receiverLog()));
        }
        if (r.duplicated() != 0) {
            section.deliveryProblem(String.format(Locale.ROOT, "%s: %d events duplicated under exactly once (see %s)", side,
                    r.duplicated(), r.receiverLog()));
        }
    }
}
