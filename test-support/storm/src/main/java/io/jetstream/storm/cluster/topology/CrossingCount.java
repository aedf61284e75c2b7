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
 * counts and the {@code System.nanoTime} at which the first tuple arrived to {@code <component>-<task>}:
 * "pid=… received=… remote=… local=… first=…".
 *
 * <p>Used by its bolt's executor thread only.
 */
final class CrossingCount {
    private final Set<Integer> workerTasks;
    private final TaskReport report;
    private final long pid = ProcessHandle.current().pid();
    private long received;
    private long remote;
    private long firstNanos;

    CrossingCount(Map<String, Object> conf, TopologyContext context, String component) {
        this.workerTasks = new HashSet<>(context.getThisWorkerTasks());
        this.report = new TaskReport(Path.of((String) conf.get(CrossWorkerTopology.RESULTS_DIR)),
                component + "-" + context.getThisTaskId(), 200);
    }

    /** Counts {@code input}; returns whether it came from another worker. */
    boolean count(Tuple input) {
        if (received++ == 0) {
            firstNanos = System.nanoTime();
        }
        boolean fromElsewhere = !workerTasks.contains(input.getSourceTask());
        if (fromElsewhere) {
            remote++;
        }
        report.maybeWrite(received == 1, () -> "pid=" + pid + " received=" + received + " remote=" + remote
                + " local=" + (received - remote) + " first=" + firstNanos);
        return fromElsewhere;
    }
}
