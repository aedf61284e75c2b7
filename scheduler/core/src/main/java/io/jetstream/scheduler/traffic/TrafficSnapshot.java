package io.jetstream.scheduler.traffic;

import java.util.List;

/**
 * The traffic of one topology as Nimbus reads it: the fresh record of every task that wrote one.
 *
 * <p>Immutable; thread-safe.
 */
public record TrafficSnapshot(List<TaskTraffic> tasks) {
    public static final TrafficSnapshot EMPTY = new TrafficSnapshot(List.of());

    public TrafficSnapshot {
        tasks = List.copyOf(tasks);
    }

    public boolean isEmpty() {
        return tasks.isEmpty();
    }

    /**
     * The records whose newest window ended at or after {@code millis}: for example what the tasks
     * measured under a placement made a window before.
     */
    public TrafficSnapshot endingAtOrAfter(long millis) {
        List<TaskTraffic> kept = new java.util.ArrayList<>();
        for (TaskTraffic t : tasks) {
            if (t.windowEndMillis() >= millis) {
                kept.add(t);
            }
        }
        return new TrafficSnapshot(kept);
    }

    /** How many of {@code taskIds} have a record here. */
    public int countRecorded(java.util.Collection<Integer> taskIds) {
        java.util.Set<Integer> recorded = new java.util.HashSet<>();
        for (TaskTraffic t : tasks) {
            recorded.add(t.taskId());
        }
        int n = 0;
        for (int id : taskIds) {
            if (recorded.contains(id)) {
                n++;
            }
        }
        return n;
    }

    public double totalTuplesPerSecond() {
        double sum = 0;
        for (TaskTraffic t : tasks) {
            sum += t.totalTuplesPerSecond();
        }
        return sum;
    }
}
