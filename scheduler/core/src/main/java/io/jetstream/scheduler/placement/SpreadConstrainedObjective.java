package io.jetstream.scheduler.placement;

/**
 * A {@link RefinementObjective} held within a {@link ComponentSpread}: the inner objective's value plus
 * a penalty for every task a node holds beyond its share of that task's component. The counts of
 * tasks per component and node are kept up to date, so a candidate costs the inner objective's
 * evaluation and O(1) more.
 *
 * <p>Not thread-safe (as every objective: it holds the current placement).
 */
final class SpreadConstrainedObjective implements RefinementObjective {
    private final RefinementObjective inner;
    private final ComponentSpread spread;
    private final NodeSlots slots;
    private final double penaltyPerTask;
    /** [component * nodes + node]: the tasks of the component on the node in the current placement. */
    private final int[] count;
    private int[] workerOf = new int[0];
    private int excess;

    SpreadConstrainedObjective(RefinementObjective inner, ComponentSpread spread, double penaltyPerTask) {
        if (!(penaltyPerTask > 0)) {
            throw new IllegalArgumentException("penaltyPerTask must be > 0: " + penaltyPerTask);
        }
        this.inner = inner;
        this.spread = spread;
        this.slots = spread.slots();
        this.penaltyPerTask = penaltyPerTask;
        this.count = new int[spread.components() * slots.nodeCount()];
    }

    @Override
    public void reset(int[] placement) {
        if (placement.length != spread.taskCount()) {
            throw new IllegalArgumentException(placement.length + " workers for " + spread.taskCount() + " tasks");
        }
        inner.reset(placement);
        workerOf = placement.clone();
        java.util.Arrays.fill(count, 0);
        for (int t = 0; t < workerOf.length; t++) {
            count[slot(t, workerOf[t])]++;
        }
        excess = 0;
        for (int c = 0; c < spread.components(); c++) {
            for (int n = 0; n < slots.nodeCount(); n++) {
                excess += Math.max(0, count[c * slots.nodeCount() + n] - spread.maxOnNode(c, n));
            }
        }
    }

    private int slot(int task, int worker) {
        return spread.componentOf(task) * slots.nodeCount() + slots.nodeOfWorker(worker);
    }

    /** Change of the excess when one task of the component at {@code from} goes to {@code to} (count slots). */
    private int excessDelta(int from, int to) {
        if (from == to) {
            return 0;
        }
        int before = over(from, count[from]) + over(to, count[to]);
        int after = over(from, count[from] - 1) + over(to, count[to] + 1);
        return after - before;
    }

    private int over(int index, int tasks) {
        int nodes = slots.nodeCount();
        return Math.max(0, tasks - spread.maxOnNode(index / nodes, index % nodes));
    }

    @Override
    public double value() {
        return inner.value() + penaltyPerTask * excess;
    }

    @Override
    public double valueIfSwapped(int a, int b) {
        int fromA = slot(a, workerOf[a]);
        int toA = slot(a, workerOf[b]);
        int fromB = slot(b, workerOf[b]);
        int toB = slot(b, workerOf[a]);
        int delta;
        if (fromA == toB && toA == fromB) {
            delta = 0; // same component (or same node): the counts do not change
        } else {
            delta = excessDelta(fromA, toA);
            count[fromA]--;
            count[toA]++;
            delta += excessDelta(fromB, toB);
            count[fromA]++;
            count[toA]--;
        }
        return inner.valueIfSwapped(a, b) + penaltyPerTask * (excess + delta);
    }

    @Override
    public void swap(int a, int b) {
        int fromA = slot(a, workerOf[a]);
        int toA = slot(a, workerOf[b]);
        int fromB = slot(b, workerOf[b]);
        int toB = slot(b, workerOf[a]);
        excess += excessDelta(fromA, toA);
        count[fromA]--;
        count[toA]++;
        excess += excessDelta(fromB, toB);
        count[fromB]--;
        count[toB]++;
        inner.swap(a, b);
        int w = workerOf[a];
        workerOf[a] = workerOf[b];
        workerOf[b] = w;
    }

    @Override
    public double valueIfMoved(int task, int worker) {
        int delta = excessDelta(slot(task, workerOf[task]), slot(task, worker));
        return inner.valueIfMoved(task, worker) + penaltyPerTask * (excess + delta);
    }

    @Override
    public void move(int task, int worker) {
        int from = slot(task, workerOf[task]);
        int to = slot(task, worker);
        excess += excessDelta(from, to);
        count[from]--;
        count[to]++;
        inner.move(task, worker);
        workerOf[task] = worker;
    }
}
