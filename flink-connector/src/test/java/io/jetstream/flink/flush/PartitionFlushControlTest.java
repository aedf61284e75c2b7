package io.jetstream.flink.flush;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.BatchSettings;
import io.jetstream.core.api.ChannelFlushControl;
import io.jetstream.core.api.QosOptions;
import io.jetstream.core.api.QosSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The per-subpartition flush decisions in virtual time, over a queue that behaves as Flink's
 * pipelined subpartition does for flush control: written bytes wait until flushed, a consumer takes
 * flushed bytes at a given speed.
 */
class PartitionFlushControlTest {
    private static final long US = 1_000;
    private static final long MS = 1_000_000;
    private static final int RECORD = 20;

    /** One subpartition's queue: written, flushed, taken byte counts; a consumer draining at a rate. */
    private static final class Queue implements FlushTarget {
        long written;
        long flushed;
        double taken;
        long flushes;
        final double bytesPerNano;

        Queue(double bytesPerSecond) {
            this.bytesPerNano = bytesPerSecond / 1e9;
        }

        void advance(long nanos) {
            taken = Math.min(flushed, taken + nanos * bytesPerNano);
        }

        @Override
        public int numberOfSubpartitions() {
            return 1;
        }

        @Override
        public void flush(int i) {
            if (flushed < written) {
                flushes++;
            }
            flushed = written;
        }

        @Override
        public long bytesInQueue(int i) {
            return written - (long) taken;
        }
    }

    private long now;

    private PartitionFlushControl control(Queue q, double maxDelayMs) {
        FlushSettings settings = new FlushSettings(true, (long) (maxDelayMs * MS), 50e-6, true, 5 * MS,
                BatchSettings.defaults(), QosSettings.from(JetStreamConfig.load(ConfigScope.FLINK, Map.of(), QosOptions.GROUP)));
        return newControl(q, settings, () -> now);
    }

    /** A partition's control over core's channel controls, as the TaskManager's scheduler builds it (without its thread). */
    private static PartitionFlushControl newControl(Queue q, FlushSettings settings, java.util.function.LongSupplier clock) {
        return new PartitionFlushControl("test", q, i -> new ChannelFlushControl(settings.control(), clock, deadline -> {}),
                settings.maxDelayNanos(), clock);
    }

    /** Runs {@code records} at {@code rate}, calling the flusher every {@code tickNanos}; returns the longest wait. */
    private long run(PartitionFlushControl c, Queue q, double rate, int records, long tickNanos) {
        long gap = (long) (1e9 / rate);
        long nextTick = now + tickNanos;
        long longestUnflushed = 0;
        long oldestUnflushed = -1;
        for (int r = 0; r < records; r++) {
            long until = now + gap;
            while (nextTick <= until) {
                q.advance(nextTick - now);
                now = nextTick;
                c.onDeadline(now);
                nextTick += tickNanos;
                if (q.flushed == q.written) {
                    oldestUnflushed = -1;
                }
            }
            q.advance(until - now);
            now = until;
            q.written += RECORD;
            if (oldestUnflushed < 0) {
                oldestUnflushed = now;
            }
            c.onRecord(0, RECORD);
            if (q.flushed == q.written) {
                longestUnflushed = Math.max(longestUnflushed, now - oldestUnflushed);
                oldestUnflushed = -1;
            } else {
                longestUnflushed = Math.max(longestUnflushed, now - oldestUnflushed);
            }
        }
        return longestUnflushed;
    }

    /**
     * A back-pressured producer: bursts of 200 records 200 ns apart, then a 5 ms wait for a buffer,
     * 40 times; the flusher ticks every 100 µs. Returns records per flush with data.
     */
    private double burstsBetweenWaits(boolean signalled) {
        Queue q = new Queue(50e6);
        PartitionFlushControl c = control(q, 1.0);
        int records = 0;
        for (int burst = 0; burst < 40; burst++) {
            if (signalled && burst > 0) {
                c.onUnavailable(); // the task found no buffer before this burst
            }
            run(c, q, 5e6, 200, 100 * US);
            records += 200;
            long waitUntil = now + 5 * MS;
            while (now < waitUntil) {
                q.advance(100 * US);
                now += 100 * US;
                c.onDeadline(now);
            }
        }
        return (double) records / q.flushes;
    }

