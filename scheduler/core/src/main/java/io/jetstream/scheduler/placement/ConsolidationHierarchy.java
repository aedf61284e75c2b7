package io.jetstream.scheduler.placement;

import java.util.List;

/**
 * The relational tree TaskConsolidation builds (TurboStream §V-B): level 0 is the task graph, each
 * further level the graph of the parents of the level below. TaskAssignment places vertices of any
 * level and maps them back to tasks through {@link #tasksOf}.
 *
 * <p>Immutable; thread-safe.
 */
public final class ConsolidationHierarchy {
    private final List<TaskGraph> levels;
    private final List<int[]> parentOf;
    private final int[][][] children;

    ConsolidationHierarchy(List<TaskGraph> levels, List<int[]> parentOf) {
        this.levels = List.copyOf(levels);
        this.parentOf = List.copyOf(parentOf);
        this.children = new int[levels.size()][][];
        for (int level = 1; level < levels.size(); level++) {
            int[] parents = parentOf.get(level - 1);
            int[] counts = new int[levels.get(level).size()];
            for (int p : parents) {
                counts[p]++;
            }
            int[][] lists = new int[counts.length][];
            for (int p = 0; p < counts.length; p++) {
                lists[p] = new int[counts[p]];
                counts[p] = 0;
            }
            for (int child = 0; child < parents.length; child++) {
                lists[parents[child]][counts[parents[child]]++] = child;
            }
            children[level] = lists;
        }
    }

    /** Number of levels; level 0 is the task graph, {@code depth() - 1} the coarsest. */
    public int depth() {
        return levels.size();
    }

    public int coarsestLevel() {
        return levels.size() - 1;
    }

    public TaskGraph level(int level) {
        return levels.get(level);
    }

    /** The parent, at {@code level + 1}, of vertex {@code vertex} of {@code level}. */
    public int parentOf(int level, int vertex) {
        return parentOf.get(level)[vertex];
    }

    /** The children, at {@code level - 1}, of a vertex of {@code level} (level >= 1). */
    public int[] childrenOf(int level, int vertex) {
        if (level == 0) {
            throw new IllegalArgumentException("tasks at level 0 have no children");
        }
        return children[level][vertex].clone();
    }

    /** The tasks (level-0 vertices) a vertex of {@code level} consolidates, in ascending order. */
    public int[] tasksOf(int level, int vertex) {
        int[] current = {vertex};
        for (int l = level; l > 0; l--) {
            current = expand(l, current);
        }
        java.util.Arrays.sort(current);
        return current;
    }

    /** The children of all the given vertices of {@code level}, at {@code level - 1}. */
    public int[] expand(int level, int[] vertices) {
        int total = 0;
        for (int v : vertices) {
            total += children[level][v].length;
        }
        int[] out = new int[total];
        int i = 0;
        for (int v : vertices) {
            for (int c : children[level][v]) {
                out[i++] = c;
            }
        }
        return out;
    }
}
