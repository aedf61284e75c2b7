package io.jetstream.scheduler.traffic;

import java.util.Map;

/**
 * What one task recorded over its latest monitoring windows (TurboStream §V-D): tuples per second it
 * sent to each target task and the CPU time per second its executor thread used while running it,
 * both smoothed across windows, stamped with the end of the newest window.
 *
 * @param taskId the recording task
 * @param windowEndMillis wall-clock end of the newest window folded in
 * @param cpuNanosPerSecond CPU nanoseconds per second of the executor thread attributed to this task
 * @param tuplesPerSecondTo smoothed tuples per second to each target task id
 */
public record TaskTraffic(int taskId, long windowEndMillis, double cpuNanosPerSecond,
                          Map<Integer, Double> tuplesPerSecondTo) {
    public TaskTraffic {
        if (!(cpuNanosPerSecond >= 0) || Double.isInfinite(cpuNanosPerSecond)) {
            throw new IllegalArgumentException("cpu rate of task " + taskId + " must be finite and >= 0: "
                    + cpuNanosPerSecond);
        }
        tuplesPerSecondTo = Map.copyOf(tuplesPerSecondTo);
        for (Map.Entry<Integer, Double> e : tuplesPerSecondTo.entrySet()) {
            if (!(e.getValue() >= 0) || e.getValue().isInfinite()) {
                throw new IllegalArgumentException("rate of task " + taskId + " to " + e.getKey()
                        + " must be finite and >= 0: " + e.getValue());
            }
        }
    }

    public double totalTuplesPerSecond() {
        double sum = 0;
        for (double r : tuplesPerSecondTo.values()) {
            sum += r;
        }
        return sum;
    }
}
