package io.jetstream.scheduler.placement;

/**
 * TurboStream's coarse-grained placement (§V): {@link TaskConsolidation} then {@link TaskAssignment},
 * then (an addition) a {@link KWayRefinement} of the result over all workers ({@link #plan}, for
 * rates that are measured or trusted); and the placement from structure when the rates are unknown
 * ({@link #planFromStructure}). The one entry point the engines' adapters call.
 *
 * <p>Not thread-safe (the assignment keeps scratch arrays); Nimbus schedules from one thread.
 */
public final class PlacementPlanner {
    /** What a placement from structure assumes of the rates its task graph gives. */
    public enum StructuralRates {
        /**
         * Unknown: the structure says which components talk, not how much their tasks receive. Every
         * component stays spread as the even scheduler spreads it ({@link ComponentSpread}: whichever
         * component turns out to carry the load, no node is hotter than under the even scheduler), and
         * the traffic is cut only by changes that keep the hottest node expected no hotter than the even
         * deal's over the {@link RateScenarios}.
         */
        UNKNOWN,
        /**
         * Uniform: every task of every component carries the structure's rate (selectivity 1), TurboStream's
         * offline model, and the placement consolidates by it. Less traffic when the rates are that
         * uniform; hot nodes when they are not.
         */
        UNIFORM
    }

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
    private final StructuralRates structuralRates;
    private final double rateSpread;

    /**
     * @param taskNumThreshold consolidation stops below this many parents (Algorithm 1)
     * @param maxParentShare heaviest parent as a share of the smallest node's load share
     * @param balanceFactor allowed relative deviation of a node's load from its share (Algorithm 2)
     * @param maxStarts most BFS starts per split
     * @param refine whether each split is refined by single-vertex moves (see {@link TaskAssignment#refine})
     * @param refinement the final search over moves and exchanges between any two workers
     * @param structuralRates what {@link #planFromStructure} assumes of the structure's rates
     * @param rateSpread how widely unknown rates are taken to vary ({@link RateScenarios}, σ of a
     *     selectivity's logarithm)
     */
    public PlacementPlanner(int taskNumThreshold, double maxParentShare, double balanceFactor, int maxStarts,
                            TaskAssignment.WithinNode withinNode, boolean refine, KWayRefinement refinement,
                            StructuralRates structuralRates, double rateSpread) {
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
        this.structuralRates = structuralRates;
        if (!(rateSpread >= 0) || Double.isInfinite(rateSpread)) {
            throw new IllegalArgumentException("rateSpread must be finite and >= 0: " + rateSpread);
        }
        this.rateSpread = rateSpread;
    }

    /**
     * A placement from the topology's structure: {@link #plan} when its rates are trusted
     * ({@link StructuralRates#UNIFORM}). Otherwise the components dealt over the workers as the even
     * scheduler deals them, then refined by moves and exchanges that lower the traffic without leaving
     * the {@link ComponentSpread}, without taking a node over the balance bound under the structure's
     * rates, and without making the hottest node expected hotter than in the deal under the rate
     * scenarios ({@link LoadRisk}).
     *
     * @param tasks the structural task graph (its weights: the tasks' loads under the structure's model)
     * @param componentOf the component of every task (see {@link ComponentSpread#of})
     * @param scenarios the rate scenarios of those components ({@link #rateScenarios})
     */
    public Placement planFromStructure(TaskGraph tasks, NodeSlots slots, int[] componentOf, RateScenarios scenarios) {
        return planFromStructure(tasks, slots, componentOf, scenarios, 1);
    }

