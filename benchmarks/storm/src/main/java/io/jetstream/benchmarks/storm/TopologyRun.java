package io.jetstream.benchmarks.storm;

import io.jetstream.harness.Await;
import io.jetstream.harness.TopologyJar;
import io.jetstream.harness.report.PhaseSchedule;
import io.jetstream.harness.report.RunControl;
import io.jetstream.harness.report.TopologyResults;
import io.jetstream.harness.report.TopologyResults.PhaseResult;
import io.jetstream.storm.cluster.StormCluster;
import io.jetstream.storm.cluster.topology.CrossWorkerTopology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.storm.Config;

/**
 * One submission of {@link CrossWorkerTopology} to a running {@link StormCluster} with one messaging
 * context, moved through a {@link PhaseSchedule}, then killed. The spouts measure complete latency
 * per phase; the measured phases are returned.
 *
 * <p>Used by one benchmark thread.
 */
final class TopologyRun {
    /** How the topology is deployed. */
    record Deployment(int workers, int parallelism, int payloadBytes, int maxSpoutPending) {}

    private TopologyRun() {}

    /**
     * Runs the topology once with {@code contextClass} (and {@code extraConf} in the topology's
     * configuration) through {@code schedule}; returns the measured phases by name.
     */
    static Map<String, PhaseResult> run(StormCluster cluster, String name, String contextClass, Map<String, Object> extraConf,
            Deployment deployment, PhaseSchedule schedule, Path scratch) throws Exception {
        return run(cluster, name, contextClass, extraConf, deployment, schedule, scratch, phase -> {});
    }

    /** As above, telling {@code atBoundary} each phase's number as the spouts enter it ({@link PhaseSchedule#drive}). */
    static Map<String, PhaseResult> run(StormCluster cluster, String name, String contextClass, Map<String, Object> extraConf,
            Deployment deployment, PhaseSchedule schedule, Path scratch, java.util.function.IntConsumer atBoundary) throws Exception {
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
            return schedule.drive(control, reports, deployment.parallelism(), atBoundary);
        } finally {
            cluster.kill(name, Duration.ofSeconds(120));
        }
    }
}
