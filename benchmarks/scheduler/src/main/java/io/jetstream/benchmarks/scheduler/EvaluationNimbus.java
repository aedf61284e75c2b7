package io.jetstream.benchmarks.scheduler;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import org.apache.storm.scheduler.INimbus;
import org.apache.storm.scheduler.IScheduler;
import org.apache.storm.scheduler.SupervisorDetails;
import org.apache.storm.scheduler.Topologies;
import org.apache.storm.scheduler.WorkerSlot;

/** The Nimbus side a {@link org.apache.storm.scheduler.Cluster} needs: every port of every supervisor is a slot. */
final class EvaluationNimbus implements INimbus {
    @Override
    public void prepare(Map<String, Object> conf, String schedulerLocalDir) {}

    @Override
    public Collection<WorkerSlot> allSlotsAvailableForScheduling(Collection<SupervisorDetails> supervisors,
                                                                 Topologies topologies, Set<String> missing) {
        Collection<WorkerSlot> slots = new ArrayList<>();
        for (SupervisorDetails s : supervisors) {
            for (int port : s.getAllPorts()) {
                slots.add(new WorkerSlot(s.getId(), port));
            }
        }
        return slots;
    }

    @Override
    public void assignSlots(Topologies topologies, Map<String, Collection<WorkerSlot>> newSlotsByTopologyId) {}

    @Override
    public String getHostName(Map<String, SupervisorDetails> supervisors, String nodeId) {
        SupervisorDetails s = supervisors.get(nodeId);
        return s == null ? null : s.getHost();
    }

    @Override
    public IScheduler getForcedScheduler() {
        return null;
    }
}
