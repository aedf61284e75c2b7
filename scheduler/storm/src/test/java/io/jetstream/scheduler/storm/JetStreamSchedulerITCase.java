package io.jetstream.scheduler.storm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.apache.storm.Config;
import org.apache.storm.DaemonConfig;
import org.apache.storm.LocalCluster;
import org.apache.storm.generated.ExecutorSummary;
import org.apache.storm.generated.TopologyInfo;
import org.apache.storm.generated.TopologySummary;
import org.apache.storm.testing.TestWordCounter;
import org.apache.storm.testing.TestWordSpout;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.tuple.Fields;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Nimbus inside a LocalCluster loads {@link JetStreamScheduler} from {@code storm.scheduler}, and
 * the topology it places runs on the workers it chose (read back through Nimbus's TopologyInfo).
 */
class JetStreamSchedulerITCase {

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void nimbusSchedulesThroughJetStream() throws Exception {
        Config daemon = new Config();
        daemon.put(DaemonConfig.STORM_SCHEDULER, JetStreamScheduler.class.getName());
        Config topology = new Config();
        topology.setNumWorkers(2);
        topology.setNumAckers(0);

        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("words", new TestWordSpout(), 2);
        builder.setBolt("count", new TestWordCounter(), 2).fieldsGrouping("words", new Fields("word"));

        try (LocalCluster cluster = new LocalCluster.Builder()
                .withSupervisors(2)
                .withPortsPerSupervisor(2)
                .withSupervisorSlotPortMin(io.jetstream.harness.FreePorts.consecutive(4))
                .withDaemonConf(daemon)
                .build()) {
            cluster.submitTopology("jetstream-scheduled", topology, builder.createTopology());
            String id = cluster.getClusterInfo().get_topologies().stream()
                    .filter(t -> t.get_name().equals("jetstream-scheduled"))
                    .map(TopologySummary::get_id)
                    .findFirst()
                    .orElseThrow();
            TopologyInfo info = awaitRunning(cluster, id);
            assertTrue(info.get_sched_status().startsWith(JetStreamScheduler.STATUS_PREFIX + " fully scheduled"),
                    info.get_sched_status());
            Set<Integer> ports = info.get_executors().stream().map(ExecutorSummary::get_port).collect(Collectors.toSet());
            assertEquals(2, ports.size(), "executors run on the 2 workers the scheduler chose: " + ports);
            // Closing the cluster stops the topology; killing it while a supervisor is still
            // localizing its files makes Storm halt the JVM, hence the wait for running executors.
        }
    }

    private static TopologyInfo awaitRunning(LocalCluster cluster, String id) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (true) {
            TopologyInfo info = cluster.getTopologyInfo(id);
            boolean placed = info.is_set_sched_status() && info.get_sched_status().startsWith(JetStreamScheduler.STATUS_PREFIX);
            boolean running = !info.get_executors().isEmpty()
                    && info.get_executors().stream().allMatch(e -> e.get_uptime_secs() > 0);
            if (placed && running) {
                return info;
            }
            assertTrue(System.nanoTime() < deadline, "topology not placed and running in time; status: " + info.get_sched_status());
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
        }
    }
}
