package io.jetstream.flink.flush;

import io.jetstream.core.batch.BatchController;
import io.jetstream.core.batch.BatchListener;
import io.jetstream.core.batch.BatchOracle;
import io.jetstream.core.batch.BatchSettings;
import io.jetstream.core.batch.DrainMeter;
import io.jetstream.core.batch.FlushPolicy;
import io.jetstream.core.batch.StreamContext;
import io.jetstream.core.batch.StreamMonitor;
import io.jetstream.core.batch.ThroughputCurve;
import io.jetstream.core.qos.ChannelMeasurements;
import io.jetstream.core.transport.outbound.DeadlineFlusher;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntFunction;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides when each subpartition of one pipelined result partition flushes. Every subpartition has
 * core's {@link FlushPolicy} (size target and deadline) driven by core's {@link BatchController}
 * (JetStream's oracle on the measured record rate and size, and on a link whose per-byte speed is the
 * consumer's measured drain, {@link DrainMeter}); under {@code qos.latency-bound-ms} the policy's
 * size is also capped by Nephele's output-buffer rule (core's {@code QosService}). Data leaves:
 * <ul>
 *   <li>{@link Reason#SIZE}: on the task thread, when a record brings the pending bytes to the target;
 *   <li>{@link Reason#DEADLINE}: on the flusher thread, when the oldest pending record has waited the
 *       policy's deadline (at most {@code flush.max-delay-ms});
 *   <li>{@link Reason#IDLE}: on the flusher thread, when the consumer has taken everything flushed
 *       before (nothing gains from waiting), at most once per {@value #IDLE_FLUSH_SPACING_COSTS} flush
 *       costs per subpartition: flushes on an idle consumer then spend at most a tenth of the channel's
 *       time on their fixed cost, so at low rates every record leaves at once, and at high rates
 *       (where a fast consumer is idle between every two flushes) buffers fill instead of leaving
 *       with a few records each;
 *   <li>{@link Reason#FLINK}: Flink's own flushes (its buffer-timeout thread, {@code flush(i)} with a
 *       timeout of 0, events and barriers), which always pass through and are only counted.
 * </ul>
 *
 * <p>Threading contract. The task thread calls {@link #onRecord}, {@link #onBroadcastRecord},
 * {@link #onFlinkFlush(int)} and {@link #onEvent}: per record plain field updates of the
 * subpartition's policy, a clock read only where a batch opens or fills and once per few records for
 * the controller ({@link #onRecord}), one volatile read of the subpartition's flush epoch, one of
 * its link version and one of the partition's back-pressure count ({@link #onUnavailable}, any
 * thread); no lock, no allocation (the oracle decides, allocating, once per decision interval
 * or rate step). The flusher thread calls {@link #onDeadline}; it flushes with the delegate's
 * {@code flush(i)}, which Flink makes safe from any thread (the subpartition's queue lock), and tells
 * the task thread by advancing the subpartition's epoch, on which the task thread resets the policy
 * (the policy's state is the task thread's alone). Flink's buffer-timeout thread calls
 * {@link #onFlinkFlushAll}. Reads of the task thread's counters from other threads are racy by
 * design: the worst outcome is one flush too many, which Flink turns into a no-op.
 */
public final class PartitionFlushControl implements DeadlineFlusher.Client {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionFlushControl.class);

    /** Why data left a subpartition. */
    public enum Reason { SIZE, DEADLINE, IDLE, FLINK }

    /** What is assumed of a consumer's drain until measured (bytes per second): a local network's speed. */
    static final double PRIOR_DRAIN_BYTES_PER_SECOND = 100e6;
    /** What is assumed of a record until measured. */
    private static final double PRIOR_RATE = 1_000;
    private static final double PRIOR_RECORD_BYTES = 100;
    /** Shortest spacing of two idle flushes of one subpartition, in flush costs ({@code flush.flush-cost-us}). */
    static final int IDLE_FLUSH_SPACING_COSTS = 10;
    /**
     * Most records per clock read for the controller ({@link Subpartition#stride}): the rate is then
     * measured over groups of up to this many records, which at the rates where groups form (batches of
     * {@value #RECORDS_PER_STRIDE} strides and more) the window still spans in well under a millisecond.
     */
    static final int MAX_STRIDE = 16;
    /** Records of the decided batch per record of stride: a batch of 80 records is watched every 10th. */
    static final int RECORDS_PER_STRIDE = 8;
    /** A clock reading not taken yet, within {@link #onRecord}. */
    private static final long NOT_READ = Long.MIN_VALUE;

    private final FlushTarget delegate;
    private final LongSupplier clock;
    private final LongConsumer wakeFlusherAt;
    private final long maxDelayNanos;
    private final double flushCostSeconds;
    private final Subpartition[] subpartitions;
    /** Flushes by others than the task thread (flusher, Flink's timer), per subpartition. */
    private final AtomicLongArray epochs;
    private final boolean idleFlush;
    private final long idleFlushSpacingNanos;
    private final String name;

    // Counted by their one writer thread each (task: SIZE; flusher: DEADLINE, IDLE); FLINK by several.
    final FlushStats size = new FlushStats();
    final FlushStats deadline = new FlushStats();
    final FlushStats idle = new FlushStats();
    final FlushStats flink = new FlushStats();

    /**
     * Times the partition was found without a free buffer ({@link #onUnavailable}, any thread); each
     * subpartition's policy hears of it at its next record. Written racily: a lost increment only
     * delays the signal to the next one.
     */
    private volatile int unavailable;

    private volatile boolean closed;
    private volatile Runnable onClose = () -> {};

    /**
     * @param name for logs (the task and partition)
     * @param delegate the partition whose subpartitions are flushed
     * @param clock nanosecond clock of the task thread's records ({@code System::nanoTime}; virtual in tests)
     * @param wakeFlusherAt told when a batch opens with its deadline (the flusher thread's {@code wakeFor})
     */
    public PartitionFlushControl(String name, FlushTarget delegate, FlushSettings settings, LongSupplier clock,
            LongConsumer wakeFlusherAt) {
        this.delegate = delegate;
        this.clock = clock;
        this.wakeFlusherAt = wakeFlusherAt;
        this.name = name;
        this.maxDelayNanos = settings.maxDelayNanos();
        this.flushCostSeconds = settings.flushCostSeconds();
        this.idleFlush = settings.idleFlush();
        this.idleFlushSpacingNanos = (long) (settings.flushCostSeconds() * 1e9 * IDLE_FLUSH_SPACING_COSTS);
        int n = delegate.numberOfSubpartitions();
        this.subpartitions = new Subpartition[n];
        this.epochs = new AtomicLongArray(n);
        for (int i = 0; i < n; i++) {
            subpartitions[i] = new Subpartition(settings);
        }
    }

    /**
     * Puts every subpartition under a latency constraint: {@code register} returns the measurements
     * of channel {@code i} after binding its size to the given subpartition's policy cap (Nephele's
     * output-buffer rule). Before the first record.
     */
    void bindQos(IntFunction<ChannelMeasurements> register) {
        for (int i = 0; i < subpartitions.length; i++) {
            subpartitions[i].qos = register.apply(i);
        }
    }

    /** The size cap setter of subpartition {@code i}'s policy (Nephele's output buffer size). */
    java.util.function.IntConsumer sizeCap(int i) {
        return subpartitions[i].policy::setSizeCap;
    }

    /** Runs once when the control closes (the scheduler unregisters it). */
    void onClose(Runnable action) {
        onClose = action;
    }

    // ------------------------------------------------------------------ task thread

    /**
     * A record of {@code bytes} went into subpartition {@code i} (after the delegate wrote it). Task
     * thread. The clock is read when the record opens a batch (its wait starts), when it fills one,
     * and once per {@link Subpartition#stride} records for the controller, not for every record: at
     * millions of records per second a clock read per record was a tenth of a core per exchange. A
     * batch that opens asks the flusher thread to look by {@code flush.max-delay-ms}, not by the
     * policy's deadline: at high rates that deadline (twice the batch's formation time) is tens of
     * microseconds ahead and the size target comes first, and an unpark of the flusher per batch was
     * as costly as the rest of the bookkeeping (profiled); the flusher, once awake, serves the
     * policy's deadlines as they are.
     */
    public void onRecord(int i, int bytes) {
        Subpartition s = subpartitions[i];
        s.written += bytes;
        long epoch = epochs.get(i);
        if (epoch != s.seenEpoch) {
            s.seenEpoch = epoch;
            s.policy.onFlush(FlushPolicy.Reason.EXPLICIT); // someone else flushed what was pending
        }
        long now = NOT_READ;
        int pushedBack = unavailable;
        if (pushedBack != s.seenUnavailable) {
            s.seenUnavailable = pushedBack;
            now = clock.getAsLong();
            s.controller.onBackPressure(now);
        }
        int version = s.linkVersion;
        if (version != s.seenLinkVersion) {
            s.seenLinkVersion = version;
            s.monitor.useLink(s.link);
        }
        s.unsampledBytes += bytes;
        if (++s.unsampledRecords >= s.stride) {
            if (now == NOT_READ) {
                now = clock.getAsLong();
            }
            s.controller.onEvents(s.unsampledRecords, s.unsampledBytes, now);
            s.unsampledRecords = 0;
            s.unsampledBytes = 0;
        }
        boolean opens = s.policy.pendingRecords() == 0;
        if (opens && now == NOT_READ) {
            now = clock.getAsLong();
        }
        if (s.policy.onRecord(bytes, now)) {
            if (now == NOT_READ) {
                now = clock.getAsLong();
            }
            long waited = now - s.policy.pendingSinceNanos();
            int pending = s.policy.pendingBytes();
            delegate.flush(i);
            s.policy.onFlush(FlushPolicy.Reason.SIZE);
            size.add(pending, waited);
            s.reportLifetime(waited);
        } else if (opens) {
            // The flusher must look by the bound; it finds the policy's (often earlier) deadline itself.
            wakeFlusherAt.accept(now + maxDelayNanos);
        }
    }

    /** A record of {@code bytes} went into every subpartition. Task thread. */
    public void onBroadcastRecord(int bytes) {
        for (int i = 0; i < subpartitions.length; i++) {
            onRecord(i, bytes);
        }
    }

    /** Flink flushed subpartition {@code i} itself ({@code flush(i)}: a buffer timeout of 0). Task thread. */
    public void onFlinkFlush(int i) {
        Subpartition s = subpartitions[i];
        long oldest = s.policy.pendingSinceNanos();
        if (oldest != FlushPolicy.NO_DEADLINE && epochs.get(i) == s.seenEpoch) {
            flink.addShared(s.policy.pendingBytes(), clock.getAsLong() - oldest);
        }
        s.policy.onFlush(FlushPolicy.Reason.EXPLICIT);
    }

    /**
     * Flink wrote an event into every subpartition (a barrier, end of partition, a watermark's
     * status...): the buffers before it are finished and leave with it. Task thread.
     */
    public void onEvent() {
        long now = clock.getAsLong();
        for (int i = 0; i < subpartitions.length; i++) {
            Subpartition s = subpartitions[i];
            long oldest = s.policy.pendingSinceNanos();
            if (oldest != FlushPolicy.NO_DEADLINE && epochs.get(i) == s.seenEpoch) {
                flink.addShared(s.policy.pendingBytes(), now - oldest);
            }
            s.policy.onFlush(FlushPolicy.Reason.EXPLICIT);
        }
    }

    /**
     * The partition had no free buffer when its task asked ({@code isAvailable()} false): the task
     * is back-pressured and its records come in bursts between waits, so the rate measured over
     * the last records says nothing of its demand. Each subpartition's controller then decides, until
     * a decision interval passes without this, for more demand than it measures (core's
     * {@code BatchController.onBackPressure}); without it the gaps of the waits read as a low rate
     * and the bursts leave a record or two per flush. Any thread; a volatile increment.
     */
    public void onUnavailable() {
        unavailable = unavailable + 1;
    }

    // ------------------------------------------------------------------ Flink's buffer-timeout thread

    /** Flink flushed every subpartition ({@code flushAll()}: its buffer timeout). Any thread. */
    public void onFlinkFlushAll() {
        long now = clock.getAsLong();
        for (int i = 0; i < subpartitions.length; i++) {
            Subpartition s = subpartitions[i];
            long oldest = s.policy.pendingSinceNanos();
            if (oldest != FlushPolicy.NO_DEADLINE && epochs.get(i) == s.seenEpoch && oldest != s.flushedOldest) {
                flink.addShared(s.policy.pendingBytes(), now - oldest);
            }
            epochs.incrementAndGet(i);
        }
    }

    // ------------------------------------------------------------------ flusher thread

    @Override
    public long onDeadline(long now) {
        if (closed) {
            return now + maxDelayNanos;
        }
        long next = FlushPolicy.NO_DEADLINE;
        for (int i = 0; i < subpartitions.length; i++) {
            Subpartition s = subpartitions[i];
            long written = s.written;
            long inQueue = delegate.bytesInQueue(i);
            long oldest = s.policy.pendingSinceNanos();
            int records = s.policy.pendingRecords();
            int pendingBytes = s.policy.pendingBytes();
            boolean pending = oldest != FlushPolicy.NO_DEADLINE
                    && epochs.get(i) == s.seenEpoch // nobody flushed it since the task thread looked
                    && !(oldest == s.flushedOldest && records == s.flushedRecords); // nor did we
            long waiting = inQueue - (pending ? pendingBytes : 0);
            if (s.drain.sample(now, written - inQueue, waiting)) {
                s.publishDrain(flushCostSeconds);
            }
            if (!pending) {
                continue;
            }
            Reason reason = null;
            long idleAllowedAt = s.lastIdleFlushNanos + idleFlushSpacingNanos;
            if (s.policy.isDue(now)) {
                reason = Reason.DEADLINE;
            } else if (idleFlush && waiting <= 0 && now - idleAllowedAt >= 0) {
                reason = Reason.IDLE;
                s.lastIdleFlushNanos = now;
            }
            if (reason == null) {
                long d = s.policy.deadlineNanos();
                if (idleFlush && waiting <= 0 && idleAllowedAt - d < 0) {
                    d = idleAllowedAt; // idle now, but the last idle flush was too recent: look again then
                }
                if (d - next < 0) {
                    next = d;
                }
                continue;
            }
            delegate.flush(i);
            s.flushedOldest = oldest;
            s.flushedRecords = records;
            epochs.incrementAndGet(i);
            (reason == Reason.DEADLINE ? deadline : idle).add(pendingBytes, now - oldest);
            s.reportLifetime(now - oldest);
        }
        return next;
    }

    @Override
    public void fail(Throwable cause) {
        // The flusher could not flush this partition (it was released under it): Flink's own flushes
        // still bound every wait, so the partition runs on with stock flushing.
        LOG.warn("Flush control of partition {} stopped after an error; it flushes as stock Flink does from now on",
                name, cause);
        close();
    }

    /** Stops flush control for this partition (released, closed or failed). Idempotent; any thread. */
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        onClose.run();
    }

    public boolean isClosed() {
        return closed;
    }

    // ------------------------------------------------------------------ metrics (any thread, racy reads)

    /** Flushes made for {@code reason} that carried data. */
    public long flushes(Reason reason) {
        return switch (reason) {
            case SIZE -> size.flushes();
            case DEADLINE -> deadline.flushes();
            case IDLE -> idle.flushes();
            case FLINK -> flink.flushes();
        };
    }

    int numberOfSubpartitions() {
        return subpartitions.length;
    }

    /** The policy's current size target of subpartition {@code i}, bytes. */
    int targetBytes(int i) {
        return subpartitions[i].policy.targetBytes();
    }

    /** The measured drain of subpartition {@code i}, bytes per second (NaN before measured). */
    double drainBytesPerSecond(int i) {
        return subpartitions[i].drainBytesPerSecond;
    }

    /** The oracle's decisions so far over all subpartitions. */
    long decisions() {
        long sum = 0;
        for (Subpartition s : subpartitions) {
            sum += s.decisions;
        }
        return sum;
    }

    @Override
    public String toString() {
        return "flush control of " + name;
    }

    /** One subpartition's state, grouped by the thread that writes it. */
    private static final class Subpartition implements BatchListener {
        // Task thread.
        final FlushPolicy policy;
        final StreamMonitor monitor;
        final BatchController controller;
        long written;
        long seenEpoch;
        int seenLinkVersion;
        int seenUnavailable;
        /**
         * Records per clock read for the controller: 1 while the decided batches are small (every
         * record measured, as at low rates, where a step up must be seen at once), up to
         * {@link #MAX_STRIDE} for batches of {@value #RECORDS_PER_STRIDE} × that many records.
         */
        int stride = 1;
        int unsampledRecords;
        long unsampledBytes;
        volatile long decisions;
        ChannelMeasurements qos;

        // Flusher thread.
        final DrainMeter drain;
        long flushedOldest = FlushPolicy.NO_DEADLINE;
        int flushedRecords;
        long lastIdleFlushNanos = Long.MIN_VALUE / 2;
        /** The link measured by the flusher, published to the task thread by {@link #linkVersion}. */
        volatile ThroughputCurve link;
        volatile int linkVersion;
        volatile double drainBytesPerSecond = Double.NaN;

        Subpartition(FlushSettings settings) {
            BatchSettings batch = settings.batch();
            ThroughputCurve prior = new ThroughputCurve(settings.flushCostSeconds(), PRIOR_DRAIN_BYTES_PER_SECOND);
            StreamContext context = new StreamContext(PRIOR_RATE, PRIOR_RECORD_BYTES, 0, 0, 0, 0, 0, 0, prior,
                    Runtime.getRuntime().availableProcessors(), settings.maxDelayNanos() / 1e9);
            policy = new FlushPolicy(1, settings.maxDelayNanos());
            monitor = new StreamMonitor(batch.smoothing(), batch.encodeSamples(), batch.probeMinIntervalNanos(),
                    batch.probeMaxIntervalNanos());
            monitor.useLink(prior);
            controller = new BatchController(monitor,
                    new BatchOracle(batch.maxBatchEvents(), 1, batch.linkVariation(), batch.maxUtilisation()),
                    policy, context, batch.decisionIntervalNanos(), batch.warmupEvents(), this);
            drain = new DrainMeter(settings.drainWindowNanos(), batch.smoothing() * 4);
            link = prior;
        }

        @Override
        public void onDecision(io.jetstream.core.batch.BatchDecision decision) {
            decisions = decisions + 1; // task thread only
            stride = Math.max(1, Math.min(MAX_STRIDE, decision.batchSize() / RECORDS_PER_STRIDE));
        }

        void publishDrain(double flushCostSeconds) {
            double rate = drain.bytesPerSecond();
            drainBytesPerSecond = rate;
            link = new ThroughputCurve(flushCostSeconds, rate);
            linkVersion = linkVersion + 1; // flusher thread only
        }

        void reportLifetime(long nanos) {
            ChannelMeasurements m = qos;
            if (m != null) {
                m.onBufferLifetime(nanos);
                m.onChannelLatency(nanos);
            }
        }
    }
}
