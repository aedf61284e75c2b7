package io.jetstream.scheduler.placement;

/**
 * How hot a placement's hottest node is expected to be when the rates are unknown: the mean, over
 * {@link RateScenarios}, of the highest node load relative to its share of capacity (1 = perfectly
 * balanced). The placement enters as the load each component's tasks put on each node under the
 * structure's own model; a scenario scales every component's part by its factor.
 *
 * <p>{@link #risk} evaluates from scratch in O(scenarios × nodes × components); {@link Tracker} keeps
 * the per-scenario node loads of a placement and prices a task changing node in O(scenarios × nodes).
 *
 * <p>Immutable; thread-safe ({@link Tracker} is not).
 */
public final class LoadRisk {
    /**
     * Premium on the risk, per unit of it, as a share of the traffic scale: a change that cools the
     * hottest node without costing traffic is worth taking (it leaves room for later changes that save
     * traffic), and cooling is worth a little traffic, no more.
     */
    static final double RISK_PREMIUM = 1e-3;

    /**
     * What an objective adds for a placement's risk: a penalty on the risk above {@code reference} that no
     * traffic saving pays for, plus the small premium on the risk itself.
     *
     * @param trafficScale the objective's traffic scale (its total traffic)
     */
    public static double cost(double risk, double reference, double trafficScale) {
        double scale = Math.max(1, trafficScale);
        return RefinementObjective.OVER_BOUND_PENALTY * scale * Math.max(0, risk - reference) + RISK_PREMIUM * scale * risk;
    }
    private final RateScenarios scenarios;
    private final NodeSlots slots;
    private final double[] share;

    public LoadRisk(RateScenarios scenarios, NodeSlots slots) {
        this.scenarios = scenarios;
        this.slots = slots;
        this.share = new double[slots.nodeCount()];
        for (int n = 0; n < share.length; n++) {
            share[n] = slots.nodes().get(n).capacity() / slots.totalCapacity();
        }
    }

    public NodeSlots slots() {
        return slots;
    }

    public int components() {
        return scenarios.components();
    }

    /**
     * The load of every component's tasks on every node, {@code [component * nodes + node]}, as
     * {@link #risk} takes it.
     *
     * @param componentOf the component of every task
     * @param taskLoad the load of every task under the structure's model
     * @param workerOf the worker of every task
     */
    public double[] componentNodeLoads(int[] componentOf, double[] taskLoad, int[] workerOf) {
        int nodes = slots.nodeCount();
        double[] loads = new double[scenarios.components() * nodes];
        for (int t = 0; t < workerOf.length; t++) {
            loads[componentOf[t] * nodes + slots.nodeOfWorker(workerOf[t])] += taskLoad[t];
        }
        return loads;
    }

    /**
     * @param componentNodeLoad {@code [component * nodes + node]}: the load of the component's tasks on
     *     the node under the structure's model
     */
    public double risk(double[] componentNodeLoad) {
        int nodes = slots.nodeCount();
        double sum = 0;
        for (int k = 0; k < scenarios.count(); k++) {
            double total = 0;
            double hottest = 0;
            for (int n = 0; n < nodes; n++) {
                double load = 0;
                for (int c = 0; c < scenarios.components(); c++) {
                    load += scenarios.factor(k, c) * componentNodeLoad[c * nodes + n];
                }
                total += load;
                hottest = Math.max(hottest, load / share[n]);
            }
            sum += total == 0 ? 1 : hottest / total;
        }
        return sum / scenarios.count();
    }

    /** The per-scenario node loads of one placement, kept up to date as its tasks change node. */
    public final class Tracker {
        /** [scenario][node] */
        private final double[][] nodeLoad;
        private final double[] total;
        private double risk;

        public Tracker() {
            nodeLoad = new double[scenarios.count()][slots.nodeCount()];
            total = new double[scenarios.count()];
        }

        /** Starts over from component-node loads as {@link LoadRisk#risk} takes them. */
        public void reset(double[] componentNodeLoad) {
            int nodes = slots.nodeCount();
            for (int k = 0; k < scenarios.count(); k++) {
                java.util.Arrays.fill(nodeLoad[k], 0);
                total[k] = 0;
                for (int c = 0; c < scenarios.components(); c++) {
                    for (int n = 0; n < nodes; n++) {
                        double l = scenarios.factor(k, c) * componentNodeLoad[c * nodes + n];
                        nodeLoad[k][n] += l;
                        total[k] += l;
                    }
                }
            }
            risk = current();
        }

        public double risk() {
            return risk;
        }

        /**
         * The risk with {@code load} (structural) of {@code component} moved from node {@code from} to
         * node {@code to}, and {@code otherLoad} of {@code otherComponent} from {@code to} back to
         * {@code from} (an exchange; 0 for a move). Changes nothing.
         */
        public double riskIfShifted(int component, double load, int otherComponent, double otherLoad, int from, int to) {
            if (from == to) {
                return risk;
            }
            double sum = 0;
            for (int k = 0; k < nodeLoad.length; k++) {
                double shift = scenarios.factor(k, component) * load - scenarios.factor(k, otherComponent) * otherLoad;
                double hottest = 0;
                double[] loads = nodeLoad[k];
                for (int n = 0; n < loads.length; n++) {
                    double l = loads[n];
                    if (n == from) {
                        l -= shift;
                    } else if (n == to) {
                        l += shift;
                    }
                    hottest = Math.max(hottest, l / share[n]);
                }
                sum += total[k] == 0 ? 1 : hottest / total[k];
            }
            return sum / nodeLoad.length;
        }

        /** Applies what {@link #riskIfShifted} priced. */
        public void shift(int component, double load, int otherComponent, double otherLoad, int from, int to) {
            if (from == to) {
                return;
            }
            for (int k = 0; k < nodeLoad.length; k++) {
                double shift = scenarios.factor(k, component) * load - scenarios.factor(k, otherComponent) * otherLoad;
                nodeLoad[k][from] -= shift;
                nodeLoad[k][to] += shift;
            }
            risk = current();
        }

        private double current() {
            double sum = 0;
            for (int k = 0; k < nodeLoad.length; k++) {
                double hottest = 0;
                for (int n = 0; n < nodeLoad[k].length; n++) {
                    hottest = Math.max(hottest, nodeLoad[k][n] / share[n]);
                }
                sum += total[k] == 0 ? 1 : hottest / total[k];
            }
            return sum / nodeLoad.length;
        }
    }
}
