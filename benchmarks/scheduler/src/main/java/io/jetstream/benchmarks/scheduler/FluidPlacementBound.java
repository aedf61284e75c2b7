package io.jetstream.benchmarks.scheduler;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.StormTopology;

/**
 * How much traffic <em>any</em> placement can keep inside nodes under a topology's true rates
 * ({@link TrueTraffic} under a {@link RateModel}), where the tasks of a component differ: a fields
 * grouping's hot keys load a few tasks far above the others, and everything downstream of them
 * inherits the skew. {@link PlacementBound} needs interchangeable tasks; this bound does not.
 *
 * <h2>The relaxation</h2>
 * Let the placement problem be: put every task on one of N nodes, every node's load (the sum of its
 * tasks' loads) at most {@code cap}, and maximise the traffic between tasks on the same node. Two
 * relaxations, each of which can only raise the maximum, turn it into a small continuous problem:
 * <ol>
 *   <li><b>Pieces.</b> A bolt task with m input streams is cut into m pieces, piece j carrying the
 *       task's load and outgoing traffic in proportion to the share of its input that stream j brings,
 *       and all of that stream's incoming traffic. Pieces of a task may go to different nodes. A
 *       placement of tasks is the placement of pieces with all pieces of a task together, with the
 *       same node loads and the same traffic inside nodes (piece traffic sums to task traffic), so the
 *       best piece placement keeps at least as much inside as the best task placement.</li>
 *   <li><b>Fluid.</b> A piece may be split over nodes in any fractions. The best fractional placement
 *       keeps at least as much as the best whole one.</li>
 * </ol>
 * Group the pieces into classes: one per spout component, one per (bolt component, input stream) —
 * or one per bolt component whose tasks all receive the same shares of their input from each stream
 * (every stream a shuffle, say), which then need not be cut at all.
 * Under {@link TrueTraffic}'s model the traffic from task s to task d on a stream is
 * out(s) · multiplier · share(d) — a product — and a task's load, its output and the traffic it
 * receives on a stream are all proportional to what that stream brings it (load = input · cost,
 * output = input · selectivity). So between any piece p of class c and piece q of class d the
 * traffic is T_cd · ℓ_p ℓ_q / (L_c L_d), with ℓ the piece loads, L_c a class's total load and T_cd the
 * traffic between the classes ({@link #of} checks this for every piece pair and refuses a model where
 * it fails). Then a fractional placement matters only through V_kc, the load of class c on node k:
 * <pre>  maximise Σ_k Σ_{c&lt;d} M_cd V_kc V_kd,  M_cd = T_cd / (L_c L_d),
 *   subject to Σ_k V_kc = L_c, V ≥ 0, Σ_c V_kc ≤ cap for every node k.</pre>
 *
 * <h2>The bound</h2>
 * Lagrangian relaxation of Σ_k V_kc = L_c with multipliers λ: for every λ the optimum is at most
 * <pre>  N · max_{V ≥ 0, Σ V ≤ cap} (½ VᵀMV − λ·V) + λ·L,</pre>
 * since the nodes then decouple and each does no better than the best single node. The inner
 * maximum of an (indefinite) quadratic over the scaled simplex is found exactly by enumerating the
 * faces: at a global maximiser V* with support S, V*_S is a stationary point of the problem restricted to
 * that face, i.e. M_SS V_S = λ_S (Σ V &lt; cap) or M_SS V_S − μ·1 = λ_S with Σ V_S = cap. Where that
 * system is nonsingular its one solution is V*_S; where it is singular the stationary points form an
 * affine set on which the quadratic is constant, which leaves the bounded face through its boundary,
 * so the same value is attained on a smaller face and found there. The maximum over all faces'
 * feasible stationary points (and the empty node, 0) is therefore the inner maximum. λ is improved by
 * subgradient steps; every λ gives a valid bound and the smallest is kept. The traffic crossing nodes is
 * then at least total − that bound.
 *
 * <p>For cases small enough ({@link #EXACT_BUDGET} placements) {@link #exactMaxLocal} enumerates every
 * placement of whole tasks instead: the exact optimum.
 *
 * <p>What the bound ignores: that a task cannot be split (it matters where a node holds few tasks:
 * the fluid lets a node take exactly its cap), that a node cannot hold more of a class than the class
 * has, and which node holds which pieces of a task. So it is loose, never wrong: no placement within the
 * cap keeps more inside.
 */
