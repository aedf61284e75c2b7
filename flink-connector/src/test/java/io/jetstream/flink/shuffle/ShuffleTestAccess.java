package io.jetstream.flink.shuffle;

import java.util.Map;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;

/** The shuffle ITCases' clusters, metric reporter and keyed job, for the ITCases of other packages. */
public final class ShuffleTestAccess {
    private ShuffleTestAccess() {}

    /** Two one-slot TaskManagers on JetStream's shuffle, metrics collected; the reporter is reset. */
    public static Configuration jetStreamConfiguration() {
        CollectingMetricReporter.reset();
        KeyedSumJob.COMPLETED_CHECKPOINTS.set(0);
        Configuration conf = FlinkClusters.configuration(FlinkClusters.Shuffle.JETSTREAM);
        CollectingMetricReporter.configure(conf);
        return conf;
    }

    public static MiniCluster start(Configuration conf) throws Exception {
        return FlinkClusters.start(conf);
    }

    /** Sum of the JetStream counters named {@code name} over all TaskManagers and tasks. */
    public static long sum(String name) {
        return CollectingMetricReporter.sum(name);
    }

    /** Sum of the JetStream counters whose identifier ends with {@code .<suffix>} (per-gate counters). */
    public static long sumEndingWith(String suffix) {
        return CollectingMetricReporter.sumEndingWith(suffix);
    }

    public static Map<Integer, Long> keyedSum(MiniCluster cluster, long records, double rate, long checkpointMs,
            boolean unaligned) throws Exception {
        return KeyedSumJob.run(cluster, RuntimeExecutionMode.STREAMING, records, rate, checkpointMs, unaligned);
    }

    public static Map<Integer, Long> expectedSums(long records) {
        return KeyedSumJob.expected(records);
    }

    public static int completedCheckpoints() {
        return KeyedSumJob.COMPLETED_CHECKPOINTS.get();
    }
}
