package io.jetstream.scheduler.placement;

import java.util.Arrays;

/**
 * Every component spread over the nodes as evenly as the even scheduler spreads it: node {@code n}
 * holds at most ⌈p_c × share_n⌉ of the p_c tasks of component {@code c}, share_n being the node's share
 * of the capacity. This is the placement rule when the rates are unknown (from structure, before
 * anything is measured).
 *
 * <p>Why: the structure says which components talk, not how much each one's tasks receive — a filter
 * drops most of its input, a join emits more than it reads, a hot key loads one task. Whichever
 * component turns out to carry most of the load, a node holding more than its even share of that
 * component's tasks is hotter than the even scheduler's hottest node; holding at most ⌈p_c × share⌉ of
 * every component is what keeps any placement from ever being hotter for one dominant component, so a
 * placement from structure keeps it, and saves traffic only in how it pairs the tasks within it (which
 * components share a node and a worker, where the remainders of ⌈⌉ go).
 *
 * <p>Immutable; thread-safe.
 */
public final class ComponentSpread {
    private final NodeSlots slots;
    private final int[] componentOf;
    private final int components;
    private final int[] tasksOf;
    /** [component * nodes + node]: the most tasks of the component the node may hold. */
    private final int[] maxOnNode;

    private ComponentSpread(NodeSlots slots, int[] componentOf, int components) {
        this.slots = slots;
        this.componentOf = componentOf;
        this.components = components;
        this.tasksOf = new int[components];
        for (int c : componentOf) {
            tasksOf[c]++;
        }
        int nodes = slots.nodeCount();
        this.maxOnNode = new int[components * nodes];
        double total = slots.totalCapacity();
        for (int c = 0; c < components; c++) {
            for (int n = 0; n < nodes; n++) {
                double share = tasksOf[c] * slots.nodes().get(n).capacity() / total;
                maxOnNode[c * nodes + n] = (int) Math.ceil(share - 1e-9);
            }
        }
    }

    /**
     * @param componentOf the component (0, 1, ...) of every task; tasks of one component are alike in the
     *     structure (the same streams, the same structural rate)
     */
    public static ComponentSpread of(NodeSlots slots, int[] componentOf) {
        int components = 0;
        for (int c : componentOf) {
            if (c < 0) {
                throw new IllegalArgumentException("negative component " + c);
            }
            components = Math.max(components, c + 1);
        }
        return new ComponentSpread(slots, componentOf.clone(), components);
    }

    public NodeSlots slots() {
        return slots;
    }

    public int taskCount() {
        return componentOf.length;
    }

    public int components() {
        return components;
    }

    public int componentOf(int task) {
        return componentOf[task];
    }

    /** The most tasks of {@code component} node {@code node} may hold. */
    public int maxOnNode(int component, int node) {
        return maxOnNode[component * slots.nodeCount() + node];
    }

    /**
     * The tasks dealt component by component (in component order, a component's tasks in index order)
     * over the workers as {@link Placement#dealt} deals them: one worker of every node in turn, as
     * Storm's even scheduler deals sorted executors. Within the spread on nodes of equal capacity.
     */
    public Placement dealt() {
        Integer[] order = new Integer[componentOf.length];
        for (int t = 0; t < order.length; t++) {
            order[t] = t;
        }
        Arrays.sort(order, (a, b) -> componentOf[a] != componentOf[b]
                ? Integer.compare(componentOf[a], componentOf[b]) : Integer.compare(a, b));
        Placement deal = Placement.dealt(slots, componentOf.length);
        int[] workerOf = new int[componentOf.length];
        for (int position = 0; position < order.length; position++) {
            workerOf[order[position]] = deal.workerOf(position);
        }
        return new Placement(slots, workerOf);
    }

    /** Tasks a placement puts on nodes beyond the spread, summed over components and nodes (0: within it). */
    public int excess(int[] workerOf) {
        int nodes = slots.nodeCount();
        int[] count = new int[components * nodes];
        for (int t = 0; t < workerOf.length; t++) {
            count[componentOf[t] * nodes + slots.nodeOfWorker(workerOf[t])]++;
        }
        int excess = 0;
        for (int i = 0; i < count.length; i++) {
            excess += Math.max(0, count[i] - maxOnNode[i]);
        }
        return excess;
    }

    /**
     * {@code objective} with every task beyond the spread costing more than any placement within it
     * (each such task adds {@code penaltyPerTask}, which must exceed the objective's whole range within the
     * spread).
     */
    public RefinementObjective constrain(RefinementObjective objective, double penaltyPerTask) {
        return new SpreadConstrainedObjective(objective, this, penaltyPerTask);
    }
}
