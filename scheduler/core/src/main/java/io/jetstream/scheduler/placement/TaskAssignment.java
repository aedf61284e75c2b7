package io.jetstream.scheduler.placement;

import java.util.Arrays;

/**
 * TaskAssignment, TurboStream Algorithm 2 (§V-C): the consolidated tasks are split in two by BFS
 * growth from every start task — a visited task is gathered when that brings the gathered load closer
 * to the target share, its unvisited neighbours are queued, and when the queue runs dry before the
 * target is reached another unvisited task is queued — and of the partitions within the balance
 * factor the one cutting the least traffic is kept. Each half gets a group of nodes (the first
 * ⌈N/2⌉ and the remaining ⌊N/2⌋, the target being the first group's share of capacity, so
 * heterogeneous free slots are allowed), and each half is split again until one node remains.
 *
 * <p>Choices where the paper is silent, each stated here once:
 * <ul>
 *   <li>The balance factor is relative and bounds each node's load: a split over nodes is balanced
 *       when |balance − target| ≤ factor / ⌈log2 N⌉ × min(target, 1 − target), so both halves are
 *       within their share and the ⌈log2 N⌉ levels of splits together stay within about the factor;
 *       a split of one node's workers uses the factor itself.</li>
 *   <li>When no start yields a balanced split at the current consolidation level, the split is retried
 *       one level finer (the parents' children), down to the tasks themselves; at level 0 the split
 *       closest to the target is kept.</li>
 *   <li>The task queued when the BFS queue runs dry is the unvisited one with the most traffic to the
 *       gathered set (the first in order when none has any).</li>
 *   <li>With more than {@code maxStarts} tasks, the BFS starts from {@code maxStarts} evenly spaced
 *       tasks rather than from all of them; this bounds the O(N³) the paper states.</li>
 *   <li>Inside a node, tasks go round-robin onto its workers ({@link WithinNode#ROUND_ROBIN}, the
 *       paper's choice, which relies on a cheap intra-node channel), or the same bisection continues
 *       over the node's workers ({@link WithinNode#PARTITION}), which keeps communicating tasks in one
 *       worker where Storm passes tuples in memory.</li>
 * </ul>
 *
 * <p>Not thread-safe: holds scratch arrays; use one instance per thread.
 */
public final class TaskAssignment {
    /** How the tasks of one node are spread over that node's workers. */
    public enum WithinNode {
        /** TurboStream's choice: tasks in order, dealt round-robin onto the node's workers. */
        ROUND_ROBIN,
        /** Continue Algorithm 2 over the node's workers, keeping communicating tasks in one worker. */
        PARTITION
    }

    private final double balanceFactor;
    private final int maxStarts;
    private final WithinNode withinNode;
    private final boolean refine;

    // Scratch, sized to the largest level seen; stamps avoid clearing between BFS runs.
    private int[] memberStamp = new int[0];
    private int[] visitedStamp = new int[0];
    private int[] queuedStamp = new int[0];
    private int[] gatheredStamp = new int[0];
    private double[] attach = new double[0];
    private int[] queue = new int[0];
    private int stamp;
    /** Node-level splits share the balance factor among the ⌈log2 N⌉ levels, so node loads stay within it. */
    private double nodeSplitFactor;
    /** Tolerance of the current split, relative to its smaller side (see {@link #assign}). */
    private double splitFactor;

    public TaskAssignment(double balanceFactor, int maxStarts, WithinNode withinNode) {
        this(balanceFactor, maxStarts, withinNode, true);
    }

    /**
     * @param refine whether each split is improved by Kernighan-Lin/Fiduccia-Mattheyses moves (see
     *     {@link #refine}); false is the paper's Algorithm 2 alone
     */
    public TaskAssignment(double balanceFactor, int maxStarts, WithinNode withinNode, boolean refine) {
        if (!(balanceFactor > 0 && balanceFactor < 1)) {
            throw new IllegalArgumentException("balanceFactor must be in (0, 1): " + balanceFactor);
        }
        if (maxStarts < 1) {
            throw new IllegalArgumentException("maxStarts must be >= 1: " + maxStarts);
        }
        this.balanceFactor = balanceFactor;
        this.maxStarts = maxStarts;
        this.withinNode = withinNode;
        this.refine = refine;
    }