final class FluidPlacementBound {
    /** Placements {@link #exactMaxLocal} enumerates at most (nodes^tasks). */
    static final long EXACT_BUDGET = 5_000_000L;
    private static final int ITERATIONS = 4_000;

    /**
     * The classes of a case: total load of each class, the traffic between every two classes (both
     * directions), the totals, and the tasks' true traffic for the exact method.
     */
    record Classes(List<String> names, double[] load, double[][] traffic, double totalTraffic, double totalLoad,
                   TrueTraffic truth) {
        int size() {
            return load.length;
        }
    }

    /** An upper bound on the traffic kept inside nodes and the least share crossing nodes it implies. */
    record Bound(double maxLocal, double minCrossFraction, boolean exact) {}

    private FluidPlacementBound() {}

    /**
     * The classes of {@code topology} under the true traffic {@code truth} (no placement: shuffle and
     * fields groupings). Throws {@link IllegalArgumentException} when a piece pair's traffic is not the
     * product the bound relies on.
     */
    static Classes of(StormTopology topology, Map<String, int[]> tasksOf, TrueTraffic truth) {
        List<String> components = new ArrayList<>(tasksOf.keySet());
        Collections.sort(components);
        int tasks = truth.tasks;
        // Inputs of every component, sorted; a spout has none and is one class.
        Map<String, List<String>> inputs = new HashMap<>();
        for (String c : components) {
            List<String> in = new ArrayList<>();
            if (topology.get_bolts().containsKey(c)) {
                for (GlobalStreamId id : topology.get_bolts().get(c).get_common().get_inputs().keySet()) {
                    if (!in.contains(id.get_componentId())) {
                        in.add(id.get_componentId());
                    }
                }
                Collections.sort(in);
            }
            inputs.put(c, in);
        }
        int[] componentOf = new int[tasks + 1];
        for (int c = 0; c < components.size(); c++) {
            for (int t : tasksOf.get(components.get(c))) {
                componentOf[t] = c;
            }
        }
        // A component whose tasks all take the same shares of their input from each stream is one class
        // (its tasks' traffic on every stream is then proportional to their loads); any other is cut into
        // one piece per input stream.
        Map<String, Boolean> whole = new HashMap<>();
        for (String c : components) {
            whole.put(c, inputs.get(c).size() <= 1 || sameInputShares(truth, tasksOf, tasksOf.get(c), inputs.get(c)));
        }
        List<String> names = new ArrayList<>();
        Map<String, Integer> classOf = new HashMap<>();
        for (String c : components) {
            if (whole.get(c)) {
                classOf.put(c, names.size());
                for (String from : inputs.get(c)) {
                    classOf.put(c + "<-" + from, names.size());
                }
                names.add(c);
            } else {
                for (String from : inputs.get(c)) {
                    classOf.put(c + "<-" + from, names.size());
                    names.add(c + " <- " + from);
                }
            }
        }
        int n = names.size();
        // Pieces: for every task, (class, fraction of the task's load and output).
        List<int[]> pieceClass = new ArrayList<>();   // per task: the classes of its pieces
        List<double[]> pieceShare = new ArrayList<>(); // per task: the share of each piece
        pieceClass.add(null);
        pieceShare.add(null);
        for (int t = 1; t <= tasks; t++) {
            String c = components.get(componentOf[t]);
            List<String> in = inputs.get(c);
            if (whole.get(c)) {
                pieceClass.add(new int[] {classOf.get(c)});
                pieceShare.add(new double[] {1});
                continue;
            }
            int[] cls = new int[in.size()];
            double[] share = new double[in.size()];
            double total = 0;
            for (int j = 0; j < in.size(); j++) {
                cls[j] = classOf.get(c + "<-" + in.get(j));
                for (int s : tasksOf.get(in.get(j))) {
                    share[j] += truth.traffic[s][t];
                }
                total += share[j];
            }
            for (int j = 0; j < share.length; j++) {
                share[j] = total == 0 ? 1.0 / share.length : share[j] / total;
            }
            pieceClass.add(cls);
            pieceShare.add(share);
        }
        double[] load = new double[n];
        for (int t = 1; t <= tasks; t++) {
            for (int j = 0; j < pieceClass.get(t).length; j++) {
                load[pieceClass.get(t)[j]] += truth.load[t] * pieceShare.get(t)[j];
            }
        }
        // Traffic between classes: a task's outgoing traffic is its pieces' in proportion to their
        // shares; a task's incoming traffic from component y belongs to its piece of class (c <- y).
        double[][] between = new double[n][n];
        for (int s = 1; s <= tasks; s++) {
            for (int d = 1; d <= tasks; d++) {
                double v = truth.traffic[s][d];
                if (v == 0) {
                    continue;
                }
                int target = receivingClass(classOf, components, componentOf, s, d);
                for (int j = 0; j < pieceClass.get(s).length; j++) {
                    double part = v * pieceShare.get(s)[j];
                    int source = pieceClass.get(s)[j];
                    between[source][target] += part;
                    if (source != target) {
                        between[target][source] += part;
                    }
                }
            }
        }
        // The product form every piece pair must have: traffic(p, q) = T_cd · ℓ_p ℓ_q / (L_c L_d).
        for (int s = 1; s <= tasks; s++) {
            for (int d = 1; d <= tasks; d++) {
                double v = truth.traffic[s][d];
                if (v == 0) {
                    continue;
                }
                int target = receivingClass(classOf, components, componentOf, s, d);
                double targetLoad = truth.load[d] * pieceShareOf(pieceClass.get(d), pieceShare.get(d), target);
                for (int j = 0; j < pieceClass.get(s).length; j++) {
                    int source = pieceClass.get(s)[j];
                    if (source == target) {
                        throw new IllegalArgumentException(names.get(source) + " sends to itself");
                    }
                    double actual = v * pieceShare.get(s)[j];
                    double sourceLoad = truth.load[s] * pieceShare.get(s)[j];
                    double product = between[source][target] * sourceLoad * targetLoad / (load[source] * load[target]);
                    if (Math.abs(actual - product) > 1e-7 * Math.max(actual, product)) {
                        throw new IllegalArgumentException("traffic " + s + " -> " + d + " (" + names.get(source) + " -> "
                                + names.get(target) + ") is " + actual + ", not the product " + product);
                    }
                }
            }
        }
        double totalLoad = 0;
        for (double l : load) {
            totalLoad += l;
        }
        return new Classes(List.copyOf(names), load, between, truth.total(), totalLoad, truth);
    }

