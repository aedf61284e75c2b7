package io.jetstream.scheduler.placement;

import io.jetstream.core.config.ConfigOption;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.core.config.OptionGroup;
import java.util.List;

/**
 * Options of the engine-free placement and of the rebalance policy, under {@code jetstream.scheduler.}:
 * read by every engine's adapter that places with {@link PlacementPlanner} (Storm's scheduler in Nimbus,
 * the JStorm assignment helper at submission). An engine's own scheduler options share the prefix and
 * are loaded together with {@link #GROUP}.
 */
public final class PlacementOptions {
    private PlacementOptions() {}

    public static final ConfigOption<PlacementPlanner.StructuralRates> STRUCTURE_RATES = ConfigOption.enumOption(
            "scheduler.structure.rates", PlacementPlanner.StructuralRates.class, PlacementPlanner.StructuralRates.UNKNOWN,
            "What a placement from the topology's structure (before any traffic is measured) assumes of the rates: "
                    + "`unknown` keeps every component spread over the nodes as the even scheduler spreads it (at most "
                    + "ceil(tasks x node share) of its tasks on a node: whichever component carries the load, no node is "
                    + "hotter than under the even scheduler) and cuts traffic only by pairing tasks within that, keeping "
                    + "the hottest node expected no hotter than the even deal's over random rate models; `uniform` "
                    + "trusts the structure's rates (every task carries the same, TurboStream's offline model) and "
                    + "consolidates by them: less traffic when that holds, hot nodes when filters, joins or hot keys "
                    + "make it false.");

    public static final ConfigOption<Double> STRUCTURE_RATE_SPREAD = ConfigOption.doubleOption(
            "scheduler.structure.rate-spread", 1.0, 0.0, 5.0,
            "With `scheduler.structure.rates: unknown`: how widely the rates are taken to vary, as the standard "
                    + "deviation of the natural logarithm of a bolt's selectivity (costs per tuple and the shares of "
                    + "a component's streams vary half as much). A placement from structure may not make the hottest "
                    + "node expected hotter than the even scheduler's over 32 rate models drawn so; 0 holds it to the "
                    + "structure's own rates.");

    public static final ConfigOption<TaskAssignment.WithinNode> WITHIN_NODE = ConfigOption.enumOption(
            "scheduler.within-node", TaskAssignment.WithinNode.class, TaskAssignment.WithinNode.PARTITION,
            "How a node's executors go onto its workers: `partition` continues the traffic-aware split over "
                    + "the workers (Storm passes tuples inside a worker in memory); `round-robin` is TurboStream's "
                    + "choice, which assumes a cheap channel between workers of a host.");

    public static final ConfigOption<Integer> TASK_THRESHOLD = ConfigOption.intOption(
            "scheduler.consolidation.task-threshold", 32, 1, 1_000_000,
            "TaskConsolidation (Algorithm 1) stops once fewer consolidated tasks than this remain.");

    public static final ConfigOption<Double> MAX_PARENT_SHARE = ConfigOption.doubleOption(
            "scheduler.consolidation.max-parent-share", 0.5, 0.01, 1_000_000,
            "Heaviest consolidated task, as a share of the smallest node's part of the load; a merge beyond it "
                    + "is skipped. Larger values consolidate more (less traffic) and balance worse.");

    public static final ConfigOption<Double> BALANCE_FACTOR = ConfigOption.doubleOption(
            "scheduler.balance-factor", 0.15, 0.001, 0.99,
            "How far a node's load may stray from its share of capacity (relative): TaskAssignment (Algorithm 2) "
                    + "keeps a split over nodes when each side is within this divided by the ceil(log2 nodes) levels of "
                    + "splits, and picks among those the split with the least traffic.");

    public static final ConfigOption<Integer> MAX_BFS_STARTS = ConfigOption.intOption(
            "scheduler.max-bfs-starts", 128, 1, 1_000_000,
            "Most start tasks a split tries (Algorithm 2 tries every task; this bounds scheduling time).");

    public static final ConfigOption<Boolean> REFINE = ConfigOption.booleanOption(
            "scheduler.refine", true,
            "Refine every split of Algorithm 2 by Kernighan-Lin/Fiduccia-Mattheyses moves, as TurboStream's "
                    + "published partitioner does; `false` runs the paper's BFS growth alone.");

