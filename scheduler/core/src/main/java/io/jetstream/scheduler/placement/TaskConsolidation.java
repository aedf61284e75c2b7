package io.jetstream.scheduler.placement;

import java.util.ArrayList;
import java.util.List;

/**
 * TaskConsolidation, TurboStream Algorithm 1 (§V-B): every task not yet visited is merged with its
 * heaviest-traffic neighbour not yet visited into a parent task (alone if every neighbour is taken);
 * traffic inside a parent disappears, traffic between parents adds up; the parents are consolidated
 * the same way, level after level, until fewer than {@code taskNumThreshold} remain.
 *
 * <p>One addition, needed for the balance TaskAssignment must reach: a merge whose parent would weigh
 * more than {@code maxParentWeight} is skipped (the next-heaviest neighbour is tried). Without it,
 * chains of heavy pairs grow into parents heavier than a node's share, which no assignment can
 * balance. Consolidation also stops when a level merges nothing.
 *
 * <p>Stateless; thread-safe.
 */
public final class TaskConsolidation {
    private TaskConsolidation() {}

    /**
     * @param taskNumThreshold consolidation stops once fewer parents than this remain (at least 1)
     * @param maxParentWeight the heaviest parent a merge may create (infinity: the paper's algorithm)
     */
    public static ConsolidationHierarchy consolidate(TaskGraph tasks, int taskNumThreshold, double maxParentWeight) {
        if (taskNumThreshold < 1) {
            throw new IllegalArgumentException("taskNumThreshold must be >= 1: " + taskNumThreshold);
        }
        if (!(maxParentWeight > 0)) {
            throw new IllegalArgumentException("maxParentWeight must be > 0: " + maxParentWeight);
        }
        List<TaskGraph> levels = new ArrayList<>();
        List<int[]> parents = new ArrayList<>();
        levels.add(tasks);
        TaskGraph current = tasks;
        while (current.size() >= taskNumThreshold) {
            int[] parentOf = new int[current.size()];
            int parentCount = consolidateOneLevel(current, maxParentWeight, parentOf);
            if (parentCount == current.size()) {
                break; // nothing merged: no further level can change anything
            }
            current = parentGraph(current, parentOf, parentCount);
            parents.add(parentOf);
            levels.add(current);
        }
        return new ConsolidationHierarchy(levels, parents);
    }

    /** Algorithm 1, lines 1-20: fills {@code parentOf} and returns the number of parents. */
    static int consolidateOneLevel(TaskGraph graph, double maxParentWeight, int[] parentOf) {
        int n = graph.size();
        boolean[] visited = new boolean[n];
        int parents = 0;
        for (int v = 0; v < n; v++) {
            if (visited[v]) {
                continue;
            }
            visited[v] = true;
            int p = parents++;
            parentOf[v] = p;
            // Neighbours are stored heaviest first (line 5: sort(neighbors)).
            for (int e = graph.firstEdge(v); e < graph.endEdge(v); e++) {
                int u = graph.edgeTarget(e);
                if (!visited[u] && graph.weight(v) + graph.weight(u) <= maxParentWeight) {
                    visited[u] = true;
                    parentOf[u] = p;
                    break;
                }
            }
        }
        return parents;
    }

    /** Algorithm 1, lines 21-27: streams between different parents become parent streams. */
    static TaskGraph parentGraph(TaskGraph graph, int[] parentOf, int parentCount) {
        TaskGraph.Builder builder = TaskGraph.builder(parentCount);
        for (int v = 0; v < graph.size(); v++) {
            builder.addWeight(parentOf[v], graph.weight(v));
            for (int e = graph.firstEdge(v); e < graph.endEdge(v); e++) {
                int u = graph.edgeTarget(e);
                if (u > v && parentOf[u] != parentOf[v]) {
                    builder.addTraffic(parentOf[v], parentOf[u], graph.edgeTraffic(e));
                }
            }
        }
        return builder.build();
    }
}