    @Test
    void aBackPressuredProducersBurstsLeaveInBatchesNotARecordOrTwoPerFlush() {
        double unsignalled = burstsBetweenWaits(false);
        now = 0;
        double signalled = burstsBetweenWaits(true);
        assertTrue(unsignalled < 5, "without the signal the waits read as a low rate: " + unsignalled + " records per flush");
        assertTrue(signalled >= 20, "told of the back-pressure, the bursts leave in batches: " + signalled + " records per flush");
    }

    @Test
    void lowRateFlushesEveryRecordAtOnce() {
        Queue q = new Queue(50e6);
        PartitionFlushControl c = control(q, 1);
        run(c, q, 500, 500, MS);
        assertEquals(q.written, q.flushed, "nothing left pending");
        assertTrue(c.flushes(PartitionFlushControl.Reason.SIZE) >= 490, "a flush per record: " + c.flushes(PartitionFlushControl.Reason.SIZE));
        assertEquals(0, c.flushes(PartitionFlushControl.Reason.DEADLINE));
    }

    @Test
    void highRateBatchesWithinTheBound() {
        Queue q = new Queue(50e6);
        PartitionFlushControl c = control(q, 1);
        long longest = run(c, q, 500_000, 100_000, 100 * US);
        long flushes = q.flushes;
        assertTrue(flushes < 100_000 / 10, "batches of more than 10 records on average: " + flushes + " flushes");
        assertTrue(longest <= 1 * MS + 100 * US, "no record waited much past the bound (flusher tick 100 us): " + longest);
        assertTrue(c.flushes(PartitionFlushControl.Reason.SIZE) > 0);
    }

    @Test
    void atHighRatesTheClockIsReadForAFewRecordsAndAtLowRatesForEach() {
        long[] reads = new long[1];
        Queue fast = new Queue(50e6);
        FlushSettings settings = new FlushSettings(true, MS, 50e-6, true, 5 * MS, BatchSettings.defaults(),
                QosSettings.from(JetStreamConfig.load(ConfigScope.FLINK, Map.of(), QosOptions.GROUP)));
        PartitionFlushControl c = newControl(fast, settings, () -> {
            reads[0]++;
            return now;
        });
        run(c, fast, 2_000_000, 200_000, 100 * US);
        assertTrue(reads[0] < 200_000 / 4, reads[0] + " clock reads for 200,000 records at 2,000,000/s");
        assertTrue(c.flushes(PartitionFlushControl.Reason.SIZE) > 0 && fast.flushes < 200_000 / 10,
                "still batched by size: " + fast.flushes + " flushes");

        reads[0] = 0;
        Queue slow = new Queue(50e6);
        PartitionFlushControl atLowRate = newControl(slow, settings, () -> {
            reads[0]++;
            return now;
        });
        run(atLowRate, slow, 500, 500, MS);
        assertTrue(reads[0] >= 500, "every record opens a batch and is measured: " + reads[0] + " reads");
        assertEquals(slow.written, slow.flushed, "and leaves at once");
    }

    @Test
    void slowConsumerGetsLargerBatchesAndNothingIsHeldBeyondTheBound() {
        Queue fast = new Queue(50e6);
        PartitionFlushControl onFast = control(fast, 2);
        run(onFast, fast, 20_000, 40_000, 200 * US);
        now = 0;
        Queue slow = new Queue(500e3); // 500 kB/s against 400 kB/s of records: busy most of the time
        PartitionFlushControl onSlow = control(slow, 2);
        long longest = run(onSlow, slow, 20_000, 40_000, 200 * US);
        assertTrue(slow.flushes < fast.flushes * 3 / 4,
                "slow drain measured, batches grow: " + slow.flushes + " vs " + fast.flushes + " flushes");
        assertTrue(longest <= 2 * MS + 200 * US, "bounded wait: " + longest);
    }

