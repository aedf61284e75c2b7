package io.jetstream.storm.cluster.topology;

import io.jetstream.harness.report.TaskReport;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.Tuple;

/**
 * Counts a bolt's input by where it came from (a task in this worker or in another) and reports the
 * counts to {@code <component>-<task>}: "pid=… received=… remote=… local=…".
 *
 * <p>Used by its bolt's executor thread only.
 */
final class CrossingCount {
    private final Set<Integer> workerTasks;
    private final TaskReport report;
    private final long pid = ProcessHandle.current().pid();
    private long received;
    private long remote;

    CrossingCount(Map<String, Object> conf, TopologyContext context, String component) {
        this.workerTasks = new HashSet<>(context.getThisWorkerTasks());
        this.report = new TaskReport(Path.of((String) conf.get(CrossWorkerTopology.RESULTS_DIR)),
                component + "-" + context.getThisTaskId(), 200);
    }

    void count(Tuple input) {
        received++;
        if (!workerTasks.contains(input.getSourceTask())) {
            remote++;
        }
        report.maybeWrite(received == 1, () -> "pid=" + pid + " received=" + received + " remote=" + remote
                + " local=" + (received - remote));
    }
}