    /** {@link #planFromStructure(TaskGraph, NodeSlots, int[], RateScenarios)} within a share of the time budget. */
    public Placement planFromStructure(TaskGraph tasks, NodeSlots slots, int[] componentOf, RateScenarios scenarios,
                                       double budgetShare) {
        if (structuralRates == StructuralRates.UNIFORM) {
            return plan(tasks, slots, budgetShare);
        }
        ComponentSpread spread = ComponentSpread.of(slots, componentOf);
        Placement deal = spread.dealt();
        LoadRisk risk = new LoadRisk(scenarios, slots);
        double[] taskLoad = new double[tasks.size()];
        for (int t = 0; t < taskLoad.length; t++) {
            taskLoad[t] = tasks.weight(t);
        }
        double reference = risk.risk(risk.componentNodeLoads(componentOf, taskLoad, deal.workerOfTasks()));
        RefinementObjective bounded = new RiskBoundedObjective(new CutObjective(tasks, slots, workerWeight, loadBound()),
                risk, componentOf, taskLoad, reference, tasks.totalTraffic());
        return refine(deal, objectiveFromStructure(bounded, tasks, spread), tasks, budgetShare);
    }

    /**
     * The rate scenarios a placement from structure is tested against ({@link RateScenarios#COUNT} of
     * them, this planner's spread, a fixed seed); with trusted rates, the structure's own model alone.
     *
     * @param components the components in the order the placement numbers them
     */
    public RateScenarios rateScenarios(TopologyStructure structure, java.util.List<String> components,
                                       java.util.Map<String, int[]> tasksOf) {
        if (structuralRates == StructuralRates.UNIFORM) {
            return RateScenarios.structural(components.size());
        }
        return RateScenarios.draw(structure, components, tasksOf, rateSpread, RateScenarios.COUNT, SCENARIO_SEED);
    }

    /** Seed of the rate scenarios: the same topology and cluster always give the same placement. */
    private static final long SCENARIO_SEED = 0x5CE7A210L;

    /**
     * The objective a placement from structure is refined for: {@code objective} itself when the
     * structure's rates are trusted, held within the {@link ComponentSpread} when they are unknown.
     */
    public RefinementObjective objectiveFromStructure(RefinementObjective objective, TaskGraph tasks,
                                                      ComponentSpread spread) {
        if (structuralRates == StructuralRates.UNIFORM) {
            return objective;
        }
        // Above anything the objective can reach within the spread: every tuple crossing, and the balance penalty.
        double penalty = 2 * RefinementObjective.OVER_BOUND_PENALTY * Math.max(1, tasks.totalTraffic()) * tasks.size();
        return spread.constrain(objective, penalty);
    }

    /** What {@link #planFromStructure} assumes of the structure's rates. */
    public StructuralRates structuralRates() {
        return structuralRates;
    }

    public Placement plan(TaskGraph tasks, NodeSlots slots) {
        return plan(tasks, slots, 1);
    }

    /** {@link #plan(TaskGraph, NodeSlots)} with its final pass within a share of the time budget. */
    public Placement plan(TaskGraph tasks, NodeSlots slots, double budgetShare) {
        double smallestShare = Double.POSITIVE_INFINITY;
        for (NodeSlots.Node node : slots.nodes()) {
            smallestShare = Math.min(smallestShare, node.capacity() / slots.totalCapacity());
        }
        double maxParentWeight = tasks.totalWeight() == 0
                ? Double.POSITIVE_INFINITY
                : maxParentShare * smallestShare * tasks.totalWeight();
        ConsolidationHierarchy hierarchy = TaskConsolidation.consolidate(tasks, taskNumThreshold, maxParentWeight);
        Placement placement = assignment.assign(hierarchy, slots);
        return refine(placement, new CutObjective(tasks, slots, workerWeight, loadBound()), tasks, budgetShare);
    }

    /**
     * Improves a placement for another objective (for example one that knows how an engine's
     * groupings deliver tuples), by the same moves and exchanges as the final pass of {@link #plan}.
     */
    public Placement refine(Placement placement, RefinementObjective objective, TaskGraph neighbours) {
        return refine(placement, objective, neighbours, 1);
    }

    /** {@link #refine(Placement, RefinementObjective, TaskGraph)} within a share of the time budget. */
    public Placement refine(Placement placement, RefinementObjective objective, TaskGraph neighbours, double budgetShare) {
        int[] workerOf = placement.workerOfTasks();
        refinement.refine(objective, workerOf, placement.slots().workerCount(), neighbours,
                0x5EED_0000L + workerOf.length, budgetShare);
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
