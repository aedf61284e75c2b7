package io.jetstream.flink.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.config.ConfigScope;
import io.jetstream.flink.flush.FlushOptions;
import io.jetstream.flink.shuffle.FlinkClusters.Shuffle;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a user's own flush settings still mean under JetStream's flush control, in the real engine
 * (two TaskManagers of one slot each, the keyed-sum job): a buffer timeout of 0 still sends every
 * record in a flush of its own, and {@code flush.enabled: false} leaves flushing to Flink alone (no
 * flusher thread, no flush decision) while the shuffle's decorators still carry the records.
 */
class FlushControlSwitchesITCase {
    private static final long RECORDS = 10_000;

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aBufferTimeoutOfZeroStillSendsEveryRecordInAFlushOfItsOwn() throws Exception {
        CollectingMetricReporter.reset();
        Configuration conf = FlinkClusters.configuration(Shuffle.JETSTREAM);
        CollectingMetricReporter.configure(conf);
        MiniCluster cluster = FlinkClusters.start(conf);
        Map<Integer, Long> sums;
        try {
            sums = KeyedSumJob.run(cluster, RuntimeExecutionMode.STREAMING, RECORDS, 5_000, 0, false,
                    env -> env.setBufferTimeout(0));
        } finally {
            cluster.close();
        }
        assertEquals(KeyedSumJob.expected(RECORDS), sums);
        long recordsOut = CollectingMetricReporter.sum("recordsOut");
        assertTrue(recordsOut >= RECORDS, "records written through JetStream partitions: " + recordsOut);
        // A flush is counted under one reason when it finds records pending, so with Flink flushing after
        // every record each record is counted in exactly one flush (a racy read may add one more): fewer
        // flushes than records would mean records held back and sent together.
        long flushes = CollectingMetricReporter.sumEndingWith("flushesFlink")
                + CollectingMetricReporter.sumEndingWith("flushesSize")
                + CollectingMetricReporter.sumEndingWith("flushesDeadline")
                + CollectingMetricReporter.sumEndingWith("flushesIdle");
        assertTrue(flushes >= recordsOut,
                "every record left in a flush of its own: " + flushes + " flushes for " + recordsOut + " records");
        assertTrue(CollectingMetricReporter.sumEndingWith("flushesFlink") > 0, "Flink's own flushes went through");
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void flushControlSwitchedOffLeavesFlushingToFlink() throws Exception {
        CollectingMetricReporter.reset();
        Configuration conf = FlinkClusters.configuration(Shuffle.JETSTREAM);
        conf.setString(ConfigScope.FLINK.prefix() + FlushOptions.ENABLED.key(), "false");
        CollectingMetricReporter.configure(conf);
        Map<Integer, Long> sums;
        MiniCluster cluster = FlinkClusters.start(conf);
        FlusherThreads flushers = FlusherThreads.watch();
        try {
            sums = KeyedSumJob.run(cluster, RuntimeExecutionMode.STREAMING, RECORDS, 5_000, 100, false);
        } finally {
            flushers.close();
            cluster.close();
        }
        assertEquals(KeyedSumJob.expected(RECORDS), sums);
        assertEquals(0, flushers.mostAlive(), "no flusher thread of flush control ran");
        long registered = CollectingMetricReporter.COUNTERS.stream()
                .filter(r -> r.identifier().contains("." + io.jetstream.flink.flush.FlushMetrics.GROUP + "."))
                .count();
        assertEquals(0, registered, "no flush control was attached to any partition");
        assertTrue(CollectingMetricReporter.sum("recordsOut") >= RECORDS,
                "the records still went through JetStream's partitions");
    }
}
