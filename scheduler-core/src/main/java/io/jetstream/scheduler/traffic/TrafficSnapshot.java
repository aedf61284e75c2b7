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

    public double totalTuplesPerSecond() {
        double sum = 0;
        for (TaskTraffic t : tasks) {
            sum += t.totalTuplesPerSecond();
        }
        return sum;
    }
}
