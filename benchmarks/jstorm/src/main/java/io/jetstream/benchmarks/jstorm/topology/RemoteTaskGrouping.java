package io.jetstream.benchmarks.jstorm.topology;

import backtype.storm.generated.GlobalStreamId;
import backtype.storm.grouping.CustomStreamGrouping;
import backtype.storm.task.WorkerTopologyContext;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Sends each tuple to a target task in another worker, round-robin; where every target task sits in
 * the emitting worker, to those (the bolts count such local deliveries).
 *
 * <p>One instance per emitting task, used by that task's thread only.
 */
public final class RemoteTaskGrouping implements CustomStreamGrouping {
    private static final long serialVersionUID = 1L;
    private transient List<List<Integer>> choices;
    private transient int next;

    @Override
    public void prepare(WorkerTopologyContext context, GlobalStreamId stream, List<Integer> targetTasks) {
        Set<Integer> local = new HashSet<>(context.getThisWorkerTasks());
        List<List<Integer>> remote = new ArrayList<>();
        for (Integer task : targetTasks) {
            if (!local.contains(task)) {
                remote.add(List.of(task));
            }
        }
        if (remote.isEmpty()) {
            targetTasks.forEach(task -> remote.add(List.of(task)));
        }
        this.choices = remote;
    }

    @Override
    public List<Integer> chooseTasks(int taskId, List<Object> values) {
        List<Integer> chosen = choices.get(next);
        next = next + 1 == choices.size() ? 0 : next + 1;
        return chosen;
    }
}
