package io.jetstream.scheduler.placement;

/**
 * The traffic a placement cuts in a {@link TaskGraph}: traffic between nodes, plus
 * {@code workerWeight} times the traffic between workers (inside a node as well), under a bound on
 * every node's load relative to its share of capacity. A swap is evaluated from the two tasks'
 * edges and the two nodes' loads only: O(degree).
 *
 * <p>Not thread-safe.
 */
public final class CutObjective implements RefinementObjective {
    private final TaskGraph graph;
    private final NodeSlots slots;
    private final double workerWeight;
    /** Absolute load a node may carry: its share of the total weight times the bound. */
    private final double[] nodeLimit;
    private final double[] nodeLoad;
    private final double penalty;
    private int[] workerOf = new int[0];
    private double nodeCut;
    private double workerCut;
    private double overLoad;
    // Pending change of the cuts, set by cutDeltas/addCutDeltas.
    private double nodeCutDelta;
    private double workerCutDelta;

    /**
     * @param workerWeight cost of a tuple between two workers of one node relative to one between nodes
     *     (0: only nodes matter, as with a cheap intra-node channel)
     * @param loadBound highest allowed node load relative to its share of capacity (1 + balance factor)
     */
    public CutObjective(TaskGraph graph, NodeSlots slots, double workerWeight, double loadBound) {
        if (!(workerWeight >= 0) || !(loadBound >= 1)) {
            throw new IllegalArgumentException("workerWeight must be >= 0 and loadBound >= 1: " + workerWeight
                    + ", " + loadBound);
        }
        this.graph = graph;
        this.slots = slots;
        this.workerWeight = workerWeight;
        this.nodeLimit = new double[slots.nodeCount()];
        this.nodeLoad = new double[slots.nodeCount()];
        double total = graph.totalWeight();
        for (int n = 0; n < nodeLimit.length; n++) {
            nodeLimit[n] = loadBound * total * slots.nodes().get(n).capacity() / slots.totalCapacity();
        }
        this.penalty = OVER_BOUND_PENALTY * Math.max(1, graph.totalTraffic()) / Math.max(Double.MIN_NORMAL, total);
    }

    @Override
    public void reset(int[] workerOf) {
        if (workerOf.length != graph.size()) {
            throw new IllegalArgumentException(workerOf.length + " workers for " + graph.size() + " tasks");
        }
        this.workerOf = workerOf.clone();
        java.util.Arrays.fill(nodeLoad, 0);
        for (int t = 0; t < workerOf.length; t++) {
            nodeLoad[node(t)] += graph.weight(t);
        }
        nodeCut = graph.cutTraffic(nodesOf());
        workerCut = graph.cutTraffic(this.workerOf);
        overLoad = 0;
        for (int n = 0; n < nodeLoad.length; n++) {
            overLoad += excess(n, nodeLoad[n]);
        }
    }

    private int[] nodesOf() {
        int[] nodes = new int[workerOf.length];
        for (int t = 0; t < nodes.length; t++) {
            nodes[t] = node(t);
        }
        return nodes;
    }

    private int node(int task) {
        return slots.nodeOfWorker(workerOf[task]);
    }

    private double excess(int node, double load) {
        return Math.max(0, load - nodeLimit[node]);
    }

    @Override
    public double value() {
        return nodeCut + workerWeight * workerCut + penalty * overLoad;
    }

    @Override
    public double valueIfSwapped(int a, int b) {
        int wa = workerOf[a];
        int wb = workerOf[b];
        if (wa == wb) {
            return value();
        }
        cutDeltas(a, b, wa, wb);
        addCutDeltas(b, a, wb, wa);
        double shift = graph.weight(b) - graph.weight(a);
        return valueWith(slots.nodeOfWorker(wa), shift, slots.nodeOfWorker(wb));
    }

    @Override
    public void swap(int a, int b) {
        int wa = workerOf[a];
        int wb = workerOf[b];
        if (wa == wb) {
            return;
        }
        cutDeltas(a, b, wa, wb);
        addCutDeltas(b, a, wb, wa);
        apply(slots.nodeOfWorker(wa), graph.weight(b) - graph.weight(a), slots.nodeOfWorker(wb));
        workerOf[a] = wb;
        workerOf[b] = wa;
    }

    @Override
    public double valueIfMoved(int task, int worker) {
        int from = workerOf[task];
        if (from == worker) {
            return value();
        }
        cutDeltas(task, -1, from, worker);
        return valueWith(slots.nodeOfWorker(from), -graph.weight(task), slots.nodeOfWorker(worker));
    }

    @Override
    public void move(int task, int worker) {
        int from = workerOf[task];
        if (from == worker) {
            return;
        }
        cutDeltas(task, -1, from, worker);
        apply(slots.nodeOfWorker(from), -graph.weight(task), slots.nodeOfWorker(worker));
        workerOf[task] = worker;
    }

    /** Value after the pending cut deltas, with {@code shift} load added to node {@code a} and taken from {@code b}. */
    private double valueWith(int a, double shift, int b) {
        double over = overLoad;
        if (a != b) {
            over += excess(a, nodeLoad[a] + shift) - excess(a, nodeLoad[a])
                    + excess(b, nodeLoad[b] - shift) - excess(b, nodeLoad[b]);
        }
        return nodeCut + nodeCutDelta + workerWeight * (workerCut + workerCutDelta) + penalty * Math.max(0, over);
    }

    private void apply(int a, double shift, int b) {
        nodeCut += nodeCutDelta;
        workerCut += workerCutDelta;
        if (a != b) {
            overLoad -= excess(a, nodeLoad[a]) + excess(b, nodeLoad[b]);
            nodeLoad[a] += shift;
            nodeLoad[b] -= shift;
            overLoad = Math.max(0, overLoad + excess(a, nodeLoad[a]) + excess(b, nodeLoad[b]));
        }
    }

    /** Sets the pending cut deltas to those of {@code task} moving (see {@link #addCutDeltas}). */
    private void cutDeltas(int task, int partner, int fromWorker, int toWorker) {
        nodeCutDelta = 0;
        workerCutDelta = 0;
        addCutDeltas(task, partner, fromWorker, toWorker);
    }

    /**
     * Adds to the pending deltas the change of both cuts when {@code task} moves between workers: only
     * its own edges change sides. The edge to {@code partner} (moving the other way in an exchange, or
     * -1) is skipped: it stays cut either way.
     */
    private void addCutDeltas(int task, int partner, int fromWorker, int toWorker) {
        int fromNode = slots.nodeOfWorker(fromWorker);
        int toNode = slots.nodeOfWorker(toWorker);
        for (int e = graph.firstEdge(task); e < graph.endEdge(task); e++) {
            int u = graph.edgeTarget(e);
            if (u == partner) {
                continue;
            }
            double t = graph.edgeTraffic(e);
            int wu = workerOf[u];
            int nu = slots.nodeOfWorker(wu);
            nodeCutDelta += t * ((nu != toNode ? 1 : 0) - (nu != fromNode ? 1 : 0));
            workerCutDelta += t * ((wu != toWorker ? 1 : 0) - (wu != fromWorker ? 1 : 0));
        }
    }
}
