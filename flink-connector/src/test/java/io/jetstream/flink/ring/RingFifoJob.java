package io.jetstream.flink.ring;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * A job whose every channel is checked for order and content: sources emit 0..n-1 ascending per
 * subtask, tagged with their subtask and a payload derived from the number; after a hash exchange a
 * checker verifies, per upstream subtask, that numbers arrive strictly ascending (FIFO per channel)
 * and that each payload matches its number (intact). Sources and checkers are in separate slot
 * sharing groups, so on two one-slot TaskManagers every channel crosses TaskManagers.
 */
final class RingFifoJob {
    static final AtomicLong RECEIVED = new AtomicLong();
    static final AtomicLong VIOLATIONS = new AtomicLong();
    static final AtomicReference<String> FIRST_VIOLATION = new AtomicReference<>();
    /** Checkpoints the checkers saw complete (over both, MiniCluster is in this JVM). */
    static final AtomicLong CHECKPOINTS = new AtomicLong();

    private RingFifoJob() {}

    static void reset() {
        RECEIVED.set(0);
        VIOLATIONS.set(0);
        FIRST_VIOLATION.set(null);
        CHECKPOINTS.set(0);
    }

    static String payload(long i) {
        return "record-" + i + "-" + Long.toHexString(i * 0x9E3779B97F4A7C15L);
    }

    static void build(StreamExecutionEnvironment env, long records, double rate) {
        build(env, records, rate, false);
    }

    /** @param slow the checker works 2 ms every 20 records, so that the job runs back-pressured */
    static void build(StreamExecutionEnvironment env, long records, double rate, boolean slow) {
        DataGeneratorSource<Long> source = new DataGeneratorSource<>(
                index -> index, records, RateLimiterStrategy.perSecond(rate), Types.LONG);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "numbers")
                .slotSharingGroup("producers")
                .map(new Tag())
                .returns(Types.TUPLE(Types.INT, Types.LONG, Types.STRING))
                .slotSharingGroup("producers")
                .keyBy(t -> (int) (t.f1 % 7))
                .map(new Check(slow))
                .returns(Types.LONG)
                .slotSharingGroup("consumers")
                .sinkTo(new DiscardingSink<>())
                .slotSharingGroup("consumers");
    }

    static final class Tag extends RichMapFunction<Long, Tuple3<Integer, Long, String>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Tuple3<Integer, Long, String> map(Long i) {
            return Tuple3.of(getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(), i, payload(i));
        }
    }

    static final class Check extends RichMapFunction<Tuple3<Integer, Long, String>, Long> implements CheckpointListener {
        private static final long serialVersionUID = 1L;
        private final Map<Integer, Long> last = new HashMap<>();
        private final boolean slow;
        private long seen;

        Check(boolean slow) {
            this.slow = slow;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            CHECKPOINTS.incrementAndGet();
        }

        @Override
        public Long map(Tuple3<Integer, Long, String> t) {
            Long previous = last.put(t.f0, t.f1);
            if (previous != null && previous >= t.f1) {
                violation("from subtask " + t.f0 + ": " + t.f1 + " after " + previous);
            }
            if (!payload(t.f1).equals(t.f2)) {
                violation("payload of " + t.f1 + " is " + t.f2);
            }
            RECEIVED.incrementAndGet();
            if (slow && ++seen % 20 == 0) {
                try {
                    Thread.sleep(2); // the workload, not a wait: a slow consumer, so that the job runs back-pressured
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return t.f1;
        }

        private static void violation(String what) {
            VIOLATIONS.incrementAndGet();
            FIRST_VIOLATION.compareAndSet(null, what);
        }
    }
}
