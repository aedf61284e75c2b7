package io.jetstream.scheduler.placement;

import java.util.Arrays;

/**
 * Where every task goes: a worker index of {@link NodeSlots} per task, and the measures a placement
 * is judged by — traffic crossing nodes and workers, and load per node relative to capacity.
 *
 * <p>Immutable; thread-safe.
 */
public final class Placement {
    private final NodeSlots slots;
    private final int[] workerOf;

    public Placement(NodeSlots slots, int[] workerOf) {
        for (int w : workerOf) {
            if (w < 0 || w >= slots.workerCount()) {
                throw new IllegalArgumentException("worker " + w + " outside [0, " + slots.workerCount() + ")");
            }
        }
        this.slots = slots;
        this.workerOf = workerOf.clone();
    }

    /**
     * Tasks dealt in index order over the workers, one node after another: the first worker of every
     * node, then the second, and so on; the way Storm's even scheduler deals sorted executors over slots.
     * Tasks of one component, numbered together, spread over all nodes, and a worker holds tasks
     * {@code workerCount} apart in the numbering.
     */
    public static Placement dealt(NodeSlots slots, int tasks) {
        int[] order = new int[slots.workerCount()];
        int next = 0;
        for (int k = 0; next < order.length; k++) {
            for (int n = 0; n < slots.nodeCount(); n++) {
                if (k < slots.nodes().get(n).workers()) {
                    order[next++] = slots.firstWorkerOf(n) + k;
                }
            }
        }
        int[] workerOf = new int[tasks];
        for (int t = 0; t < tasks; t++) {
            workerOf[t] = order[t % order.length];
        }
        return new Placement(slots, workerOf);
    }

    public NodeSlots slots() {
        return slots;
    }

    public int taskCount() {
        return workerOf.length;
    }

    public int workerOf(int task) {
        return workerOf[task];
    }

    public int nodeOf(int task) {
        return slots.nodeOfWorker(workerOf[task]);
    }

    public int[] nodeOfTasks() {
        int[] nodes = new int[workerOf.length];
        for (int t = 0; t < nodes.length; t++) {
            nodes[t] = nodeOf(t);
        }
        return nodes;
    }

    public int[] workerOfTasks() {
        return workerOf.clone();
    }

    /** Share of the graph's traffic between tasks on different nodes (0 when there is no traffic). */
    public double interNodeTrafficFraction(TaskGraph graph) {
        return graph.totalTraffic() == 0 ? 0 : graph.cutTraffic(nodeOfTasks()) / graph.totalTraffic();
    }

    /** Share of the graph's traffic between tasks in different workers. */
    public double interWorkerTrafficFraction(TaskGraph graph) {
        return graph.totalTraffic() == 0 ? 0 : graph.cutTraffic(workerOf) / graph.totalTraffic();
    }

    /** Load of each node divided by its share of the capacity: 1 everywhere is a perfect balance. */
    public double[] relativeNodeLoads(TaskGraph graph) {
        double[] load = new double[slots.nodeCount()];
        for (int t = 0; t < workerOf.length; t++) {
            load[nodeOf(t)] += graph.weight(t);
        }
        double total = graph.totalWeight();
        double capacity = slots.totalCapacity();
        for (int n = 0; n < load.length; n++) {
            double share = slots.nodes().get(n).capacity() / capacity;
            load[n] = total == 0 ? 0 : load[n] / total / share;
        }
        return load;
    }

    /** Highest relative node load: the max/mean node load when capacities are equal. */
    public double maxNodeImbalance(TaskGraph graph) {
        return Arrays.stream(relativeNodeLoads(graph)).max().orElse(0);
    }

    /** Number of nodes that received at least one task. */
    public int nodesUsed() {
        return (int) Arrays.stream(nodeOfTasks()).distinct().count();
    }
}
