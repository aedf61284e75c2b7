package io.jetstream.flink.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.flink.shuffle.FlinkClusters.Shuffle;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.legacy.DiscardingSink;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Flush control in the real engine (two TaskManagers of one slot each: every channel remote):
 * records intact and in order per channel under a slow consumer (back-pressure) with no flusher
 * thread spinning, and exactly-once across an injected failure with aligned and with unaligned
 * checkpoints; all with JetStream's flush decisions seen in the metrics.
 */
class JetStreamFlushITCase {
    private static final int PARALLELISM = 2;

    /** Per (map subtask, source subtask): the last sequence number seen; a gap or reorder is recorded. */
    static final Map<String, Long> LAST = new ConcurrentHashMap<>();
    static final AtomicLong RECEIVED = new AtomicLong();
    static final AtomicLong VIOLATIONS = new AtomicLong();
    static final AtomicBoolean FAILED_ONCE = new AtomicBoolean();

    /** The flusher threads together may use at most this share of one core while the job is back-pressured. */
    private static final double MAX_FLUSHER_CPU_SHARE = 0.25;

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void slowConsumerGetsEveryRecordIntactAndInOrderPerChannel() throws Exception {
        long records = 60_000;
        LAST.clear();
        RECEIVED.set(0);
        VIOLATIONS.set(0);
        CollectingMetricReporter.reset();
        Configuration conf = FlinkClusters.configuration(Shuffle.JETSTREAM);
        CollectingMetricReporter.configure(conf);
        MiniCluster cluster = FlinkClusters.start(conf);
        FlusherThreads flushers = FlusherThreads.watch();
        try {
            TestStreamEnvironment.setAsContext(cluster, PARALLELISM);
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setRuntimeMode(RuntimeExecutionMode.STREAMING);
            // Each record carries its sequence number and a checksum of it: (seq, seq * 31 + 7, -seq).
            DataGeneratorSource<Tuple3<Long, Long, Long>> source = new DataGeneratorSource<>(
                    i -> Tuple3.of(i, i * 31 + 7, -i), records, RateLimiterStrategy.perSecond(30_000),
                    Types.TUPLE(Types.LONG, Types.LONG, Types.LONG));
            env.fromSource(source, WatermarkStrategy.noWatermarks(), "numbers")
                    .map(new TagWithSource()).returns(Types.TUPLE(Types.INT, Types.TUPLE(Types.LONG, Types.LONG, Types.LONG)))
                    .rebalance()
                    .map(new SlowCheckingMap()).returns(Types.LONG)
                    .sinkTo(new org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink<>());
            env.execute("flush-fifo-backpressure");
        } finally {
            flushers.close();
            TestStreamEnvironment.unsetAsContext();
            cluster.close();
        }
        assertEquals(records, RECEIVED.get(), "every record arrived once");
        assertEquals(0, VIOLATIONS.get(), "no record corrupted, out of order or duplicated on any channel");
        long ours = CollectingMetricReporter.sumEndingWith("flushesSize")
                + CollectingMetricReporter.sumEndingWith("flushesDeadline")
                + CollectingMetricReporter.sumEndingWith("flushesIdle");
        assertTrue(ours > 0, "JetStream made flush decisions: " + ours);
        assertEquals(FlinkClusters.TASK_MANAGERS, flushers.mostAlive(), "one flusher thread per TaskManager");
        assertTrue(flushers.cpuShareOfOneCore() < MAX_FLUSHER_CPU_SHARE,
                "the flusher threads do not spin while the job is back-pressured: they used "
                        + flushers.cpuShareOfOneCore() + " of one core");
        FlinkClusters.assertNoFlusherThreads();
    }

    @ParameterizedTest(name = "unaligned={0}")
    @ValueSource(booleans = {false, true})
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void exactlyOnceAcrossAFailure(boolean unaligned) throws Exception {
        long records = 40_000;
        FAILED_ONCE.set(false);
        CollectingMetricReporter.reset();
        Configuration conf = FlinkClusters.configuration(Shuffle.JETSTREAM);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 2);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        CollectingMetricReporter.configure(conf);
        MiniCluster cluster = FlinkClusters.start(conf);
        Map<Integer, Long> sums;
        try {
            sums = KeyedSumJob.runWithFailure(cluster, records, 20_000, 100, records / 2, unaligned);
        } finally {
            cluster.close();
        }
        assertTrue(FAILED_ONCE.get(), "the failure was injected");
        assertEquals(KeyedSumJob.expected(records), sums, "exactly-once sums after the restart");
        long ours = CollectingMetricReporter.sumEndingWith("flushesSize")
                + CollectingMetricReporter.sumEndingWith("flushesDeadline")
                + CollectingMetricReporter.sumEndingWith("flushesIdle");
        assertTrue(ours > 0, "JetStream made flush decisions: " + ours);
    }

    /** Tags each record with its source subtask, for the per-channel order check. */
    static final class TagWithSource extends RichMapFunction<Tuple3<Long, Long, Long>, Tuple2<Integer, Tuple3<Long, Long, Long>>> {
        @Override
        public Tuple2<Integer, Tuple3<Long, Long, Long>> map(Tuple3<Long, Long, Long> value) {
            return Tuple2.of(getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(), value);
        }
    }

    /**
     * Checks integrity and per-channel order; sleeps 2 ms every 20 records, so that a subtask takes at
     * most 10,000 records/s and the two together less than the source's 30,000/s: the job runs
     * back-pressured.
     */
    static final class SlowCheckingMap extends RichMapFunction<Tuple2<Integer, Tuple3<Long, Long, Long>>, Long> {
        private long seen;

        @Override
        public Long map(Tuple2<Integer, Tuple3<Long, Long, Long>> value) throws Exception {
            Tuple3<Long, Long, Long> r = value.f1;
            if (r.f1 != r.f0 * 31 + 7 || r.f2 != -r.f0) {
                VIOLATIONS.incrementAndGet();
            }
            String channel = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() + "<-" + value.f0;
            Long last = LAST.put(channel, r.f0);
            if (last != null && last >= r.f0) {
                VIOLATIONS.incrementAndGet();
            }
            RECEIVED.incrementAndGet();
            if (++seen % 20 == 0) {
                Thread.sleep(2); // the workload, not a wait: a slow sink, so that the job runs back-pressured
            }
            return r.f0;
        }
    }
}
