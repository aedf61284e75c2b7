package io.jetstream.benchmarks.scheduler;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How much traffic <em>any</em> placement can keep inside nodes, for topologies whose tasks within a
 * component are interchangeable — shuffle and (evenly spread) fields groupings from structure: every
 * task of a component has the same load and sends the same amount to every task of a target
 * component. Then a placement matters only through how many tasks of each component each node holds,
 * x[k][c], and the traffic kept inside node k is F(x[k]) = Σ_{a<b} w_ab · x[k][a] · x[k][b] with w_ab
 * the traffic between one task of a and one of b (both directions).
 *
 * <p>Problem: maximise Σ_k F(x[k]) subject to Σ_k x[k][c] = p_c (every task placed) and every node's
 * load Σ_c ℓ_c x[k][c] ≤ cap. Solved exactly by dynamic programming over nodes when the state space
 * (the counts still to place) is small, and otherwise bounded from above by Lagrangian relaxation of
 * the "every task placed" constraints: for any multipliers λ,
 * <pre>  Σ_k F(x[k]) ≤ N · max_{x ∈ X} (F(x) − λ·x) + λ·p</pre>
 * where X is the set of count vectors one node can hold within the cap, enumerated in full. The
 * multipliers are improved by subgradient steps; every λ gives a valid bound, the smallest is kept.
 * A bound, not a placement: it may be loose (the relaxation lets nodes mix configurations fractionally).
 *
 * <p>Used by {@link SchedulerEvaluation} {@code --bounds} to say how far below the even scheduler's
 * traffic any placement as balanced as the target allows can go.
 */
final class PlacementBound {
    /**
     * The component structure of one case: tasks, load per task, traffic per task pair, and the most
     * tasks of each component one node may hold ({@link Integer#MAX_VALUE}: any number).
     */
    record Structure(int[] tasks, double[] taskLoad, double[][] pairTraffic, double totalTraffic, double totalLoad,
                     int[] maxPerNode) {
        Structure(int[] tasks, double[] taskLoad, double[][] pairTraffic, double totalTraffic, double totalLoad) {
            this(tasks, taskLoad, pairTraffic, totalTraffic, totalLoad, unlimited(tasks.length));
        }

        private static int[] unlimited(int components) {
            int[] most = new int[components];
            java.util.Arrays.fill(most, Integer.MAX_VALUE);
            return most;
        }

        int components() {
            return tasks.length;
        }

        /**
         * The same structure with every node holding at most ⌈p_c / nodes⌉ tasks of each component c:
         * the even scheduler's most. A placement with more on some node is hotter than the even
         * scheduler's hottest node whenever that component carries (nearly) all the load.
         */
        Structure spreadAsEven(int nodes) {
            int[] most = new int[tasks.length];
            for (int c = 0; c < most.length; c++) {
                most[c] = (tasks[c] + nodes - 1) / nodes;
            }
            return new Structure(tasks, taskLoad, pairTraffic, totalTraffic, totalLoad, most);
        }
    }

    /** An upper bound on the traffic kept inside nodes; exact when {@code exact}. */
    record Bound(double maxLocal, boolean exact, int configurations) {}

    private static final long DP_BUDGET = 400_000_000L;
    private static final int MAX_CONFIGURATIONS = 5_000_000;

    private PlacementBound() {}

    /**
     * The structure of a case, checked to be interchangeable (throws otherwise): traffic and loads
     * from {@link TrueTraffic} under the structure's uniform rates, with no placement.
     */
    static Structure of(TopologyFamilies.Generated generated, Map<String, int[]> tasksOf, int taskCount) {
        return of(generated, tasksOf, taskCount, RateModel.UNIFORM);
    }

