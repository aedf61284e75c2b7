package io.jetstream.demo;

import io.jetstream.demo.Section.Comparison;
import io.jetstream.demo.Section.Metric;
import io.jetstream.harness.FreePorts;
import io.jetstream.harness.report.PhaseSchedule;
import io.jetstream.harness.report.PhaseSchedule.Phase;
import io.jetstream.harness.report.RunControl;
import io.jetstream.harness.report.TopologyResults;
import io.jetstream.harness.report.TopologyResults.BoltReport;
import io.jetstream.harness.report.TopologyResults.PhaseResult;
import io.jetstream.harness.report.TopologyResults.SpoutReport;
import io.jetstream.storm.cluster.topology.CrossWorkerTopology;
import io.jetstream.storm.transport.JetStreamContext;
import io.jetstream.storm.transport.TransportMeters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.HdrHistogram.Histogram;
import org.apache.storm.Config;
import org.apache.storm.LocalCluster;
import org.apache.storm.generated.KillOptions;
import org.apache.storm.thrift.TException;
import org.awaitility.core.ConditionFactory;

/**
 * The demo's Storm part: {@link CrossWorkerTopology} (spout, relay, sink with acking; every tuple
 * crosses workers twice, and its acks cross too) on one LocalCluster whose workers build their
 * messaging context from the topology's configuration ({@code storm.local.mode.zmq}), submitted once
 * per side and round, the sides alternating. The phases are the cluster benchmark's
 * ({@link PhaseSchedule}): a warm-up at the measured rate, the measured rate (the first hop, spout to
 * relay in another worker, and the complete latency from emit to ack), a settle phase unpaced, then
 * the maximum throughput (acked tuples per second). Before them, the time from submitting the
 * topology to the first tuple at a sink. After them, every tuple the spouts issued must be acked.
 *
 * <p>Used by the demo's one driving thread.
 */
final class StormDemo {
    static final String STOCK = "stock Netty transport";
    static final String JETSTREAM = "JetStream transport";
    static final Metric FIRST = new Metric("first tuple", "ms", false);
    static final Metric HOP_P50 = new Metric("hop p50", "ms", false);
    static final Metric HOP_P99 = new Metric("hop p99", "ms", false);
    static final Metric COMPLETE_P50 = new Metric("complete p50", "ms", false);
    static final Metric COMPLETE_P99 = new Metric("complete p99", "ms", false);
    static final Metric THROUGHPUT = new Metric("max throughput", "tuples/s", true);
    private static final String STOCK_CONTEXT = "org.apache.storm.messaging.netty.Context";
    private static final int WORKERS = 2;
    /**
     * After a topology is gone from Nimbus its workers still stop (a stock worker's Netty context takes
     * about 2 s to close); the next side's submission waits this long, so that neither side's first
     * tuple pays for the side before it.
     */
    private static final Duration WORKERS_STOP = Duration.ofSeconds(3);
    private static final int PARALLELISM = 2;

    private final Demo.Plan plan;
    private final Progress progress;
    private int submissions;

    StormDemo(Demo.Plan plan, Progress progress) {
        this.plan = plan;
        this.progress = progress;
    }

    /** Planned seconds of one side's round (submission, phases, kill), for the progress estimate. */
    static double plannedSeconds(Demo.Plan plan) {
        return 15 + plan.warmupSeconds() + 2 * plan.measureSeconds() + 1;
    }

    /** Planned seconds of starting the LocalCluster. */
    static final double CLUSTER_SECONDS = 10;