    @Test
    void afterABurstThePendingRecordsLeaveWithinTheIdleSpacing() {
        Queue q = new Queue(50e6);
        PartitionFlushControl c = control(q, 50);
        run(c, q, 200_000, 20_000, 50 * US); // the oracle now batches
        long before = c.flushes(PartitionFlushControl.Reason.IDLE) + c.flushes(PartitionFlushControl.Reason.DEADLINE);
        // A burst ends: a few records pending (below the size target), the consumer has taken everything.
        for (int i = 0; i < 3 || q.flushed == q.written; i++) {
            q.written += RECORD;
            c.onRecord(0, RECORD);
        }
        // The next tick once the idle flushes' spacing (10 flush costs) has passed since the last one.
        long spacing = (long) (50e-6 * 1e9) * ChannelFlushControl.IDLE_FLUSH_SPACING_COSTS;
        q.advance(spacing);
        now += spacing;
        c.onDeadline(now);
        assertEquals(q.written, q.flushed, "idle consumer: pending records leave within the idle spacing, not at the 50 ms bound");
        assertTrue(c.flushes(PartitionFlushControl.Reason.IDLE) + c.flushes(PartitionFlushControl.Reason.DEADLINE) > before,
                "the flusher sent them (idle consumer, or the short deadline of a batch sized for 200,000 records/s)");
    }

    @Test
    void idleFlushesOfAFastConsumerAreSpacedSoThatBuffersFillAtHighRates() {
        Queue q = new Queue(1e9); // takes every flush at once: idle at every flusher tick
        PartitionFlushControl c = control(q, 50);
        run(c, q, 1_000_000, 100_000, 20 * US); // 100 ms, a flusher tick every 20 us
        long spacing = (long) (50e-6 * 1e9) * ChannelFlushControl.IDLE_FLUSH_SPACING_COSTS;
        long idle = c.flushes(PartitionFlushControl.Reason.IDLE);
        assertTrue(idle > 0, "the idle rule still flushes");
        assertTrue(idle <= 100 * MS / spacing + 2, idle + " idle flushes in 100 ms: at most one per " + spacing + " ns");
        assertTrue(q.flushes < 100_000 / 20, "batches of more than 20 records on average: " + q.flushes + " flushes");
    }

    @Test
    void flinkFlushesPassThroughAndResetThePendingBatch() {
        Queue q = new Queue(50e6);
        PartitionFlushControl c = control(q, 50);
        run(c, q, 200_000, 20_000, 50 * US);
        for (int i = 0; i < 2; i++) { // the first may complete the open batch (a size flush); the second opens one
            q.written += RECORD;
            c.onRecord(0, RECORD);
        }
        assertTrue(q.flushed < q.written, "a record pending");
        q.flush(0);
        c.onFlinkFlushAll(); // Flink's buffer timeout
        long deadlineFlushes = c.flushes(PartitionFlushControl.Reason.DEADLINE);
        now += 100 * MS;
        c.onDeadline(now);
        assertEquals(deadlineFlushes, c.flushes(PartitionFlushControl.Reason.DEADLINE), "nothing left to flush");
        assertTrue(c.flushes(PartitionFlushControl.Reason.FLINK) > 0);
    }

    @Test
    void aFlushedBatchIsNotFlushedAgainAndTheFlusherDoesNotSpin() {
        Queue q = new Queue(0.001); // a consumer that takes nothing: back-pressure
        PartitionFlushControl c = control(q, 1);
        run(c, q, 1_000_000, 5_000, 100 * US);
        q.written += RECORD;
        c.onRecord(0, RECORD);
        now += 2 * MS;
        c.onDeadline(now);
        long flushes = q.flushes;
        long next = c.onDeadline(now + 1);
        assertEquals(flushes, q.flushes, "flushed once");
        assertTrue(next - now > 1 * MS / 2, "no deadline in the past for a batch already flushed: " + (next - now));
    }
}
