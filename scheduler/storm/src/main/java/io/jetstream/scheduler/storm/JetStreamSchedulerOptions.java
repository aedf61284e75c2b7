package io.jetstream.scheduler.storm;

import io.jetstream.core.config.ConfigOption;
import io.jetstream.core.config.OptionGroup;
import io.jetstream.scheduler.placement.PlacementOptions;
import java.util.List;

/**
 * Options of the Storm scheduler and of its traffic hook that only Storm has (the mode, what a node
 * is, where traffic is recorded and how), under {@code jetstream.scheduler.} next to the engine-free
 * {@link PlacementOptions}: both are read ({@link #groups()}) by {@link JetStreamScheduler} when Nimbus
 * starts and by {@link TrafficRecordingHook} in every task (the hook sees the cluster's and the
 * topology's configuration).
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
                    + "CPU time into rates and writes them. Nimbus re-plans a topology from its records only once "
                    + "every task has recorded a window ending at least T (Nimbus's value) after the placement: "
                    + "traffic measured under that placement.");

    public static final ConfigOption<Double> TRAFFIC_SMOOTHING = ConfigOption.doubleOption(
            "scheduler.traffic.smoothing", 0.5, 0.01, 1.0,
            "Weight of the newest window in the recorded rates (exponential decay: a window's weight halves "
                    + "every ln(2)/-ln(1-smoothing) windows; 0.5 means one window). 1 keeps only the newest.");

    public static final ConfigOption<Long> TRAFFIC_STALE_MS = ConfigOption.longOption(
            "scheduler.traffic.stale-after-ms", 120_000, 1_000, 86_400_000,
            "Nimbus ignores a task's record older than this (a task that died or stopped emitting).");





    public static final OptionGroup GROUP = new OptionGroup(
            "Storm scheduler",
            "scheduler.",
            "Read by `io.jetstream.scheduler.storm.JetStreamScheduler` when Nimbus starts (selected with "
                    + "`storm.scheduler`) and, for `scheduler.traffic.*`, by "
                    + "`io.jetstream.scheduler.storm.TrafficRecordingHook` in every task (registered with "
                    + "`topology.auto.task.hooks`); the placement options under the same prefix are the "
                    + "engine-free ones above. See docs/scheduler.md.",
            List.of(MODE, NODE, TRAFFIC_STORE, TRAFFIC_DIR, TRAFFIC_WINDOW_MS, TRAFFIC_SMOOTHING, TRAFFIC_STALE_MS));

    /** Every group the scheduler and its hook read: the engine-free placement options and Storm's own. */
    public static OptionGroup[] groups() {
        return new OptionGroup[] {PlacementOptions.GROUP, GROUP};
    }
}
