package io.jetstream.benchmarks.storm;

import io.jetstream.harness.Await;
import io.jetstream.harness.LatencySummary;
import io.jetstream.harness.TopologyJar;
import io.jetstream.harness.report.RunControl;
import io.jetstream.harness.report.TopologyResults;
import io.jetstream.harness.report.TopologyResults.PhaseResult;
import io.jetstream.storm.cluster.StormCluster;
import io.jetstream.storm.cluster.topology.CrossWorkerTopology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.storm.Config;

/**
 * One submission of {@link CrossWorkerTopology} to a running {@link StormCluster} with one messaging
 * context, moved through a schedule of phases (total tuples per second, duration), then killed. The
 * spouts measure complete latency per phase; phases marked as measured are returned.
 *
 * <p>Used by one benchmark thread.
 */
final class TopologyRun {
    /** A phase: {@code totalRate} tuples per second over all spouts (0 = as fast as acking allows), for {@code seconds}. */
    record Phase(String name, long totalRate, int seconds, boolean measured) {
        static Phase settle(long totalRate, int seconds) {
            return new Phase("settle", totalRate, seconds, false);
        }

        static Phase measure(String name, long totalRate, int seconds) {
            return new Phase(name, totalRate, seconds, true);
        }
    }

    /** How the topology is deployed. */
    record Deployment(int workers, int parallelism, int payloadBytes, int maxSpoutPending) {}

    private TopologyRun() {}

    /**
     * Runs the topology once with {@code contextClass} (and {@code extraConf} in the topology's
     * configuration) through {@code phases}; returns the measured phases by name.
     */
    static Map<String, PhaseResult> run(StormCluster cluster, String name, String contextClass, Map<String, Object> extraConf,
            Deployment deployment, List<Phase> phases, Path scratch) throws Exception {
        Path results = Files.createDirectories(scratch.resolve(name + "-results"));
        Path control = scratch.resolve(name + ".control");
        RunControl.write(control, 0, -1);
        Map<String, Object> conf = new HashMap<>();
        conf.put(Config.STORM_MESSAGING_TRANSPORT, contextClass);
        conf.put(Config.TOPOLOGY_WORKERS, deployment.workers());
        conf.put(Config.TOPOLOGY_ACKER_EXECUTORS, deployment.workers());
        conf.put(Config.TOPOLOGY_MAX_SPOUT_PENDING, deployment.maxSpoutPending());
        conf.put(Config.TOPOLOGY_MESSAGE_TIMEOUT_SECS, 30);
        conf.put(CrossWorkerTopology.RESULTS_DIR, results.toString());
        conf.put(CrossWorkerTopology.CONTROL_FILE, control.toString());
        conf.put(CrossWorkerTopology.RATE_PER_SPOUT, -1);
        conf.put(CrossWorkerTopology.PAYLOAD_BYTES, deployment.payloadBytes());
        conf.putAll(extraConf);
        Path jar = TopologyJar.ofPackages(scratch.resolve(name + ".jar"), CrossWorkerTopology.PACKAGES);
        cluster.submit(name, conf, CrossWorkerTopology.build(deployment.parallelism()), jar);
        try {
            TopologyResults reports = new TopologyResults(results);
            Await.until("every spout of " + name + " running", Duration.ofSeconds(240),
                    () -> reports.spouts().size() == deployment.parallelism(), () -> "spouts " + reports.spouts());
            int phase = 0;
            Map<Integer, Phase> measured = new LinkedHashMap<>();
            for (Phase p : phases) {
                phase++;
                long perSpout = p.totalRate() == 0 ? 0 : Math.max(1, p.totalRate() / deployment.parallelism());
                RunControl.write(control, phase, perSpout);
                if (p.measured()) {
                    measured.put(phase, p);
                }
                pause(p.seconds());
            }
            RunControl.write(control, phase + 1, -1);
            Map<String, PhaseResult> byName = new LinkedHashMap<>();
            for (Map.Entry<Integer, Phase> m : measured.entrySet()) {
                int number = m.getKey();
                Await.until("phase " + number + " of " + name + " written by every spout", Duration.ofSeconds(60),
                        () -> reports.phase(number, deployment.parallelism()).isPresent());
                byName.put(m.getValue().name(), reports.phase(number, deployment.parallelism()).orElseThrow());
            }
            return byName;
        } finally {
            cluster.kill(name, Duration.ofSeconds(120));
        }
    }

    /** Lets a phase run: a benchmark's phases are timed, not conditions to wait for. */
    static void pause(int seconds) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        for (long left; (left = end - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(left);
        }
    }

    /** One line for a measured phase: complete latency and achieved rate. */
    static String describe(PhaseResult p) {
        LatencySummary l = LatencySummary.of(p.latencies());
        return String.format("p50 %8.2f ms  p99 %8.2f ms  acked %,9.0f/s  failed %,d", l.p50Micros() / 1e3, l.p99Micros() / 1e3,
                p.throughput(), p.failed());
    }
}