    /** Places every task of {@code hierarchy}'s level 0 onto a worker of {@code slots}. */
    public Placement assign(ConsolidationHierarchy hierarchy, NodeSlots slots) {
        int tasks = hierarchy.level(0).size();
        int[] workerOf = new int[tasks];
        int top = hierarchy.coarsestLevel();
        int[] all = new int[hierarchy.level(top).size()];
        Arrays.setAll(all, i -> i);
        int[] workers = new int[slots.workerCount()];
        Arrays.setAll(workers, i -> i);
        nodeSplitFactor = balanceFactor / Math.max(1, 32 - Integer.numberOfLeadingZeros(slots.nodeCount() - 1));
        split(hierarchy, top, all, slots, workers, workerOf);
        return new Placement(slots, workerOf);
    }

    private void split(ConsolidationHierarchy hierarchy, int level, int[] vertices, NodeSlots slots,
                       int[] workers, int[] workerOf) {
        if (workers.length == 1 || vertices.length == 0) {
            for (int v : vertices) {
                for (int task : hierarchy.tasksOf(level, v)) {
                    workerOf[task] = workers[0];
                }
            }
            return;
        }
        int firstNode = slots.nodeOfWorker(workers[0]);
        int lastNode = slots.nodeOfWorker(workers[workers.length - 1]);
        int cut;
        if (firstNode != lastNode) {
            int nodes = lastNode - firstNode + 1;
            int firstHalfNodes = (nodes + 1) / 2;
            cut = slots.firstWorkerOf(firstNode + firstHalfNodes) - workers[0];
        } else if (withinNode == WithinNode.ROUND_ROBIN) {
            roundRobin(hierarchy, level, vertices, workers, workerOf);
            return;
        } else {
            cut = (workers.length + 1) / 2;
        }
        int[] workersA = Arrays.copyOfRange(workers, 0, cut);
        int[] workersB = Arrays.copyOfRange(workers, cut, workers.length);
        double capacityA = 0;
        double capacityAll = 0;
        for (int i = 0; i < workers.length; i++) {
            double c = slots.workerCapacity(workers[i]);
            capacityAll += c;
            if (i < cut) {
                capacityA += c;
            }
        }
        double target = capacityA / capacityAll;
        splitFactor = firstNode != lastNode ? nodeSplitFactor : balanceFactor;
        Bisection bisection = bisect(hierarchy.level(level), vertices, target);
        while (!bisection.balanced && level > 0) {
            vertices = hierarchy.expand(level, vertices);
            level--;
            bisection = bisect(hierarchy.level(level), vertices, target);
        }
        if (refine) {
            bisection = refine(hierarchy.level(level), vertices, bisection, target);
        }
        split(hierarchy, level, bisection.first, slots, workersA, workerOf);
        split(hierarchy, level, bisection.second, slots, workersB, workerOf);
    }

    private static void roundRobin(ConsolidationHierarchy hierarchy, int level, int[] vertices, int[] workers,
                                   int[] workerOf) {
        int[] tasks = vertices;
        for (int l = level; l > 0; l--) {
            tasks = hierarchy.expand(l, tasks);
        }
        tasks = tasks.clone();
        Arrays.sort(tasks);
        for (int i = 0; i < tasks.length; i++) {
            workerOf[tasks[i]] = workers[i % workers.length];
        }
    }

    /** One split of {@code vertices}: the first part aims at {@code target} of their load. */
    record Bisection(int[] first, int[] second, boolean balanced, double balance, double cutTraffic) {}