    Section run(Path scratch) throws Exception {
        Section section = new Section(String.format(Locale.ROOT,
                "Storm: LocalCluster, %d workers, spout -> relay -> sink with acking, every tuple crossing workers twice; "
                        + "latency at %,d tuples/s after %d s of warm-up, %d s measured; %d rounds per side, alternating",
                WORKERS, plan.stormRate(), plan.warmupSeconds(), plan.measureSeconds(), plan.rounds()), plan.rounds(),
                List.of(STOCK, JETSTREAM), List.of(FIRST, HOP_P50, HOP_P99, COMPLETE_P50, COMPLETE_P99, THROUGHPUT),
                List.of(new Comparison(JETSTREAM, STOCK)));
        progress.phase("Storm: starting a LocalCluster (ZooKeeper, Nimbus, 2 supervisors in this JVM)", CLUSTER_SECONDS);
        Config daemon = new Config();
        daemon.put(Config.STORM_LOCAL_MODE_ZMQ, true);
        daemon.put(Config.STORM_MESSAGING_TRANSPORT, STOCK_CONTEXT);
        daemon.put(Config.STORM_MESSAGING_NETTY_FLUSH_TIMEOUT_MS, 2_000);
        long ringBatchesBefore = TransportMeters.PROCESS.ringBatchesOfClosedServers();
        long jetstreamTuples = 0;
        try (LocalCluster cluster = new LocalCluster.Builder()
                .withSupervisors(2).withPortsPerSupervisor(2).withSupervisorSlotPortMin(FreePorts.consecutive(4))
                .withDaemonConf(daemon).build()) {
            for (int round = 0; round < plan.rounds(); round++) {
                List<String> order = round % 2 == 0 ? List.of(STOCK, JETSTREAM) : List.of(JETSTREAM, STOCK);
                for (String side : order) {
                    progress.phase(String.format(Locale.ROOT, "Storm round %d/%d, %s: first tuple, latency at %,d tuples/s, "
                            + "maximum throughput", round + 1, plan.rounds(), side, plan.stormRate()), plannedSeconds(plan));
                    long receivedBefore = TransportMeters.PROCESS.received().records();
                    runRound(cluster, side, side.equals(JETSTREAM) ? JetStreamContext.class.getName() : STOCK_CONTEXT, scratch,
                            section);
                    if (side.equals(JETSTREAM)) {
                        jetstreamTuples += TransportMeters.PROCESS.received().records() - receivedBefore;
                    }
                }
            }
        }
        long ringBatches = TransportMeters.PROCESS.ringBatchesOfClosedServers() - ringBatchesBefore;
        section.note(String.format(Locale.ROOT, "JetStream's side (its servers' counters): %,d tuples received over JetStream's "
                + "data path, %,d batches of them through the shared-memory ring.", jetstreamTuples, ringBatches));
        section.note("Measured properly, workers as JVMs of their own: docs/benchmarks.md, \"Storm and JStorm inside the engines\" "
                + "(StormHopLatency for the hop, StormTopologyBenchmark for complete latency and throughput).");
        return section;
    }

    private void runRound(LocalCluster cluster, String side, String contextClass, Path scratch, Section section) throws Exception {
        String name = "demo-" + (side.equals(STOCK) ? "stock" : "jetstream") + "-" + submissions++;
        Path results = Files.createDirectories(scratch.resolve(name + "-results"));
        Path control = scratch.resolve(name + ".control");
        RunControl.write(control, 0, -1);
        Map<String, Object> conf = new HashMap<>();
        conf.put(Config.STORM_MESSAGING_TRANSPORT, contextClass);
        conf.put(Config.TOPOLOGY_WORKERS, WORKERS);
        conf.put(Config.TOPOLOGY_ACKER_EXECUTORS, WORKERS);
        conf.put(Config.TOPOLOGY_MAX_SPOUT_PENDING, 1_000);
        conf.put(Config.TOPOLOGY_MESSAGE_TIMEOUT_SECS, 30);
        conf.put(CrossWorkerTopology.RESULTS_DIR, results.toString());
        conf.put(CrossWorkerTopology.CONTROL_FILE, control.toString());
        // The spouts emit from activation, slowly, so that the first tuple tells when the topology could carry data.
        conf.put(CrossWorkerTopology.RATE_PER_SPOUT, 100);
        conf.put(CrossWorkerTopology.PAYLOAD_BYTES, 128);
        TopologyResults reports = new TopologyResults(results);
        long submitted = System.nanoTime();
        cluster.submitTopology(name, conf, CrossWorkerTopology.build(PARALLELISM));
        try {
            awaiting(name + ": a first tuple at a sink", Duration.ofSeconds(120),
                    () -> reports.spouts().size() == PARALLELISM && reports.bolts("sink").stream().anyMatch(b -> b.firstNanos() > 0));
            long first = reports.bolts("sink").stream().mapToLong(BoltReport::firstNanos).filter(f -> f > 0).min().orElseThrow();
            section.record(side, FIRST, (first - submitted) / 1e6);

            Map<String, PhaseResult> phases = new PhaseSchedule(List.of(
                    Phase.settle(plan.stormRate(), plan.warmupSeconds()),
                    Phase.measure("rate", plan.stormRate(), plan.measureSeconds()),
                    Phase.settle(0, 1),
                    Phase.measure("max", 0, plan.measureSeconds()))).drive(control, reports, PARALLELISM);
            PhaseResult atRate = phases.get("rate");
            PhaseResult max = phases.get("max");
            awaiting(name + ": the relays' hops at the measured rate", Duration.ofSeconds(30),
                    () -> reports.hops(atRate.phase(), PARALLELISM).isPresent());
            Histogram hops = histogram(reports.hops(atRate.phase(), PARALLELISM).orElseThrow().latencies());
            Histogram complete = histogram(atRate.latencies());
            section.record(side, HOP_P50, hops.getValueAtPercentile(50) / 1e3);
            section.record(side, HOP_P99, hops.getValueAtPercentile(99) / 1e3);
            section.record(side, COMPLETE_P50, complete.getValueAtPercentile(50) / 1e3);
            section.record(side, COMPLETE_P99, complete.getValueAtPercentile(99) / 1e3);
            section.record(side, THROUGHPUT, max.throughput());
            awaitEverythingAcked(name, side, reports, section, atRate.failed() + max.failed());
        } finally {
            KillOptions now = new KillOptions();
            now.set_wait_secs(0);
            cluster.killTopologyWithOpts(name, now);
            awaitGone(cluster, name);
            pause(WORKERS_STOP);
        }
    }

