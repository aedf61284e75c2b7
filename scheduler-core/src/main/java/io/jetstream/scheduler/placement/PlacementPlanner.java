package io.jetstream.scheduler.placement;

/**
 * TurboStream's coarse-grained placement (§V): {@link TaskConsolidation} then {@link TaskAssignment},
 * then (an addition) a {@link KWayRefinement} of the result over all workers. The one entry point
 * the Storm adapter and the evaluation call.
 *
 * <p>Not thread-safe (the assignment keeps scratch arrays); Nimbus schedules from one thread.
 */
public final class PlacementPlanner {
    /**
     * Cost of a tuple between two workers of one node relative to one between nodes, when the node's
     * workers are partitioned: Storm's path between workers of a host is TCP loopback (serialisation
     * and a copy through the kernel, no network).
     */
    public static final double INTRA_NODE_WORKER_WEIGHT = 0.25;

    private final int taskNumThreshold;
    private final double maxParentShare;
    private final double balanceFactor;
    private final TaskAssignment assignment;
    private final KWayRefinement refinement;
    private final double workerWeight;

    /**
     * @param taskNumThreshold consolidation stops below this many parents (Algorithm 1)
     * @param maxParentShare heaviest parent as a share of the smallest node's load share
     * @param balanceFactor allowed relative deviation of a node's load from its share (Algorithm 2)
     * @param maxStarts most BFS starts per split
     * @param refine whether each split is refined by single-vertex moves (see {@link TaskAssignment#refine})
     * @param refinement the final search over moves and exchanges between any two workers
     */
    public PlacementPlanner(int taskNumThreshold, double maxParentShare, double balanceFactor, int maxStarts,
                            TaskAssignment.WithinNode withinNode, boolean refine, KWayRefinement refinement) {
        if (taskNumThreshold < 1) {
            throw new IllegalArgumentException("taskNumThreshold must be >= 1: " + taskNumThreshold);
        }
        if (!(maxParentShare > 0)) {
            throw new IllegalArgumentException("maxParentShare must be > 0: " + maxParentShare);
        }
        this.taskNumThreshold = taskNumThreshold;
        this.maxParentShare = maxParentShare;
        this.balanceFactor = balanceFactor;
        this.assignment = new TaskAssignment(balanceFactor, maxStarts, withinNode, refine);
        this.refinement = refinement;
        // Round-robin inside a node assumes a cheap intra-node channel: only nodes matter.
        this.workerWeight = withinNode == TaskAssignment.WithinNode.PARTITION ? INTRA_NODE_WORKER_WEIGHT : 0;
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
        Placement placement = assignment.assign(hierarchy, slots);
        return refine(placement, new CutObjective(tasks, slots, workerWeight, loadBound()), tasks);
    }

    /**
     * Improves a placement for another objective (for example one that knows how an engine's
     * groupings deliver tuples), by the same moves and exchanges as the final pass of {@link #plan}.
     */
    public Placement refine(Placement placement, RefinementObjective objective, TaskGraph neighbours) {
        int[] workerOf = placement.workerOfTasks();
        refinement.refine(objective, workerOf, placement.slots().workerCount(), neighbours,
                0x5EED_0000L + workerOf.length);
        return new Placement(placement.slots(), workerOf);
    }

    /** Highest node load relative to its share that the planner accepts: 1 + balance factor. */
    public double loadBound() {
        return 1 + balanceFactor;
    }

    /** Cost of an intra-node inter-worker tuple relative to an inter-node one, as this planner weighs it. */
    public double workerWeight() {
        return workerWeight;
    }
}
