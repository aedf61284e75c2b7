package io.jetstream.flink.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.flink.shuffle.FlinkClusters.Shuffle;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A keyed streaming job with checkpointing, aligned and unaligned, on two TaskManagers of one slot
 * each (remote channels over Flink's Netty), run once on the stock shuffle and once on JetStream's:
 * both must produce the exact sums, checkpoints must complete, and JetStream's decorators must have
 * carried every record (its counters, read through a real metric reporter).
 */
class JetStreamShuffleStreamingITCase {
    private static final long RECORDS = 40_000;
    private static final double RATE = 20_000; // about two seconds: room for several checkpoints
    private static final long CHECKPOINT_INTERVAL_MS = 100;

    @ParameterizedTest(name = "unaligned={0}")
    @ValueSource(booleans = {false, true})
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void keyedSumIsIdenticalToTheStockShuffle(boolean unaligned) throws Exception {
        Map<Integer, Long> expected = KeyedSumJob.expected(RECORDS);

        Map<Integer, Long> stock = run(Shuffle.STOCK, unaligned);
        assertEquals(expected, stock, "stock shuffle");
        assertEquals(0, CollectingMetricReporter.COUNTERS.size(), "the stock shuffle registers no JetStream metrics");

        Map<Integer, Long> jetstream = run(Shuffle.JETSTREAM, unaligned);
        assertEquals(stock, jetstream, "JetStream shuffle vs stock shuffle");
        // Every record crosses the hash exchange once, and the sink's collect path adds none of ours:
        // the map before keyBy writes RECORDS records into JetStream partitions, plus the reduce's output.
        long recordsOut = CollectingMetricReporter.sum("recordsOut");
        assertTrue(recordsOut >= RECORDS, "records written through JetStream partitions: " + recordsOut);
        assertTrue(CollectingMetricReporter.sum("bytesIn") > 0, "bytes read through JetStream gates");
        long ours = CollectingMetricReporter.sumEndingWith("flushesSize")
                + CollectingMetricReporter.sumEndingWith("flushesDeadline")
                + CollectingMetricReporter.sumEndingWith("flushesIdle");
        assertTrue(ours > 0, "JetStream's flush control made flush decisions: " + ours);
        FlinkClusters.assertNoFlusherThreads();
    }

    private static Map<Integer, Long> run(Shuffle shuffle, boolean unaligned) throws Exception {
        CollectingMetricReporter.reset();
        KeyedSumJob.COMPLETED_CHECKPOINTS.set(0);
        Configuration conf = FlinkClusters.configuration(shuffle);
        CollectingMetricReporter.configure(conf);
        MiniCluster cluster = FlinkClusters.start(conf);
        try {
            Map<Integer, Long> result = KeyedSumJob.run(
                    cluster, RuntimeExecutionMode.STREAMING, RECORDS, RATE, CHECKPOINT_INTERVAL_MS, unaligned);
            assertTrue(KeyedSumJob.COMPLETED_CHECKPOINTS.get() > 0,
                    shuffle + ": no checkpoint completed while the job ran");
            return result;
        } finally {
            cluster.close();
        }
    }
}