    /** The same under {@code rates}; throws when they make the tasks of a component differ (a skewed key). */
    static Structure of(TopologyFamilies.Generated generated, Map<String, int[]> tasksOf, int taskCount, RateModel rates) {
        TrueTraffic truth = TrueTraffic.of(generated.topology(), tasksOf, taskCount, rates, null);
        List<String> names = new ArrayList<>(tasksOf.keySet());
        java.util.Collections.sort(names);
        int n = names.size();
        int[] componentOf = new int[taskCount + 1];
        int[] tasks = new int[n];
        double[] load = new double[n];
        for (int c = 0; c < n; c++) {
            int[] ids = tasksOf.get(names.get(c));
            tasks[c] = ids.length;
            load[c] = truth.load[ids[0]];
            for (int t : ids) {
                componentOf[t] = c;
                if (Math.abs(truth.load[t] - load[c]) > 1e-9 * Math.max(1, load[c])) {
                    throw new IllegalArgumentException(names.get(c) + "'s tasks carry different loads");
                }
            }
        }
        double[][] sum = new double[n][n];
        double[][] min = new double[n][n];
        double[][] max = new double[n][n];
        for (double[] row : min) {
            java.util.Arrays.fill(row, Double.POSITIVE_INFINITY);
        }
        for (int s = 1; s <= taskCount; s++) {
            for (int d = 1; d <= taskCount; d++) {
                int a = componentOf[s];
                int b = componentOf[d];
                double v = truth.traffic[s][d];
                sum[a][b] += v;
                min[a][b] = Math.min(min[a][b], v);
                max[a][b] = Math.max(max[a][b], v);
            }
        }
        double[][] pair = new double[n][n];
        for (int a = 0; a < n; a++) {
            for (int b = 0; b < n; b++) {
                if (sum[a][b] > 0 && max[a][b] - min[a][b] > 1e-9 * max[a][b]) {
                    throw new IllegalArgumentException(names.get(a) + " -> " + names.get(b) + " is not spread evenly");
                }
                if (a != b) {
                    pair[a][b] += sum[a][b] / ((double) tasks[a] * tasks[b]);
                    pair[b][a] += sum[a][b] / ((double) tasks[a] * tasks[b]);
                } else if (sum[a][a] > 0) {
                    throw new IllegalArgumentException(names.get(a) + " sends to itself");
                }
            }
        }
        double totalLoad = 0;
        for (int c = 0; c < n; c++) {
            totalLoad += tasks[c] * load[c];
        }
        return new Structure(tasks, load, pair, truth.total(), totalLoad);
    }

    /** The most traffic any placement on {@code nodes} nodes with every node's load ≤ {@code cap} keeps inside nodes. */
    static Bound maxLocal(Structure s, int nodes, double cap) {
        Configurations x;
        try {
            x = Configurations.enumerate(s, cap);
        } catch (TooManyConfigurations e) {
            return new Bound(lagrangian(s, new SearchedNode(s, cap), nodes), false, -1);
        }
        long states = 1;
        for (int p : s.tasks()) {
            states = Math.multiplyExact(states, p + 1L);
        }
        if (states <= 2_000_000 && states * x.size() * (long) nodes <= DP_BUDGET) {
            return new Bound(exact(s, x, nodes), true, x.size());
        }
        return new Bound(lagrangian(s, x, nodes), false, x.size());
    }

    /** The best node for given multipliers: max over X of (F(x) − λ·x), the maximiser into {@code argmax}. */
    interface NodeProblem {
        double maxReduced(double[] lambda, int[] argmax);
    }

    /** More node configurations than are worth enumerating. */
    static final class TooManyConfigurations extends RuntimeException {
        TooManyConfigurations() {
            super("more than " + MAX_CONFIGURATIONS + " node configurations", null, false, false);
        }
    }