    /** Whether every task of a component receives the same shares of its input from each of its streams. */
    private static boolean sameInputShares(TrueTraffic truth, Map<String, int[]> tasksOf, int[] tasks, List<String> inputs) {
        double[] first = null;
        for (int t : tasks) {
            double[] share = new double[inputs.size()];
            double total = 0;
            for (int j = 0; j < inputs.size(); j++) {
                for (int s : tasksOf.get(inputs.get(j))) {
                    share[j] += truth.traffic[s][t];
                }
                total += share[j];
            }
            for (int j = 0; j < share.length; j++) {
                share[j] = total == 0 ? 0 : share[j] / total;
            }
            if (first == null) {
                first = share;
            } else {
                for (int j = 0; j < share.length; j++) {
                    if (Math.abs(share[j] - first[j]) > 1e-9) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    private static int receivingClass(Map<String, Integer> classOf, List<String> components, int[] componentOf, int s,
                                      int d) {
        return classOf.get(components.get(componentOf[d]) + "<-" + components.get(componentOf[s]));
    }

    private static double pieceShareOf(int[] classes, double[] shares, int cls) {
        for (int j = 0; j < classes.length; j++) {
            if (classes[j] == cls) {
                return shares[j];
            }
        }
        throw new IllegalStateException("no piece of class " + cls);
    }

    /**
     * The most traffic any placement on {@code nodes} nodes with every node's load ≤ {@code cap} keeps
     * inside nodes: exact by enumeration when there are at most {@link #EXACT_BUDGET} placements, the
     * fluid Lagrangian bound otherwise.
     */
    static Bound maxLocal(Classes classes, int nodes, double cap) {
        double placements = Math.pow(nodes, classes.truth().tasks - 1); // the first task's node fixed by symmetry
        boolean exact = placements <= EXACT_BUDGET;
        double local;
        try {
            local = exact ? exactMaxLocal(classes.truth(), nodes, cap) : fluidMaxLocal(classes, nodes, cap);
        } catch (IllegalArgumentException noPlacementFits) {
            // Whole tasks do not pack within the cap: no placement meets it; the fluid bound still says how
            // low one allowed to split tasks could go.
            exact = false;
            local = fluidMaxLocal(classes, nodes, cap);
        }
        return new Bound(local, classes.totalTraffic() == 0 ? 0 : Math.max(0, 1 - local / classes.totalTraffic()), exact);
    }

    /** The fluid Lagrangian bound (class docs), minimised over the multipliers by subgradient steps. */
    static double fluidMaxLocal(Classes classes, int nodes, double cap) {
        int n = classes.size();
        // Work in units of the cap (loads) and of the total traffic, for conditioning.
        double[] total = new double[n];
        double[][] m = new double[n][n];
        double trafficUnit = classes.totalTraffic() == 0 ? 1 : classes.totalTraffic();
        for (int c = 0; c < n; c++) {
            total[c] = classes.load()[c] / cap;
        }
        for (int c = 0; c < n; c++) {
            for (int d = 0; d < n; d++) {
                if (c != d && classes.load()[c] > 0 && classes.load()[d] > 0) {
                    m[c][d] = classes.traffic()[c][d] / trafficUnit / (total[c] * total[d]);
                }
            }
        }
        NodeProblem node = new NodeProblem(m);
        // Start from the marginal value of each class where every node holds 1/N of every class (the even spread).
        double[] lambda = new double[n];
        for (int c = 0; c < n; c++) {
            for (int d = 0; d < n; d++) {
                lambda[c] += m[c][d] * total[d] / nodes;
            }
        }
        double[] argmax = new double[n];
        double best = Double.POSITIVE_INFINITY;
        double step = 1.0;
        int sinceImproved = 0;
        for (int iteration = 0; iteration < ITERATIONS && step > 1e-5; iteration++) {
            double bound = nodes * node.max(lambda, argmax);
            for (int c = 0; c < n; c++) {
                bound += lambda[c] * total[c];
            }
            if (bound < best - 1e-12 * Math.abs(best) || best == Double.POSITIVE_INFINITY) {
                best = bound;
                sinceImproved = 0;
            } else if (++sinceImproved >= 20) {
                step /= 2;
                sinceImproved = 0;
            }
            double[] g = new double[n];
            double norm = 0;
            for (int c = 0; c < n; c++) {
                g[c] = total[c] - nodes * argmax[c];
                norm += g[c] * g[c];
            }
            if (norm < 1e-18) {
                break; // the same node on every node places everything: the relaxation is attained
            }
            double t = step * (bound - 0.97 * best) / norm;
            for (int c = 0; c < n; c++) {
                lambda[c] -= t * g[c];
            }
        }
        return Math.min(best, 1) * trafficUnit;
    }

    /**
     * max over V ≥ 0, ΣV ≤ 1 of ½ VᵀMV − λ·V (M symmetric, zero diagonal), exactly, by the stationary
     * points of every face (class docs).
     */
    static final class NodeProblem {
        private final double[][] m;
        private final int n;

        NodeProblem(double[][] m) {
            this.m = m;
            this.n = m.length;
            if (n > 20) {
                throw new IllegalArgumentException(n + " classes: too many faces to enumerate");
            }
        }

        /** The maximum, its maximiser into {@code argmax}. */
        double max(double[] lambda, double[] argmax) {
            double best = 0;
            java.util.Arrays.fill(argmax, 0);
            int[] support = new int[n];
            double[][] a = new double[n + 1][n + 2];
            double[] v = new double[n + 1];
            for (int mask = 1; mask < 1 << n; mask++) {
                int k = 0;
                for (int c = 0; c < n; c++) {
                    if ((mask & 1 << c) != 0) {
                        support[k++] = c;
                    }
                }
                for (int active = 0; active <= 1; active++) {
                    int size = k + active;
                    for (int i = 0; i < k; i++) {
                        for (int j = 0; j < k; j++) {
                            a[i][j] = m[support[i]][support[j]];
                        }
                        if (active == 1) {
                            a[i][k] = -1;
                        }
                        a[i][size] = lambda[support[i]];
                    }
                    if (active == 1) {
                        for (int j = 0; j < k; j++) {
                            a[k][j] = 1;
                        }
                        a[k][k] = 0;
                        a[k][size] = 1;
                    }
                    if (!solve(a, size, v)) {
                        continue; // singular: its value is attained on a smaller face
                    }
                    double sum = 0;
                    boolean inside = true;
                    for (int i = 0; i < k; i++) {
                        if (v[i] < -1e-9) {
                            inside = false;
                            break;
                        }
                        sum += v[i];
                    }
                    if (!inside || sum > 1 + 1e-9) {
                        continue;
                    }
                    double value = 0;
                    for (int i = 0; i < k; i++) {
                        double row = 0;
                        for (int j = 0; j < k; j++) {
                            row += m[support[i]][support[j]] * v[j];
                        }
                        value += 0.5 * v[i] * row - lambda[support[i]] * v[i];
                    }
                    if (value > best) {
                        best = value;
                        java.util.Arrays.fill(argmax, 0);
                        for (int i = 0; i < k; i++) {
                            argmax[support[i]] = Math.max(0, v[i]);
                        }
                    }
                }
            }
            return best;
        }

        /** Gaussian elimination with partial pivoting on the augmented {@code size × (size + 1)} system; false if singular. */
        private static boolean solve(double[][] a, int size, double[] x) {
            double scale = 0;
            for (int i = 0; i < size; i++) {
                for (int j = 0; j < size; j++) {
                    scale = Math.max(scale, Math.abs(a[i][j]));
                }
            }
            if (scale == 0) {
                return false;
            }
            for (int col = 0; col < size; col++) {
                int pivot = col;
                for (int r = col + 1; r < size; r++) {
                    if (Math.abs(a[r][col]) > Math.abs(a[pivot][col])) {
                        pivot = r;
                    }
                }
                if (Math.abs(a[pivot][col]) < 1e-12 * scale) {
                    return false;
                }
                double[] tmp = a[pivot];
                a[pivot] = a[col];
                a[col] = tmp;
                for (int r = col + 1; r < size; r++) {
                    double f = a[r][col] / a[col][col];
                    if (f != 0) {
                        for (int j = col; j <= size; j++) {
                            a[r][j] -= f * a[col][j];
                        }
                    }
                }
            }
            for (int r = size - 1; r >= 0; r--) {
                double sum = a[r][size];
                for (int j = r + 1; j < size; j++) {
                    sum -= a[r][j] * x[j];
                }
                x[r] = sum / a[r][r];
            }
            return true;
        }
    }

    /**
     * The most traffic any placement of whole tasks on {@code nodes} nodes, every node's load ≤ {@code cap},
     * keeps inside nodes, by enumerating every placement (task 1 on node 0, by symmetry). Throws when no
     * placement fits.
     */
    static double exactMaxLocal(TrueTraffic truth, int nodes, double cap) {
        int tasks = truth.tasks;
        double[][] w = new double[tasks + 1][tasks + 1];
        for (int s = 1; s <= tasks; s++) {
            for (int d = 1; d <= tasks; d++) {
                w[Math.min(s, d)][Math.max(s, d)] += s == d ? 0 : truth.traffic[s][d];
            }
        }
        Exhaustive e = new Exhaustive(truth.load, w, nodes, cap);
        e.place(1, 0);
        if (e.best == Double.NEGATIVE_INFINITY) {
            throw new IllegalArgumentException("no placement within the cap");
        }
        return e.best;
    }

    private static final class Exhaustive {
        private final double[] load;
        private final double[][] w;
        private final int nodes;
        private final double cap;
        private final int[] nodeOf;
        private final double[] nodeLoad;
        private double best = Double.NEGATIVE_INFINITY;

        Exhaustive(double[] load, double[][] w, int nodes, double cap) {
            this.load = load;
            this.w = w;
            this.nodes = nodes;
            this.cap = cap;
            this.nodeOf = new int[load.length];
            this.nodeLoad = new double[nodes];
        }

        /** Places task {@code t} and on, {@code kept} so far; a node is used only after the ones before it (symmetry). */
        void place(int t, double kept) {
            if (t == load.length) {
                best = Math.max(best, kept);
                return;
            }
            int used = 0;
            for (int u = 1; u < t; u++) {
                used = Math.max(used, nodeOf[u] + 1);
            }
            for (int k = 0; k < Math.min(nodes, used + 1); k++) {
                if (nodeLoad[k] + load[t] > cap * (1 + 1e-12)) {
                    continue;
                }
                double gain = 0;
                for (int u = 1; u < t; u++) {
                    if (nodeOf[u] == k) {
                        gain += w[u][t];
                    }
                }
                nodeOf[t] = k;
                nodeLoad[k] += load[t];
                place(t + 1, kept + gain);
                nodeLoad[k] -= load[t];
            }
        }
    }
}
