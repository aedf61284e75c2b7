package io.jetstream.scheduler.storm;

import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.storm.metric.StormMetricsRegistry;
import org.apache.storm.scheduler.Cluster;
import org.apache.storm.scheduler.EvenScheduler;
import org.apache.storm.scheduler.IScheduler;
import org.apache.storm.scheduler.SchedulerAssignment;
import org.apache.storm.scheduler.Topologies;
import org.apache.storm.scheduler.TopologyDetails;
import org.apache.storm.scheduler.WorkerSlot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JetStream's Storm scheduler, selected in Nimbus's {@code storm.yaml} with
 * {@code storm.scheduler: io.jetstream.scheduler.storm.JetStreamScheduler}.
 *
 * <p>Placement is currently Storm's even placement (delegated to {@link EvenScheduler}); what this
 * class adds is the plumbing TurboStream's traffic-aware placement will use: validated options, a
 * per-topology decision log, and a status per topology (visible in the UI and in
 * {@code TopologyInfo.sched_status}) that says who placed it and where, or why it is not fully placed.
 *
 * <p>Thread-safety: Nimbus calls {@code schedule} from one thread at a time.
 */
public class JetStreamScheduler implements IScheduler {
    private static final Logger LOG = LoggerFactory.getLogger(JetStreamScheduler.class);

    /** Prefix of every status message this scheduler sets. */
    public static final String STATUS_PREFIX = "JetStream:";

    private final EvenScheduler placement = new EvenScheduler();
    private JetStreamConfig config;

    @Override
    public void prepare(Map<String, Object> conf, StormMetricsRegistry metricsRegistry) {
        config = JetStreamConfig.load(ConfigScope.STORM, conf, JetStreamSchedulerOptions.GROUP);
        placement.prepare(conf, metricsRegistry);
        LOG.info("JetStream scheduler prepared with {} (placement: even)", config);
    }

    @Override
    public void schedule(Topologies topologies, Cluster cluster) {
        List<TopologyDetails> pending = cluster.needsSchedulingTopologies();
        if (pending.isEmpty()) {
            return;
        }
        Map<String, Integer> unassignedBefore = new HashMap<>();
        for (TopologyDetails topology : pending) {
            unassignedBefore.put(topology.getId(), cluster.getUnassignedExecutors(topology).size());
        }
        placement.schedule(topologies, cluster);
        for (TopologyDetails topology : pending) {
            report(topology, cluster, unassignedBefore.get(topology.getId()));
        }
    }

    private static void report(TopologyDetails topology, Cluster cluster, int unassignedBefore) {
        String id = topology.getId();
        int unassigned = cluster.getUnassignedExecutors(topology).size();
        SchedulerAssignment assignment = cluster.getAssignmentById(id);
        Set<WorkerSlot> slots = assignment == null ? Set.of() : assignment.getSlots();
        Set<String> hosts = slots.stream().map(s -> cluster.getHost(s.getNodeId())).collect(Collectors.toSet());
        String status;
        if (unassigned == 0) {
            status = String.format("%s fully scheduled (even placement): %d executors on %d workers, %d hosts%s",
                    STATUS_PREFIX, topology.getExecutors().size(), slots.size(), hosts.size(),
                    slots.size() < topology.getNumWorkers()
                            ? " (" + topology.getNumWorkers() + " workers requested; not enough free slots)"
                            : "");
            LOG.info("Topology {}: placed {} executors on workers {}", id, unassignedBefore, slots);
        } else {
            status = String.format("%s not enough free slots: %d of %d executors unassigned (%d workers requested, %d free slots)",
                    STATUS_PREFIX, unassigned, topology.getExecutors().size(), topology.getNumWorkers(),
                    cluster.getAvailableSlots().size());
            LOG.warn("Topology {}: {}", id, status);
        }
        cluster.setStatus(id, status);
    }

    @Override
    public Map<String, Map<String, Double>> config() {
        return Map.of();
    }

    @Override
    public void cleanup() {
        placement.cleanup();
    }
}
