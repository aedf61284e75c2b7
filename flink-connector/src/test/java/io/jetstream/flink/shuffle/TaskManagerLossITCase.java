package io.jetstream.flink.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.flink.shuffle.FlinkClusters.Shuffle;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A TaskManager lost in the middle of a checkpointed job on JetStream's shuffle (flush control on):
 * one of the two TaskManagers is terminated once the job has completed a checkpoint and is moving
 * records between them, a replacement joins (as Kubernetes or YARN would start one), and the job
 * restarts from its checkpoint and ends with the exact sums: nothing lost, nothing counted twice.
 */
class TaskManagerLossITCase {
    private static final long RECORDS = 60_000;
    private static final double RATE = 15_000;

    /** Counted down by the keying map once a checkpoint completed and records flow. */
    static volatile CountDownLatch checkpointedAndRunning;
    /** Opened instances of the keying map over all attempts: more than the parallelism after a restart. */
    static final AtomicInteger OPENED = new AtomicInteger();

    @ParameterizedTest(name = "unaligned={0}")
    @ValueSource(booleans = {false, true})
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aLostTaskManagerRestartsTheJobFromItsCheckpointExactlyOnce(boolean unaligned) throws Exception {
        checkpointedAndRunning = new CountDownLatch(1);
        OPENED.set(0);
        Configuration conf = FlinkClusters.configuration(Shuffle.JETSTREAM);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        MiniCluster cluster = FlinkClusters.start(conf);
        Map<Integer, Long> sums;
        try {
            CompletableFuture<Map<Integer, Long>> job = CompletableFuture.supplyAsync(() -> {
                try {
                    return KeyedSumJob.runCheckpointed(cluster, RECORDS, RATE, 100, unaligned, new SignallingKeying());
                } catch (Exception e) {
                    throw new IllegalStateException("the job failed", e);
                }
            });
            assertTrue(checkpointedAndRunning.await(2, TimeUnit.MINUTES), "the job completed a checkpoint within 2 minutes");
            cluster.terminateTaskManager(0).get(1, TimeUnit.MINUTES);
            cluster.startTaskManager();
            sums = job.get(3, TimeUnit.MINUTES);
        } finally {
            cluster.close();
        }
        assertTrue(OPENED.get() > KeyedSumJob.PARALLELISM, "the job restarted after the TaskManager was lost: "
                + OPENED.get() + " map instances opened");
        assertEquals(KeyedSumJob.expected(RECORDS), sums, "exactly-once sums after the restart");
        FlinkClusters.assertNoFlusherThreads();
    }

    /** Maps i to (i % KEYS, i); signals once a checkpoint completed and a quarter of its share went by. */
    static final class SignallingKeying extends RichMapFunction<Long, Tuple2<Integer, Long>> implements CheckpointListener {
        private static final long serialVersionUID = 1L;
        private boolean checkpointed;
        private long seen;

        @Override
        public void open(OpenContext openContext) {
            OPENED.incrementAndGet();
        }

        @Override
        public Tuple2<Integer, Long> map(Long i) {
            if (checkpointed && ++seen == RECORDS / KeyedSumJob.PARALLELISM / 4) {
                checkpointedAndRunning.countDown();
            }
            return Tuple2.of((int) (i % KeyedSumJob.KEYS), i);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            checkpointed = true;
        }
    }
}