    public static final ConfigOption<Integer> REFINE_ATTEMPTS = ConfigOption.intOption(
            "scheduler.refine.attempts-per-executor", 200, 0, 100_000,
            "After Algorithm 2, candidate changes per executor of the final k-way pass (an executor moving to "
                    + "another worker, or two exchanging theirs; a change is kept when it lowers the expected traffic "
                    + "without taking a node over 1 + `scheduler.balance-factor` times its share); 0 turns the pass off.");

    public static final ConfigOption<Long> REFINE_TIME_BUDGET_MS = ConfigOption.longOption(
            "scheduler.refine.time-budget-ms", 300, 0, 60_000,
            "Most CPU time of the scheduling thread the k-way refinement of one placement may use (it stops "
                    + "earlier once changes stop paying; CPU time, so that other processes on the machine do not "
                    + "change the placement). "
                    + "A topology with local-or-shuffle streams placed from structure shares it between three passes "
                    + "(over the task-pair graph, then for Storm's routing from that plan and from a deal of the "
                    + "components over the workers).");

    public static final ConfigOption<Long> REBALANCE_MIN_PERIOD_MS = ConfigOption.longOption(
            "scheduler.rebalance.min-period-ms", 600_000, 0, 86_400_000,
            "Least time between a topology's placement and its next rebalance: a redeploy stops every worker "
                    + "of the topology for 10-20 s (TurboStream §III).");

    public static final ConfigOption<Double> REBALANCE_MIN_GAIN = ConfigOption.doubleOption(
            "scheduler.rebalance.min-gain", 0.2, 0.0, 1.0,
            "A rebalance needs the new placement to cut the measured inter-node traffic by at least this share "
                    + "of the current one (hysteresis against flapping on noise).");

    public static final ConfigOption<Double> REBALANCE_MIN_TRAFFIC = ConfigOption.doubleOption(
            "scheduler.rebalance.min-traffic", 100.0, 0.0, 1e12,
            "Inter-node tuples per second below which a topology is never rebalanced: nothing to gain.");

    public static final ConfigOption<Double> REBALANCE_MAX_IMBALANCE = ConfigOption.doubleOption(
            "scheduler.rebalance.max-imbalance", 1.15, 1.0, 100.0,
            "A rebalance is refused when the new placement's most loaded node carries more than this times its "
                    + "share of the measured load.");

    public static final OptionGroup GROUP = new OptionGroup(
            "Scheduler placement",
            "scheduler.",
            "TurboStream's placement and the rebalance policy, without an engine (module `scheduler/core`). Read "
                    + "by `io.jetstream.scheduler.storm.JetStreamScheduler` when Nimbus starts and by "
                    + "`io.jetstream.scheduler.jstorm.JStormAssignmentPlanner` from the topology's configuration at "
                    + "submission (which uses the placement options only: JStorm never rebalances). See docs/scheduler.md.",
            List.of(STRUCTURE_RATES, STRUCTURE_RATE_SPREAD, WITHIN_NODE, TASK_THRESHOLD, MAX_PARENT_SHARE, BALANCE_FACTOR, MAX_BFS_STARTS, REFINE,
                    REFINE_ATTEMPTS, REFINE_TIME_BUDGET_MS,
                    REBALANCE_MIN_PERIOD_MS, REBALANCE_MIN_GAIN, REBALANCE_MIN_TRAFFIC, REBALANCE_MAX_IMBALANCE));

    /** The placement planner these options describe. */
    public static PlacementPlanner planner(JetStreamConfig config) {
        return new PlacementPlanner(
                config.get(TASK_THRESHOLD),
                config.get(MAX_PARENT_SHARE),
                config.get(BALANCE_FACTOR),
                config.get(MAX_BFS_STARTS),
                config.get(WITHIN_NODE),
                config.get(REFINE),
                new KWayRefinement(config.get(REFINE_ATTEMPTS), config.get(REFINE_TIME_BUDGET_MS) * 1_000_000L,
                        KWayRefinement.threadCpuClock()),
                config.get(STRUCTURE_RATES),
                config.get(STRUCTURE_RATE_SPREAD));
    }

    /** The rebalance policy these options describe. */
    public static RebalancePolicy rebalancePolicy(JetStreamConfig config) {
        return new RebalancePolicy(
                config.get(REBALANCE_MIN_PERIOD_MS),
                config.get(REBALANCE_MIN_GAIN),
                config.get(REBALANCE_MIN_TRAFFIC),
                config.get(REBALANCE_MAX_IMBALANCE));
    }
}
