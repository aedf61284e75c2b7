package io.jetstream.flink.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.flink.shuffle.FlinkClusters.Shuffle;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.BatchShuffleMode;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The same keyed sum as a batch job (adaptive batch scheduler, blocking or hybrid exchanges): the
 * case where a writer that is not a {@code ResultPartition} breaks Flink's watermark routing.
 */
class JetStreamShuffleBatchITCase {
    private static final long RECORDS = 100_000;

    @ParameterizedTest
    @EnumSource(value = BatchShuffleMode.class, names = {"ALL_EXCHANGES_BLOCKING", "ALL_EXCHANGES_HYBRID_FULL"})
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void batchKeyedSumIsIdenticalToTheStockShuffle(BatchShuffleMode shuffleMode) throws Exception {
        Map<Integer, Long> expected = KeyedSumJob.expected(RECORDS);
        Map<Integer, Long> stock = run(Shuffle.STOCK, shuffleMode);
        assertEquals(expected, stock, "stock shuffle");
        Map<Integer, Long> jetstream = run(Shuffle.JETSTREAM, shuffleMode);
        assertEquals(stock, jetstream, "JetStream shuffle vs stock shuffle");
        long recordsOut = CollectingMetricReporter.sum("recordsOut");
        assertTrue(recordsOut >= RECORDS, "records written through JetStream partitions: " + recordsOut);
    }

    private static Map<Integer, Long> run(Shuffle shuffle, BatchShuffleMode shuffleMode) throws Exception {
        CollectingMetricReporter.reset();
        Configuration conf = FlinkClusters.configuration(shuffle);
        conf.set(ExecutionOptions.BATCH_SHUFFLE_MODE, shuffleMode);
        CollectingMetricReporter.configure(conf);
        MiniCluster cluster = FlinkClusters.start(conf);
        try {
            return KeyedSumJob.run(cluster, RuntimeExecutionMode.BATCH, RECORDS, 1_000_000, 0, false);
        } finally {
            cluster.close();
        }
    }
}
