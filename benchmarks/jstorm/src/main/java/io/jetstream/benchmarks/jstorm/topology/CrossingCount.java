package io.jetstream.benchmarks.jstorm.topology;

import backtype.storm.task.TopologyContext;
import backtype.storm.tuple.Tuple;
import io.jetstream.harness.report.TaskReport;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** Counts a bolt's input by where it came from and reports it to {@code <component>-<task>}. Used by its bolt's thread only. */
final class CrossingCount {
    private final Set<Integer> workerTasks;
    private final TaskReport report;
    private final long pid = ProcessHandle.current().pid();
    private long received;
    private long remote;

    @SuppressWarnings("rawtypes")
    CrossingCount(Map conf, TopologyContext context, String component) {
        this.workerTasks = new HashSet<>(context.getThisWorkerTasks());
        this.report = new TaskReport(Path.of((String) conf.get(JStormCrossWorkerTopology.RESULTS_DIR)),
                component + "-" + context.getThisTaskId(), 200);
    }

    void count(Tuple input) {
        received++;
        if (!workerTasks.contains(input.getSourceTask())) {
            remote++;
        }
        report.maybeWrite(received == 1, () -> "pid=" + pid + " received=" + received + " remote=" + remote + " local=" + (received - remote));
    }
}
