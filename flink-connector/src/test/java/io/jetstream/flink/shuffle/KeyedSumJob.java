package io.jetstream.flink.shuffle;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.util.CloseableIterator;

/**
 * The job every shuffle ITCase runs: numbers 0..n-1 keyed by {@code i % keys}, summed per key with
 * a keyed reduce (a hash exchange between the TaskManagers), results collected to the client.
 */
final class KeyedSumJob {
    static final int PARALLELISM = 2;
    static final int KEYS = 97;

    /** Checkpoints completed in the reduce's downstream map, over all subtasks (MiniCluster is in-JVM). */
    static final AtomicInteger COMPLETED_CHECKPOINTS = new AtomicInteger();

    private KeyedSumJob() {}

    /** The sum per key of 0..n-1 grouped by {@code i % KEYS}, computed without Flink. */
    static Map<Integer, Long> expected(long n) {
        Map<Integer, Long> sums = new HashMap<>();
        for (long i = 0; i < n; i++) {
            sums.merge((int) (i % KEYS), i, Long::sum);
        }
        return sums;
    }

    /**
     * Runs the job on {@code cluster}.
     *
     * @param checkpointIntervalMs 0 for no checkpointing
     * @param recordsPerSecond source rate limit, so the job lives long enough to checkpoint
     */
    static Map<Integer, Long> run(
            MiniCluster cluster,
            RuntimeExecutionMode mode,
            long records,
            double recordsPerSecond,
            long checkpointIntervalMs,
            boolean unaligned) throws Exception {
        return run(cluster, mode, records, recordsPerSecond, checkpointIntervalMs, unaligned, env -> {});
    }

    /** {@link #run} with the environment further configured by {@code configure} (e.g. a buffer timeout). */
    static Map<Integer, Long> run(
            MiniCluster cluster,
            RuntimeExecutionMode mode,
            long records,
            double recordsPerSecond,
            long checkpointIntervalMs,
            boolean unaligned,
            Consumer<StreamExecutionEnvironment> configure) throws Exception {
        return execute(cluster, mode, records, recordsPerSecond, checkpointIntervalMs, unaligned, configure,
                new Keying(), "keyed-sum-" + mode);
    }

    /**
     * The streaming job with aligned or unaligned checkpoints and one injected failure: the map before
     * the hash exchange throws once, after {@code failAfter} records in subtask 0 and a completed checkpoint.
     */
    static Map<Integer, Long> runWithFailure(MiniCluster cluster, long records, double recordsPerSecond,
            long checkpointIntervalMs, long failAfter, boolean unaligned) throws Exception {
        return runCheckpointed(cluster, records, recordsPerSecond, checkpointIntervalMs, unaligned, new FailingOnce(failAfter));
    }

    /**
     * The streaming job with checkpoints, whose map before the hash exchange is {@code keying} (which
     * must map i to (i % KEYS, i)): where a test injects failures or watches the job's progress.
     */
    static Map<Integer, Long> runCheckpointed(MiniCluster cluster, long records, double recordsPerSecond,
            long checkpointIntervalMs, boolean unaligned, MapFunction<Long, Tuple2<Integer, Long>> keying) throws Exception {
        return execute(cluster, RuntimeExecutionMode.STREAMING, records, recordsPerSecond, checkpointIntervalMs, unaligned,
                env -> {}, keying, "keyed-sum-checkpointed");
    }

    /** The job itself: numbers, {@code keying}, the keyed reduce, the checkpoint counter, collected. */
    private static Map<Integer, Long> execute(MiniCluster cluster, RuntimeExecutionMode mode, long records,
            double recordsPerSecond, long checkpointIntervalMs, boolean unaligned,
            Consumer<StreamExecutionEnvironment> configure, MapFunction<Long, Tuple2<Integer, Long>> keying, String name)
            throws Exception {
        TestStreamEnvironment.setAsContext(cluster, PARALLELISM);
        try {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setRuntimeMode(mode);
            configure.accept(env);
            if (checkpointIntervalMs > 0) {
                env.enableCheckpointing(checkpointIntervalMs);
                env.getCheckpointConfig().enableUnalignedCheckpoints(unaligned);
            }
            DataGeneratorSource<Long> source = new DataGeneratorSource<>(
                    index -> index, records, RateLimiterStrategy.perSecond(recordsPerSecond), Types.LONG);
            Map<Integer, Long> finalSums = new HashMap<>();
            try (CloseableIterator<Tuple2<Integer, Long>> results = env
                    .fromSource(source, WatermarkStrategy.noWatermarks(), "numbers")
                    .map(keying)
                    .returns(Types.TUPLE(Types.INT, Types.LONG))
                    .keyBy(t -> t.f0)
                    .reduce((a, b) -> Tuple2.of(a.f0, a.f1 + b.f1))
                    .map(new CheckpointCounter())
                    .executeAndCollect(name)) {
                // Streaming emits a running sum per record: the largest is the final one.
                results.forEachRemaining(t -> finalSums.merge(t.f0, t.f1, Math::max));
            }
            return finalSums;
        } finally {
            TestStreamEnvironment.unsetAsContext();
        }
    }

    /** Maps i to (i % KEYS, i). */
    static final class Keying implements MapFunction<Long, Tuple2<Integer, Long>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Tuple2<Integer, Long> map(Long i) {
            return Tuple2.of((int) (i % KEYS), i);
        }
    }

    /** Maps i to (i % KEYS, i); throws once in subtask 0 after {@code failAfter} records and a completed checkpoint. */
    static final class FailingOnce extends RichMapFunction<Long, Tuple2<Integer, Long>> implements CheckpointListener {
        private static final long serialVersionUID = 1L;
        private final long failAfter;
        private long seen;
        private boolean checkpointed;

        FailingOnce(long failAfter) {
            this.failAfter = failAfter;
        }

        @Override
        public Tuple2<Integer, Long> map(Long i) {
            if (++seen >= failAfter / PARALLELISM && checkpointed
                    && getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0
                    && JetStreamFlushITCase.FAILED_ONCE.compareAndSet(false, true)) {
                throw new IllegalStateException("injected failure");
            }
            return Tuple2.of((int) (i % KEYS), i);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            checkpointed = true;
        }
    }

    /** Identity map that counts completed checkpoints. */
    static final class CheckpointCounter extends RichMapFunction<Tuple2<Integer, Long>, Tuple2<Integer, Long>>
            implements CheckpointListener {
        private static final long serialVersionUID = 1L;

        @Override
        public void open(OpenContext openContext) {}

        @Override
        public Tuple2<Integer, Long> map(Tuple2<Integer, Long> value) {
            return value;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            COMPLETED_CHECKPOINTS.incrementAndGet();
        }
    }
}