    /** Algorithm 2 over the subgraph of {@code graph} induced by {@code vertices}. */
    Bisection bisect(TaskGraph graph, int[] vertices, double target) {
        ensureScratch(graph.size());
        int members = ++stamp;
        double total = 0;
        for (int v : vertices) {
            memberStamp[v] = members;
            total += graph.weight(v);
        }
        boolean unitWeights = total == 0;
        if (unitWeights) {
            total = vertices.length;
        }
        double tolerance = splitFactor * Math.min(target, 1 - target);

        int[] best = null;
        double bestCut = Double.POSITIVE_INFINITY;
        double bestBalance = 0;
        int[] closest = null;
        double closestDeviation = Double.POSITIVE_INFINITY;
        double closestCut = Double.POSITIVE_INFINITY;
        double closestBalance = 0;

        int starts = Math.min(vertices.length, maxStarts);
        int[] gathered = new int[vertices.length];
        for (int s = 0; s < starts; s++) {
            int start = vertices[(int) ((long) s * vertices.length / starts)];
            int run = ++stamp;
            int head = 0;
            int tail = 0;
            queue[tail++] = start;
            queuedStamp[start] = run;
            int gatheredCount = 0;
            double gatheredWeight = 0;
            double balance = 0;
            double cut = 0;
            while (head < tail && balance < target) {
                int c = queue[head++];
                visitedStamp[c] = run;
                double w = unitWeights ? 1 : graph.weight(c);
                double tempBalance = (w + gatheredWeight) / total;
                if (Math.abs(tempBalance - target) < Math.abs(balance - target)) {
                    gatheredStamp[c] = run;
                    gathered[gatheredCount++] = c;
                    gatheredWeight += w;
                    balance = gatheredWeight / total;
                    for (int e = graph.firstEdge(c); e < graph.endEdge(c); e++) {
                        int u = graph.edgeTarget(e);
                        if (memberStamp[u] != members) {
                            continue;
                        }
                        double t = graph.edgeTraffic(e);
                        if (gatheredStamp[u] == run) {
                            cut -= t;
                        } else {
                            cut += t;
                            attach[u] = attachOf(u, run) + t;
                            queuedAttachStamp(u, run);
                            if (visitedStamp[u] != run && queuedStamp[u] != run) {
                                queuedStamp[u] = run;
                                queue[tail++] = u;
                            }
                        }
                    }
                }
                if (head == tail && Math.abs(balance - target) > tolerance && balance < target) {
                    int next = mostAttachedUnvisited(vertices, run);
                    if (next < 0) {
                        break;
                    }
                    queuedStamp[next] = run;
                    queue[tail++] = next;
                }
            }
            double deviation = Math.abs(balance - target);
            if (deviation <= tolerance) {
                if (cut < bestCut) {
                    bestCut = cut;
                    best = Arrays.copyOf(gathered, gatheredCount);
                    bestBalance = balance;
                }
            } else if (deviation < closestDeviation || (deviation == closestDeviation && cut < closestCut)) {
                closestDeviation = deviation;
                closestCut = cut;
                closest = Arrays.copyOf(gathered, gatheredCount);
                closestBalance = balance;
            }
        }
        boolean balanced = best != null;
        int[] first = balanced ? best : closest;
        double balance = balanced ? bestBalance : closestBalance;
        double cut = balanced ? bestCut : closestCut;
        int mark = ++stamp;
        for (int v : first) {
            gatheredStamp[v] = mark;
        }
        int[] second = new int[vertices.length - first.length];
        int i = 0;
        for (int v : vertices) {
            if (gatheredStamp[v] != mark) {
                second[i++] = v;
            }
        }
        return new Bisection(first, second, balanced, balance, cut);
    }

