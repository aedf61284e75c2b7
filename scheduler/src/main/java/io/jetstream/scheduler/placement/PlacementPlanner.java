package io.jetstream.scheduler.placement;

/**
 * TurboStream's coarse-grained placement (§V): {@link TaskConsolidation} then {@link TaskAssignment}.
 * The one entry point the Storm adapter and the evaluation call.
 *
 * <p>Not thread-safe (the assignment keeps scratch arrays); Nimbus schedules from one thread.
 */
public final class PlacementPlanner {
    private final int taskNumThreshold;
    private final double maxParentShare;
    private final TaskAssignment assignment;

    /**
     * @param taskNumThreshold consolidation stops below this many parents (Algorithm 1)
     * @param maxParentShare heaviest parent as a share of the smallest node's load share
     * @param balanceFactor allowed relative deviation of a split from its target (Algorithm 2)
     * @param maxStarts most BFS starts per split
     * @param refine whether each split is refined by single-vertex moves (see {@link TaskAssignment#refine})
     */
    public PlacementPlanner(int taskNumThreshold, double maxParentShare, double balanceFactor, int maxStarts,
                            TaskAssignment.WithinNode withinNode, boolean refine) {
        if (taskNumThreshold < 1) {
            throw new IllegalArgumentException("taskNumThreshold must be >= 1: " + taskNumThreshold);
        }
        if (!(maxParentShare > 0)) {
            throw new IllegalArgumentException("maxParentShare must be > 0: " + maxParentShare);
        }
        this.taskNumThreshold = taskNumThreshold;
        this.maxParentShare = maxParentShare;
        this.assignment = new TaskAssignment(balanceFactor, maxStarts, withinNode, refine);
    }

    public Placement plan(TaskGraph tasks, NodeSlots slots) {
        double smallestShare = Double.POSITIVE_INFINITY;
        for (NodeSlots.Node node : slots.nodes()) {
            smallestShare = Math.min(smallestShare, node.capacity() / slots.totalCapacity());
        }
        double maxParentWeight = tasks.totalWeight() == 0
                ? Double.POSITIVE_INFINITY
                : maxParentShare * smallestShare * tasks.totalWeight();
        ConsolidationHierarchy hierarchy = TaskConsolidation.consolidate(tasks, taskNumThreshold, maxParentWeight);
        return assignment.assign(hierarchy, slots);
    }
}