    /** Exact: the best split of the counts still to place over the nodes still to fill (memoised). */
    static double exact(Structure s, Configurations x, int nodes) {
        int n = s.components();
        long[] radix = new long[n];
        long states = 1;
        for (int c = 0; c < n; c++) {
            radix[c] = states;
            states *= s.tasks()[c] + 1;
        }
        long full = 0;
        for (int c = 0; c < n; c++) {
            full += radix[c] * s.tasks()[c];
        }
        // value[k][r]: the most kept inside k nodes holding exactly the remaining counts r.
        double[] previous = new double[(int) states];
        java.util.Arrays.fill(previous, Double.NEGATIVE_INFINITY);
        previous[0] = 0;
        long[] code = new long[x.size()];
        for (int i = 0; i < x.size(); i++) {
            for (int c = 0; c < n; c++) {
                code[i] += radix[c] * x.count(i, c);
            }
        }
        int[] digits = new int[n];
        for (int k = 1; k <= nodes; k++) {
            double[] current = new double[(int) states];
            java.util.Arrays.fill(current, Double.NEGATIVE_INFINITY);
            for (long r = 0; r < states; r++) {
                if (k == nodes && r != full) {
                    continue;
                }
                long rest = r;
                for (int c = 0; c < n; c++) {
                    digits[c] = (int) (rest % (s.tasks()[c] + 1));
                    rest /= s.tasks()[c] + 1;
                }
                double best = Double.NEGATIVE_INFINITY;
                configurations:
                for (int i = 0; i < x.size(); i++) {
                    for (int c = 0; c < n; c++) {
                        if (x.count(i, c) > digits[c]) {
                            continue configurations;
                        }
                    }
                    double v = previous[(int) (r - code[i])];
                    if (v != Double.NEGATIVE_INFINITY) {
                        best = Math.max(best, v + x.kept(i));
                    }
                }
                current[(int) r] = best;
            }
            previous = current;
        }
        double v = previous[(int) full];
        if (v == Double.NEGATIVE_INFINITY) {
            throw new IllegalArgumentException("no placement within the cap");
        }
        return v;
    }

    /**
     * Lagrangian bound, minimised over λ by subgradient steps (Polyak's, aimed a little below the best
     * bound so far, the step halved after 30 steps without improvement).
     */
    static double lagrangian(Structure s, NodeProblem x, int nodes) {
        int n = s.components();
        double[] lambda = new double[n];
        double step = 1.0;
        int sinceImproved = 0;
        int[] argmax = new int[n];
        double bestBound = Double.POSITIVE_INFINITY;
        for (int iteration = 0; iteration < 3_000 && step > 1e-6; iteration++) {
            double inner = x.maxReduced(lambda, argmax);
            double bound = nodes * inner;
            for (int c = 0; c < n; c++) {
                bound += lambda[c] * s.tasks()[c];
            }
            if (bestBound == Double.POSITIVE_INFINITY || bound < bestBound - 1e-12 * Math.abs(bestBound)) {
                bestBound = bound;
                sinceImproved = 0;
            } else if (++sinceImproved >= 30) {
                step /= 2;
                sinceImproved = 0;
            }
            double[] g = new double[n];
            double norm = 0;
            for (int c = 0; c < n; c++) {
                g[c] = s.tasks()[c] - (double) nodes * argmax[c];
                norm += g[c] * g[c];
            }
            if (norm == 0) {
                break; // one configuration on every node places every task: the bound is attained
            }
            // Step towards 0.97 x the best bound so far (an estimate of the dual optimum from below).
            double target = 0.97 * bestBound;
            double t = step * (bound - target) / norm;
            for (int c = 0; c < n; c++) {
                lambda[c] -= t * g[c];
            }
        }
        return bestBound;
    }

    /** Every count vector one node can hold within the cap, with the traffic it keeps inside. */
    static final class Configurations implements NodeProblem {
        private final int components;
        private final byte[] counts;
        private final double[] kept;
        private final int size;

        private Configurations(int components, byte[] counts, double[] kept, int size) {
            this.components = components;
            this.counts = counts;
            this.kept = kept;
            this.size = size;
        }

        static Configurations enumerate(Structure s, double cap) {
            int n = s.components();
            Builder b = new Builder(s, cap);
            b.walk(0, new int[n], 0.0, 0.0);
            return new Configurations(n, java.util.Arrays.copyOf(b.counts, b.size * n), java.util.Arrays.copyOf(b.kept, b.size), b.size);
        }

        int size() {
            return size;
        }

        int count(int i, int c) {
            return counts[i * components + c];
        }

        double kept(int i) {
            return kept[i];
        }

        @Override
        public double maxReduced(double[] lambda, int[] argmax) {
            double best = Double.NEGATIVE_INFINITY;
            int bestIndex = 0;
            for (int i = 0, at = 0; i < size; i++, at += components) {
                double v = kept[i];
                for (int c = 0; c < components; c++) {
                    v -= lambda[c] * counts[at + c];
                }
                if (v > best) {
                    best = v;
                    bestIndex = i;
                }
            }
            for (int c = 0; c < components; c++) {
                argmax[c] = count(bestIndex, c);
            }
            return best;
        }