    /**
     * Improves a split by single-vertex moves in the manner of Fiduccia-Mattheyses (the refinement
     * TurboStream's published partitioner pairs with BFS growth): repeatedly move the unlocked vertex
     * with the highest gain (traffic to the other side minus traffic to its own) whose move keeps the
     * split balanced (or brings an unbalanced one closer), lock it; keep the best prefix of the moves;
     * repeat while a pass improves the cut, at most four passes.
     */
    Bisection refine(TaskGraph graph, int[] vertices, Bisection split, double target) {
        int n = vertices.length;
        if (n < 2) {
            return split;
        }
        ensureScratch(graph.size());
        int members = ++stamp;
        int[] local = new int[graph.size()];
        double total = 0;
        for (int i = 0; i < n; i++) {
            memberStamp[vertices[i]] = members;
            local[vertices[i]] = i;
            total += graph.weight(vertices[i]);
        }
        boolean unitWeights = total == 0;
        if (unitWeights) {
            total = n;
        }
        double tolerance = splitFactor * Math.min(target, 1 - target);
        boolean[] inFirst = new boolean[n];
        int firstMark = ++stamp;
        for (int v : split.first()) {
            gatheredStamp[v] = firstMark;
        }
        double firstWeight = 0;
        for (int i = 0; i < n; i++) {
            inFirst[i] = gatheredStamp[vertices[i]] == firstMark;
            if (inFirst[i]) {
                firstWeight += unitWeights ? 1 : graph.weight(vertices[i]);
            }
        }
        double[] gain = new double[n];
        double cut = 0;
        for (int i = 0; i < n; i++) {
            int v = vertices[i];
            for (int e = graph.firstEdge(v); e < graph.endEdge(v); e++) {
                int u = graph.edgeTarget(e);
                if (memberStamp[u] != members) {
                    continue;
                }
                boolean cross = inFirst[local[u]] != inFirst[i];
                gain[i] += cross ? graph.edgeTraffic(e) : -graph.edgeTraffic(e);
                if (cross && u > v) {
                    cut += graph.edgeTraffic(e);
                }
            }
        }
        boolean[] locked = new boolean[n];
        int[] moves = new int[n];
        for (int pass = 0; pass < 4; pass++) {
            java.util.Arrays.fill(locked, false);
            double startCut = cut;
            double bestCut = cut;
            double bestDeviation = Math.abs(firstWeight / total - target);
            boolean startBalanced = bestDeviation <= tolerance;
            int bestPrefix = 0;
            int count = 0;
            double runningCut = cut;
            double runningFirst = firstWeight;
            while (count < n) {
                int pick = -1;
                double pickGain = Double.NEGATIVE_INFINITY;
                for (int i = 0; i < n; i++) {
                    if (locked[i] || gain[i] <= pickGain) {
                        continue;
                    }
                    double w = unitWeights ? 1 : graph.weight(vertices[i]);
                    double after = (inFirst[i] ? runningFirst - w : runningFirst + w) / total;
                    double deviationAfter = Math.abs(after - target);
                    if (deviationAfter <= tolerance
                            || deviationAfter < Math.abs(runningFirst / total - target)) {
                        pick = i;
                        pickGain = gain[i];
                    }
                }
                if (pick < 0) {
                    break;
                }
                double w = unitWeights ? 1 : graph.weight(vertices[pick]);
                runningFirst += inFirst[pick] ? -w : w;
                runningCut -= gain[pick];
                flip(graph, vertices, pick, members, local, inFirst, gain);
                locked[pick] = true;
                moves[count++] = pick;
                double deviation = Math.abs(runningFirst / total - target);
                boolean balanced = deviation <= tolerance;
                boolean better = startBalanced
                        ? balanced && runningCut < bestCut - 1e-12
                        : deviation < bestDeviation - 1e-12 || (balanced && runningCut < bestCut - 1e-12);
                if (better) {
                    bestCut = runningCut;
                    bestDeviation = deviation;
                    bestPrefix = count;
                    if (balanced) {
                        startBalanced = true;
                    }
                }
            }
            // Undo the moves after the best prefix.
            for (int k = count - 1; k >= bestPrefix; k--) {
                int i = moves[k];
                double w = unitWeights ? 1 : graph.weight(vertices[i]);
                runningFirst += inFirst[i] ? -w : w;
                flip(graph, vertices, i, members, local, inFirst, gain);
            }
            firstWeight = runningFirst;
            cut = bestCut;
            if (bestPrefix == 0 || cut >= startCut - 1e-12 && bestPrefix == 0) {
                break;
            }
        }
        int firstCount = 0;
        for (boolean b : inFirst) {
            if (b) {
                firstCount++;
            }
        }
        int[] first = new int[firstCount];
        int[] second = new int[n - firstCount];
        int a = 0;
        int b = 0;
        for (int i = 0; i < n; i++) {
            if (inFirst[i]) {
                first[a++] = vertices[i];
            } else {
                second[b++] = vertices[i];
            }
        }
        double balance = firstWeight / total;
        return new Bisection(first, second, Math.abs(balance - target) <= tolerance, balance, cut);
    }

    /** Moves vertex {@code i} to the other side and updates the gains it changes. */
    private void flip(TaskGraph graph, int[] vertices, int i, int members, int[] local, boolean[] inFirst,
                      double[] gain) {
        inFirst[i] = !inFirst[i];
        gain[i] = -gain[i];
        int v = vertices[i];
        for (int e = graph.firstEdge(v); e < graph.endEdge(v); e++) {
            int u = graph.edgeTarget(e);
            if (memberStamp[u] != members) {
                continue;
            }
            int j = local[u];
            // An edge to j that was cut is now internal, and vice versa.
            gain[j] += inFirst[j] == inFirst[i] ? -2 * graph.edgeTraffic(e) : 2 * graph.edgeTraffic(e);
        }
    }

    // attach[] is valid for a run only where attachStamp says so.
    private int[] attachStamp = new int[0];

    private double attachOf(int v, int run) {
        return attachStamp[v] == run ? attach[v] : 0;
    }

    private void queuedAttachStamp(int v, int run) {
        attachStamp[v] = run;
    }

    private int mostAttachedUnvisited(int[] vertices, int run) {
        int pick = -1;
        double most = -1;
        for (int v : vertices) {
            if (visitedStamp[v] == run || queuedStamp[v] == run) {
                continue;
            }
            double a = attachOf(v, run);
            if (a > most) {
                most = a;
                pick = v;
            }
        }
        return pick;
    }

    private void ensureScratch(int size) {
        if (memberStamp.length < size) {
            memberStamp = new int[size];
            visitedStamp = new int[size];
            queuedStamp = new int[size];
            gatheredStamp = new int[size];
            attachStamp = new int[size];
            attach = new double[size];
            queue = new int[size];
        }
    }
}
