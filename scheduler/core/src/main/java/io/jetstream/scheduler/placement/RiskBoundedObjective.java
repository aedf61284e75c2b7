package io.jetstream.scheduler.placement;

/**
 * A {@link RefinementObjective} whose placements may not be expected hotter than a reference under
 * unknown rates: the inner value plus {@link LoadRisk#cost} of the placement's risk. The tasks' loads
 * under the structure's model are fixed (a task graph's weights), so a candidate costs the inner
 * objective's evaluation and O(scenarios × nodes).
 *
 * <p>Not thread-safe (as every objective: it holds the current placement).
 */
final class RiskBoundedObjective implements RefinementObjective {
    private final RefinementObjective inner;
    private final LoadRisk risk;
    private final LoadRisk.Tracker tracker;
    private final int[] componentOf;
    private final double[] taskLoad;
    private final double reference;
    private final double trafficScale;
    private final NodeSlots slots;
    private int[] workerOf = new int[0];

    /**
     * @param reference the highest risk allowed without penalty
     * @param trafficScale the objective's traffic scale (the task graph's total traffic)
     */
    RiskBoundedObjective(RefinementObjective inner, LoadRisk risk, int[] componentOf, double[] taskLoad,
                         double reference, double trafficScale) {
        this.inner = inner;
        this.risk = risk;
        this.tracker = risk.new Tracker();
        this.componentOf = componentOf.clone();
        this.taskLoad = taskLoad.clone();
        this.reference = reference;
        this.trafficScale = trafficScale;
        this.slots = risk.slots();
    }

    @Override
    public void reset(int[] placement) {
        inner.reset(placement);
        workerOf = placement.clone();
        tracker.reset(risk.componentNodeLoads(componentOf, taskLoad, workerOf));
    }

    private double priced(double innerValue, double r) {
        return innerValue + LoadRisk.cost(r, reference, trafficScale);
    }

    @Override
    public double value() {
        return priced(inner.value(), tracker.risk());
    }

    @Override
    public double valueIfSwapped(int a, int b) {
        int na = slots.nodeOfWorker(workerOf[a]);
        int nb = slots.nodeOfWorker(workerOf[b]);
        double r = tracker.riskIfShifted(componentOf[a], taskLoad[a], componentOf[b], taskLoad[b], na, nb);
        return priced(inner.valueIfSwapped(a, b), r);
    }

    @Override
    public void swap(int a, int b) {
        int na = slots.nodeOfWorker(workerOf[a]);
        int nb = slots.nodeOfWorker(workerOf[b]);
        tracker.shift(componentOf[a], taskLoad[a], componentOf[b], taskLoad[b], na, nb);
        inner.swap(a, b);
        int w = workerOf[a];
        workerOf[a] = workerOf[b];
        workerOf[b] = w;
    }

    @Override
    public double valueIfMoved(int task, int worker) {
        double r = tracker.riskIfShifted(componentOf[task], taskLoad[task], 0, 0,
                slots.nodeOfWorker(workerOf[task]), slots.nodeOfWorker(worker));
        return priced(inner.valueIfMoved(task, worker), r);
    }

    @Override
    public void move(int task, int worker) {
        tracker.shift(componentOf[task], taskLoad[task], 0, 0, slots.nodeOfWorker(workerOf[task]),
                slots.nodeOfWorker(worker));
        inner.move(task, worker);
        workerOf[task] = worker;
    }
}
