package io.jetstream.storm.cluster.topology;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.grouping.CustomStreamGrouping;
import org.apache.storm.task.WorkerTopologyContext;

/**
 * Sends each tuple to a target task in another worker, round-robin: every tuple on a stream so
 * grouped crosses the transport between workers. Where the placement left every target task in the
 * emitting worker, it falls back to those (the bolts' reports count such local deliveries, so a test
 * sees it).
 *
 * <p>One instance per emitting task, used by that task's executor thread only.
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
