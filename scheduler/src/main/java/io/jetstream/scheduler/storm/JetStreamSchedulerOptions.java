package io.jetstream.scheduler.storm;

import io.jetstream.core.config.ConfigOption;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.core.config.OptionGroup;
import io.jetstream.scheduler.placement.KWayRefinement;
import io.jetstream.scheduler.placement.PlacementPlanner;
import io.jetstream.scheduler.placement.TaskAssignment;
import java.util.List;

/**
 * Options of the Storm scheduler and of its traffic hook, under {@code jetstream.scheduler.}: read by
 * {@link JetStreamScheduler} when Nimbus starts and by {@link TrafficRecordingHook} in every task
 * (the hook sees the cluster's and the topology's configuration).
 */
public final class JetStreamSchedulerOptions {
    private JetStreamSchedulerOptions() {}

    /** Where the traffic graph comes from. */
    public enum Mode {
        /** Placement from the topology's structure (components, groupings, parallelism) only. */
        OFFLINE,
        /** Structure at first; measured traffic, once recorded, drives rebalancing. */
        ONLINE
    }

    /** Where the traffic hook's records go and Nimbus reads them. */
    public enum TrafficStoreKind {
        /** Files under {@code scheduler.traffic.dir}, which Nimbus and every worker must share. */
        DIRECTORY,
        /** The cluster's ZooKeeper, through Storm's own client: no shared mount. */
        ZOOKEEPER
    }

    /** What counts as a node, the unit TurboStream balances and keeps traffic inside. */
    public enum NodeKey {
        /** Supervisors on one host are one node (traffic between them never leaves the host). */
        HOST,
        /** Every supervisor is a node (one supervisor per host; also LocalCluster, where all hosts are localhost). */
        SUPERVISOR
    }

    public static final ConfigOption<Mode> MODE = ConfigOption.enumOption(
            "scheduler.mode", Mode.class, Mode.ONLINE,
            "`offline`: place from structure only; `online`: also rebalance running topologies from the traffic "
                    + "their tasks record (needs the hook, and `scheduler.traffic.dir` with the directory store).");

    public static final ConfigOption<NodeKey> NODE = ConfigOption.enumOption(
            "scheduler.node", NodeKey.class, NodeKey.HOST,
            "`host`: supervisors on one host form one node; `supervisor`: each supervisor is a node.");

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
            "Longest one k-way pass may run (it stops earlier once changes stop paying). A placement makes one "
                    + "pass; a topology with local-or-shuffle streams makes three (over the task-pair graph, then "
                    + "for Storm's routing from that plan and from a deal of the components over the workers).");

    public static final ConfigOption<TrafficStoreKind> TRAFFIC_STORE = ConfigOption.enumOption(
            "scheduler.traffic.store", TrafficStoreKind.class, TrafficStoreKind.DIRECTORY,
            "Where the traffic hook writes and Nimbus reads: `directory` (`scheduler.traffic.dir`, shared by Nimbus "
                    + "and every worker) or `zookeeper` (the cluster's ZooKeeper under "
                    + "`<storm.zookeeper.root>/jetstream-traffic`, through Storm's own client: no shared mount; a "
                    + "task's record must stay under 1 MB, about 40,000 target tasks).");

    public static final ConfigOption<String> TRAFFIC_DIR = ConfigOption.optionalStringOption(
            "scheduler.traffic.dir",
            "With the directory store: the directory the traffic hook writes to and Nimbus reads from (one file "
                    + "per task under a folder per topology). It must be the same directory for Nimbus and every "
                    + "worker: a local path on a single host, a shared mount otherwise. Empty: no traffic is recorded "
                    + "and online mode never rebalances.");

    public static final ConfigOption<Long> TRAFFIC_WINDOW_MS = ConfigOption.longOption(
            "scheduler.traffic.window-ms", 10_000, 100, 3_600_000,
            "The monitoring cycle T: every window each task turns its tuple counts per target task and its "
                    + "CPU time into rates and writes them.");

    public static final ConfigOption<Double> TRAFFIC_SMOOTHING = ConfigOption.doubleOption(
            "scheduler.traffic.smoothing", 0.5, 0.01, 1.0,
            "Weight of the newest window in the recorded rates (exponential decay: a window's weight halves "
                    + "every ln(2)/-ln(1-smoothing) windows; 0.5 means one window). 1 keeps only the newest.");

    public static final ConfigOption<Long> TRAFFIC_STALE_MS = ConfigOption.longOption(
            "scheduler.traffic.stale-after-ms", 120_000, 1_000, 86_400_000,
            "Nimbus ignores a task's record older than this (a task that died or stopped emitting).");

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
            "Storm scheduler",
            "scheduler.",
            "Read by `io.jetstream.scheduler.storm.JetStreamScheduler` when Nimbus starts (selected with "
                    + "`storm.scheduler`) and, for `scheduler.traffic.*`, by "
                    + "`io.jetstream.scheduler.storm.TrafficRecordingHook` in every task (registered with "
                    + "`topology.auto.task.hooks`). See docs/scheduler.md.",
            List.of(MODE, NODE, WITHIN_NODE, TASK_THRESHOLD, MAX_PARENT_SHARE, BALANCE_FACTOR, MAX_BFS_STARTS, REFINE,
                    REFINE_ATTEMPTS, REFINE_TIME_BUDGET_MS,
                    TRAFFIC_STORE, TRAFFIC_DIR, TRAFFIC_WINDOW_MS, TRAFFIC_SMOOTHING, TRAFFIC_STALE_MS,
                    REBALANCE_MIN_PERIOD_MS, REBALANCE_MIN_GAIN, REBALANCE_MIN_TRAFFIC, REBALANCE_MAX_IMBALANCE));

    /**
     * The placement planner these options describe (Storm's scheduler and the JStorm assignment
     * helper alike).
     */
    public static PlacementPlanner planner(JetStreamConfig config) {
        return new PlacementPlanner(
                config.get(TASK_THRESHOLD),
                config.get(MAX_PARENT_SHARE),
                config.get(BALANCE_FACTOR),
                config.get(MAX_BFS_STARTS),
                config.get(WITHIN_NODE),
                config.get(REFINE),
                new KWayRefinement(config.get(REFINE_ATTEMPTS), config.get(REFINE_TIME_BUDGET_MS) * 1_000_000L,
                        System::nanoTime));
    }
}