        private static final class Builder {
            private final Structure s;
            private final double cap;
            private byte[] counts = new byte[1 << 16];
            private double[] kept = new double[1 << 12];
            private int size;

            Builder(Structure s, double cap) {
                this.s = s;
                this.cap = cap;
            }

            void walk(int c, int[] x, double load, double inside) {
                int n = s.components();
                if (c == n) {
                    if (size == MAX_CONFIGURATIONS) {
                        throw new TooManyConfigurations();
                    }
                    if ((size + 1) * n > counts.length) {
                        counts = java.util.Arrays.copyOf(counts, counts.length * 2);
                    }
                    if (size == kept.length) {
                        kept = java.util.Arrays.copyOf(kept, kept.length * 2);
                    }
                    for (int i = 0; i < n; i++) {
                        counts[size * n + i] = (byte) x[i];
                    }
                    kept[size++] = inside;
                    return;
                }
                int most = Math.min(s.tasks()[c], s.maxPerNode()[c]);
                if (s.taskLoad()[c] > 0) {
                    most = (int) Math.min(most, Math.floor((cap - load) / s.taskLoad()[c] + 1e-9));
                }
                if (most > Byte.MAX_VALUE) {
                    throw new IllegalStateException("a node could hold " + most + " tasks of one component");
                }
                double withOthers = 0; // traffic between one more task of c and the tasks of earlier components here
                for (int a = 0; a < c; a++) {
                    withOthers += s.pairTraffic()[a][c] * x[a];
                }
                for (int k = 0; k <= most; k++) {
                    x[c] = k;
                    walk(c + 1, x, load + k * s.taskLoad()[c], inside + k * withOthers);
                }
                x[c] = 0;
            }
        }
    }

    /**
     * The node problem by depth-first search with pruning, for caps that admit too many configurations
     * to enumerate. At depth c the components from c on can add at most Σ_d max(0, m_d · (lin_d − λ_d +
     * Σ_{b>d} w_db m_b)), with m_d the most tasks of d that still fit and lin_d the traffic one task of d
     * has with the tasks already chosen: every w ≥ 0, so pairing each remaining task with the most tasks
     * of each later component overestimates.
     */
    static final class SearchedNode implements NodeProblem {
        private final Structure s;
        private final double cap;
        private final int n;
        private final double[][] lin;
        private final int[] x;
        private double[] lambda;
        private double best;
        private int[] bestX;

        SearchedNode(Structure s, double cap) {
            this.s = s;
            this.cap = cap;
            this.n = s.components();
            this.lin = new double[n + 1][n];
            this.x = new int[n];
        }

        @Override
        public double maxReduced(double[] lambda, int[] argmax) {
            this.lambda = lambda;
            this.best = 0; // the empty node
            this.bestX = argmax;
            java.util.Arrays.fill(argmax, 0);
            java.util.Arrays.fill(lin[0], 0);
            search(0, 0, 0);
            return best;
        }

        private int most(int d, double load) {
            double l = s.taskLoad()[d];
            int most = Math.min(s.tasks()[d], s.maxPerNode()[d]);
            return l > 0 ? (int) Math.min(most, Math.floor((cap - load) / l + 1e-9)) : most;
        }

        private void search(int c, double load, double value) {
            if (c == n) {
                if (value > best) {
                    best = value;
                    System.arraycopy(x, 0, bestX, 0, n);
                }
                return;
            }
            double optimistic = value;
            for (int d = c; d < n; d++) {
                int m = most(d, load);
                double coefficient = lin[c][d] - lambda[d];
                for (int b = d + 1; b < n; b++) {
                    coefficient += s.pairTraffic()[d][b] * most(b, load);
                }
                optimistic += Math.max(0, m * coefficient);
            }
            if (optimistic <= best) {
                return;
            }
            double gain = lin[c][c] - lambda[c];
            for (int k = most(c, load); k >= 0; k--) {
                x[c] = k;
                for (int d = c + 1; d < n; d++) {
                    lin[c + 1][d] = lin[c][d] + s.pairTraffic()[c][d] * k;
                }
                search(c + 1, load + k * s.taskLoad()[c], value + k * gain);
            }
            x[c] = 0;
        }
    }
}