    /** Every sequence number a spout issued acked (failed tuples are replayed); a shortfall is a delivery problem. */
    private static void awaitEverythingAcked(String name, String side, TopologyResults reports, Section section, long failed) {
        try {
            poll(name + ": every issued tuple acked", Duration.ofSeconds(45)).until(
                    () -> reports.spouts().stream().allMatch(s -> s.contiguous() == s.issued()));
        } catch (org.awaitility.core.ConditionTimeoutException notAll) {
            // counted below
        }
        List<SpoutReport> spouts = reports.spouts();
        long issued = spouts.stream().mapToLong(SpoutReport::issued).sum();
        long acked = spouts.stream().mapToLong(SpoutReport::contiguous).sum();
        if (acked != issued) {
            section.deliveryProblem(String.format(Locale.ROOT, "%s (%s): %,d of %,d tuples acked 45 s after the last phase (%,d failed "
                    + "and replayed in the measured phases)", side, name, acked, issued, failed));
        }
    }

    private static Histogram histogram(long[] nanos) {
        Histogram h = new Histogram(3_600_000_000L, 3);
        for (long n : nanos) {
            h.recordValue(Math.max(0, Math.min(n / 1_000, h.getHighestTrackableValue())));
        }
        return h;
    }

    /** Waits (bounded) until Nimbus no longer lists the topology: a submission while a kill still cleans up can halt a supervisor. */
    private static void awaitGone(LocalCluster cluster, String name) {
        awaiting(name + " gone after its kill", Duration.ofSeconds(60), () -> {
            try {
                return cluster.getClusterInfo().get_topologies().stream().noneMatch(t -> t.get_name().equals(name));
            } catch (TException e) {
                throw new IllegalStateException("Nimbus did not answer: " + e, e);
            }
        });
    }

    /** Lets {@code time} pass: an idle gap between two sides, not a condition to wait for. */
    private static void pause(Duration time) {
        long end = System.nanoTime() + time.toNanos();
        for (long left; (left = end - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(left);
        }
    }

    /** Waits for {@code condition}, looking every 10 ms (the report files are read each time: no busier than that). */
    private static void awaiting(String what, Duration atMost, BooleanSupplier condition) {
        poll(what, atMost).until(condition::getAsBoolean);
    }

    private static ConditionFactory poll(String what, Duration atMost) {
        return org.awaitility.Awaitility.await(what).atMost(atMost).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10));
    }
}
