package io.jetstream.core.api;

import io.jetstream.core.internal.qos.ChannelMeasurements;
import io.jetstream.core.model.BatchController;
import io.jetstream.core.model.BatchDecision;
import io.jetstream.core.model.BatchListener;
import io.jetstream.core.model.BatchOracle;
import io.jetstream.core.model.DrainMeter;
import io.jetstream.core.model.FlushPolicy;
import io.jetstream.core.model.StreamContext;
import io.jetstream.core.model.StreamMonitor;
import io.jetstream.core.model.ThroughputCurve;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * JetStream's flush control of one channel whose buffers an engine owns (a Flink subpartition): the
 * engine writes records into its buffer and tells this of each ({@link #onRecord}); this says when
 * the buffer should leave. Inside, JetStream's oracle decides a size target from the measured record
 * rate and size and from a link whose speed is the consumer's measured drain (taken from the bytes
 * the engine reports still queued, {@link #onTimer}); the target is also capped by Nephele's
 * output-buffer rule when the channel is under a latency bound ({@link FlushService}). Data leaves:
 * <ul>
 *   <li>{@link Decision#SIZE}: from {@link #onRecord}, when a record brings the pending bytes to the target;
 *   <li>{@link Decision#DEADLINE}: from {@link #onTimer}, when the oldest pending record has waited the
 *       policy's deadline (at most the maximum delay);
 *   <li>{@link Decision#IDLE}: from {@link #onTimer}, when the consumer has taken everything flushed
 *       before, at most once per {@value #IDLE_FLUSH_SPACING_COSTS} flush costs: flushes on an idle
 *       consumer then spend at most a tenth of the channel's time on their fixed cost, so at low rates
 *       every record leaves at once and at high rates buffers fill instead of leaving half empty.
 * </ul>
 * The engine's own flushes (a timer of its own, events, explicit flushes) pass through and are told
 * ({@link #onWriterFlush}, {@link #onFlushedElsewhere}).
 *
 * <p>Threading contract. The writer thread (the engine's task thread) calls {@link #onRecord} and
 * {@link #onWriterFlush}: per record plain field updates, a clock read only where a batch opens or
 * fills and once per few records for the controller (at millions of records per second a clock read
 * per record was a tenth of a core per channel), and one volatile read each of the flush epoch, the
 * back-pressure count and the link version; no lock, no allocation (the oracle allocates once per
 * decision). The flusher thread calls {@link #onTimer} and {@link #flushedByTimer}. Any thread calls
 * {@link #onFlushedElsewhere}, {@link #onBackPressure} and the gauges. What the writer's fields say
 * to other threads is read racily by design: the worst outcome is one flush too many, which an engine
 * turns into a no-op.
 */
public final class ChannelFlushControl {
    /** Why a channel's buffer leaves now, or that it does not. */
    public enum Decision { NONE, SIZE, DEADLINE, IDLE }

    /** What is assumed of a consumer's drain until measured (bytes per second): a local network's speed. */
    static final double PRIOR_DRAIN_BYTES_PER_SECOND = 100e6;
    private static final double PRIOR_RATE = 1_000;
    private static final double PRIOR_RECORD_BYTES = 100;
    /** Shortest spacing of two idle flushes, in flush costs. */
    public static final int IDLE_FLUSH_SPACING_COSTS = 10;
    /** Most records per clock read for the controller ({@link #stride}). */
    static final int MAX_STRIDE = 16;
    /** Records of the decided batch per record of stride: a batch of 80 records is watched every 10th. */
    static final int RECORDS_PER_STRIDE = 8;
    private static final long NOT_READ = Long.MIN_VALUE;

    private final LongSupplier clock;
    private final LongConsumer wakeFlusherAt;
    private final long maxDelayNanos;
    private final double flushCostSeconds;
    private final boolean idleFlush;
    private final long idleFlushSpacingNanos;

    // Writer thread.
    private final FlushPolicy policy;
    private final StreamMonitor monitor;
    private final BatchController controller;
    private long written;
    private long seenEpoch;
    private int seenLinkVersion;
    private long seenBackPressure;
    /** Records per clock read for the controller: 1 while decided batches are small, up to {@link #MAX_STRIDE}. */
    private int stride = 1;
    private int unsampledRecords;
    private long unsampledBytes;
    private int lastFlushBytes;
    private long lastFlushWaitNanos;
    private volatile long decisions;
    private ChannelMeasurements qos;

    // Flusher thread.
    private final DrainMeter drain;
    private long flushedOldest = FlushPolicy.NO_DEADLINE;
    private int flushedRecords;
    private long lastIdleFlushNanos = Long.MIN_VALUE / 2;
    private long nextDeadlineNanos = FlushPolicy.NO_DEADLINE;
    private int timerFlushBytes;
    private long timerFlushWaitNanos;

    // Any thread.
    /** Flushes by others than the writer (the flusher, the engine's timer): the writer resets its policy on seeing it move. */
    private final AtomicLong epoch = new AtomicLong();
    /** Times the engine found no free buffer for this channel's writer ({@link #onBackPressure}); racy increments. */
    private volatile long backPressure;
    /** The link measured by the flusher, published to the writer by {@link #linkVersion}. */
    private volatile ThroughputCurve link;
    private volatile int linkVersion;
    private volatile double drainBytesPerSecond = Double.NaN;

    /**
     * @param clock nanosecond clock of the writer's records ({@code System::nanoTime}; virtual in tests)
     * @param wakeFlusherAt told, when a batch opens, by when the flusher must look ({@link FlushService#wakeFor})
     */
    public ChannelFlushControl(FlushControlSettings settings, LongSupplier clock, LongConsumer wakeFlusherAt) {
        this.clock = clock;
        this.wakeFlusherAt = wakeFlusherAt;
        this.maxDelayNanos = settings.maxDelayNanos();
        this.flushCostSeconds = settings.flushCostSeconds();
        this.idleFlush = settings.idleFlush();
        this.idleFlushSpacingNanos = (long) (settings.flushCostSeconds() * 1e9 * IDLE_FLUSH_SPACING_COSTS);
        BatchSettings batch = settings.batch();
        ThroughputCurve prior = new ThroughputCurve(settings.flushCostSeconds(), PRIOR_DRAIN_BYTES_PER_SECOND);
        StreamContext context = new StreamContext(PRIOR_RATE, PRIOR_RECORD_BYTES, 0, 0, 0, 0, 0, 0, prior,
                Runtime.getRuntime().availableProcessors(), settings.maxDelayNanos() / 1e9);
        policy = new FlushPolicy(1, settings.maxDelayNanos());
        monitor = new StreamMonitor(batch.smoothing(), batch.encodeSamples(), batch.probeMinIntervalNanos(), batch.probeMaxIntervalNanos());
        monitor.useLink(prior);
        controller = new BatchController(monitor, new BatchOracle(batch.maxBatchEvents(), 1, batch.linkVariation(), batch.maxUtilisation()),
                policy, context, batch.decisionIntervalNanos(), batch.warmupEvents(), new Decisions());
        drain = new DrainMeter(settings.drainWindowNanos(), batch.smoothing() * 4);
        link = prior;
    }

    /** Puts the channel under a latency bound: the size cap is set by Nephele's rule through {@link #sizeCap}. Before the first record. */
    void bindQos(ChannelMeasurements measurements) {
        this.qos = measurements;
    }

    /** Where Nephele's rule sets this channel's output buffer size (its policy's size cap). */
    IntConsumer sizeCap() {
        return policy::setSizeCap;
    }

    // ------------------------------------------------------------------ writer thread

    /**
     * A record of {@code bytes} went into the channel's buffer. Returns true when the buffer should
     * leave now (the size target is reached): the engine flushes it; what it carried and how long its
     * first record waited are then {@link #lastFlushBytes} and {@link #lastFlushWaitNanos}. A record
     * that opens a batch asks the flusher to look by the maximum delay (the flusher, once awake, serves
     * the policy's earlier deadlines itself: an unpark per batch cost as much as the bookkeeping).
     */
    public boolean onRecord(int bytes) {
        written += bytes;
        long e = epoch.get();
        if (e != seenEpoch) {
            seenEpoch = e;
            policy.onFlush(FlushPolicy.Reason.EXPLICIT); // someone else flushed what was pending
        }
        long now = NOT_READ;
        long pushedBack = backPressure;
        if (pushedBack != seenBackPressure) {
            seenBackPressure = pushedBack;
            now = clock.getAsLong();
            controller.onBackPressure(now);
        }
        int version = linkVersion;
        if (version != seenLinkVersion) {
            seenLinkVersion = version;
            monitor.useLink(link);
        }
        unsampledBytes += bytes;
        if (++unsampledRecords >= stride) {
            if (now == NOT_READ) {
                now = clock.getAsLong();
            }
            controller.onEvents(unsampledRecords, unsampledBytes, now);
            unsampledRecords = 0;
            unsampledBytes = 0;
        }
        boolean opens = policy.pendingRecords() == 0;
        if (opens && now == NOT_READ) {
            now = clock.getAsLong();
        }
        if (policy.onRecord(bytes, now)) {
            if (now == NOT_READ) {
                now = clock.getAsLong();
            }
            lastFlushWaitNanos = now - policy.pendingSinceNanos();
            lastFlushBytes = policy.pendingBytes();
            policy.onFlush(FlushPolicy.Reason.SIZE);
            reportLifetime(lastFlushWaitNanos);
            return true;
        }
        if (opens) {
            wakeFlusherAt.accept(now + maxDelayNanos);
        }
        return false;
    }

    /** Bytes of the buffer the last true {@link #onRecord} sent. Writer thread. */
    public int lastFlushBytes() {
        return lastFlushBytes;
    }

    /** How long the first record of the buffer the last true {@link #onRecord} sent had waited. Writer thread. */
    public long lastFlushWaitNanos() {
        return lastFlushWaitNanos;
    }

    /**
     * The engine flushed the channel from the writer thread itself (Flink's {@code flush(i)} with a
     * buffer timeout of 0, an event or barrier written into it): what was pending left with it.
     * Returns how long its oldest record had waited, or -1 when nothing was pending (or the flusher
     * had flushed it already). Writer thread.
     */
    public long onWriterFlush() {
        long oldest = policy.pendingSinceNanos();
        long waited = -1;
        if (oldest != FlushPolicy.NO_DEADLINE && epoch.get() == seenEpoch) {
            lastFlushBytes = policy.pendingBytes();
            waited = clock.getAsLong() - oldest;
        }
        policy.onFlush(FlushPolicy.Reason.EXPLICIT);
        return waited;
    }

    // ------------------------------------------------------------------ any thread

    /**
     * The engine flushed the channel from another thread (Flink's buffer-timeout thread): the writer
     * resets its pending batch at its next record. Returns the bytes pending, racily read, or -1 when
     * none were (or the flusher had flushed them). Any thread.
     */
    public long onFlushedElsewhere(long nowNanos) {
        long oldest = policy.pendingSinceNanos();
        long waited = -1;
        if (oldest != FlushPolicy.NO_DEADLINE && epoch.get() == seenEpoch && oldest != flushedOldest) {
            waited = nowNanos - oldest;
        }
        epoch.incrementAndGet();
        return waited;
    }

    /** Bytes pending in the writer's batch, racily read (for an engine's flush statistics). */
    public int pendingBytes() {
        return policy.pendingBytes();
    }

    /**
     * The engine found no free buffer for this channel's writer: its records now come in bursts
     * between waits, so the rate measured over them says nothing of its demand. The controller decides
     * for more demand than it measures until a decision interval passes without this (without it the
     * gaps of the waits read as a low rate, and the bursts leave a record or two per flush). Any
     * thread; a volatile increment.
     */
    public void onBackPressure() {
        backPressure = backPressure + 1;
    }

    // ------------------------------------------------------------------ flusher thread

    /**
     * The flusher's look at the channel at {@code nowNanos}, {@code bytesInQueue} being what the
     * engine holds for it and its consumer has not taken (flushed or not): samples the consumer's
     * drain, then says whether the pending buffer leaves now and why. After {@link Decision#DEADLINE}
     * or {@link Decision#IDLE} the engine flushes and calls {@link #flushedByTimer}; after
     * {@link Decision#NONE} the channel wants to be looked at again by {@link #nextDeadlineNanos}.
     * Flusher thread.
     */
    public Decision onTimer(long nowNanos, long bytesInQueue) {
        nextDeadlineNanos = FlushPolicy.NO_DEADLINE;
        long writtenNow = written;
        long oldest = policy.pendingSinceNanos();
        int records = policy.pendingRecords();
        int pendingBytes = policy.pendingBytes();
        boolean pending = oldest != FlushPolicy.NO_DEADLINE
                && epoch.get() == seenEpoch // nobody flushed it since the writer looked
                && !(oldest == flushedOldest && records == flushedRecords); // nor did we
        long waiting = bytesInQueue - (pending ? pendingBytes : 0);
        if (drain.sample(nowNanos, writtenNow - bytesInQueue, waiting)) {
            double rate = drain.bytesPerSecond();
            drainBytesPerSecond = rate;
            link = new ThroughputCurve(flushCostSeconds, rate);
            linkVersion = linkVersion + 1; // flusher thread only
        }
        if (!pending) {
            return Decision.NONE;
        }
        long idleAllowedAt = lastIdleFlushNanos + idleFlushSpacingNanos;
        Decision decision = Decision.NONE;
        if (policy.isDue(nowNanos)) {
            decision = Decision.DEADLINE;
        } else if (idleFlush && waiting <= 0 && nowNanos - idleAllowedAt >= 0) {
            decision = Decision.IDLE;
            lastIdleFlushNanos = nowNanos;
        }
        if (decision == Decision.NONE) {
            long d = policy.deadlineNanos();
            if (idleFlush && waiting <= 0 && idleAllowedAt - d < 0) {
                d = idleAllowedAt; // idle now, but the last idle flush was too recent: look again then
            }
            nextDeadlineNanos = d;
            return decision;
        }
        flushedOldest = oldest;
        flushedRecords = records;
        timerFlushBytes = pendingBytes;
        timerFlushWaitNanos = nowNanos - oldest;
        return decision;
    }

    /** After {@link Decision#NONE}: when the channel wants the flusher's next look ({@code Long.MAX_VALUE}: nothing pending). */
    public long nextDeadlineNanos() {
        return nextDeadlineNanos;
    }

    /**
     * The engine flushed after a {@link Decision#DEADLINE} or {@link Decision#IDLE}: the writer resets
     * its pending batch at its next record. Returns the bytes it carried; {@link #timerFlushWaitNanos}
     * how long its first record waited. Flusher thread.
     */
    public int flushedByTimer() {
        epoch.incrementAndGet();
        reportLifetime(timerFlushWaitNanos);
        return timerFlushBytes;
    }

    /** How long the first record of the buffer the last timer flush sent had waited. Flusher thread. */
    public long timerFlushWaitNanos() {
        return timerFlushWaitNanos;
    }

    // ------------------------------------------------------------------ gauges (any thread, racy reads)

    /** The size target now, bytes. */
    public int targetBytes() {
        return policy.targetBytes();
    }

    /** The consumer's measured drain, bytes per second (NaN before measured). */
    public double drainBytesPerSecond() {
        return drainBytesPerSecond;
    }

    /** The oracle's decisions so far. */
    public long decisions() {
        return decisions;
    }

    private void reportLifetime(long nanos) {
        ChannelMeasurements m = qos;
        if (m != null) {
            m.onBufferLifetime(nanos);
            m.onChannelLatency(nanos);
        }
    }

    /** Counts decisions and widens the clock stride as batches grow. Writer thread. */
    private final class Decisions implements BatchListener {
        @Override
        public void onDecision(BatchDecision decision) {
            decisions = decisions + 1; // writer thread only
            stride = Math.max(1, Math.min(MAX_STRIDE, decision.batchSize() / RECORDS_PER_STRIDE));
        }
    }
}
