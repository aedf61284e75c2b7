package io.jetstream.flink.flush;

import io.jetstream.core.api.ChannelFlushControl.Decision;
import io.jetstream.core.api.ChannelFlushControl;
import io.jetstream.core.api.FlushService;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides when each subpartition of one pipelined result partition flushes: one core
 * {@link ChannelFlushControl} per subpartition (JetStream's oracle on the measured record rate and
 * size and the consumer's measured drain; under {@code qos.latency-bound-ms} Nephele's output-buffer
 * rule), driven here from Flink's calls, and the flushes counted by reason:
 * <ul>
 *   <li>{@link Reason#SIZE}: on the task thread, when a record brings the pending bytes to the target;
 *   <li>{@link Reason#DEADLINE}: on the flusher thread, when the oldest pending record has waited the
 *       policy's deadline (at most {@code flush.max-delay-ms});
 *   <li>{@link Reason#IDLE}: on the flusher thread, when the consumer has taken everything flushed
 *       before, spaced by ten flush costs per subpartition ({@link ChannelFlushControl});
 *   <li>{@link Reason#FLINK}: Flink's own flushes (its buffer-timeout thread, {@code flush(i)} with a
 *       timeout of 0, events and barriers), which always pass through and are only counted.
 * </ul>
 *
 * <p>Threading contract. The task thread calls {@link #onRecord}, {@link #onBroadcastRecord},
 * {@link #onFlinkFlush(int)} and {@link #onEvent} (core's per-record contract: no lock, no
 * allocation, a clock read only where a batch opens or fills and once per few records). The flusher
 * thread calls {@link #onDeadline}; it flushes with the delegate's {@code flush(i)}, which Flink makes
 * safe from any thread (the subpartition's queue lock). Flink's buffer-timeout thread calls
 * {@link #onFlinkFlushAll}; any thread {@link #onUnavailable}.
 */
public final class PartitionFlushControl implements FlushService.Client {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionFlushControl.class);

    /** Why data left a subpartition. */
    public enum Reason { SIZE, DEADLINE, IDLE, FLINK }

    private final FlushTarget delegate;
    private final LongSupplier clock;
    private final long maxDelayNanos;
    private final ChannelFlushControl[] channels;
    private final String name;

    // Counted by their one writer thread each (task: SIZE; flusher: DEADLINE, IDLE); FLINK by several.
    final FlushStats size = new FlushStats();
    final FlushStats deadline = new FlushStats();
    final FlushStats idle = new FlushStats();
    final FlushStats flink = new FlushStats();

    private volatile boolean closed;
    private volatile Runnable onClose = () -> {};

    /**
     * @param name for logs (the task and partition)
     * @param delegate the partition whose subpartitions are flushed
     * @param channel subpartition {@code i}'s flush control (core's, opened by the TaskManager's {@link FlushService})
     * @param clock the flusher's and Flink's timer's clock ({@code System::nanoTime}; virtual in tests)
     */
    public PartitionFlushControl(String name, FlushTarget delegate, IntFunction<ChannelFlushControl> channel, long maxDelayNanos,
            LongSupplier clock) {
        this.delegate = delegate;
        this.name = name;
        this.clock = clock;
        this.maxDelayNanos = maxDelayNanos;
        int n = delegate.numberOfSubpartitions();
        this.channels = new ChannelFlushControl[n];
        for (int i = 0; i < n; i++) {
            channels[i] = channel.apply(i);
        }
    }

    /** Runs once when the control closes (the scheduler unregisters it). */
    void onClose(Runnable action) {
        onClose = action;
    }

    // ------------------------------------------------------------------ task thread

    /** A record of {@code bytes} went into subpartition {@code i} (after the delegate wrote it). Task thread. */
    public void onRecord(int i, int bytes) {
        ChannelFlushControl c = channels[i];
        if (c.onRecord(bytes)) {
            delegate.flush(i);
            size.add(c.lastFlushBytes(), c.lastFlushWaitNanos());
        }
    }

    /** A record of {@code bytes} went into every subpartition. Task thread. */
    public void onBroadcastRecord(int bytes) {
        for (int i = 0; i < channels.length; i++) {
            onRecord(i, bytes);
        }
    }

    /** Flink flushed subpartition {@code i} itself ({@code flush(i)}: a buffer timeout of 0). Task thread. */
    public void onFlinkFlush(int i) {
        ChannelFlushControl c = channels[i];
        long waited = c.onWriterFlush();
        if (waited >= 0) {
            flink.addShared(c.lastFlushBytes(), waited);
        }
    }

    /**
     * Flink wrote an event into every subpartition (a barrier, end of partition, a watermark's
     * status...): the buffers before it are finished and leave with it. Task thread.
     */
    public void onEvent() {
        for (int i = 0; i < channels.length; i++) {
            onFlinkFlush(i);
        }
    }

    /**
     * The partition had no free buffer when its task asked ({@code isAvailable()} false): each
     * subpartition's control hears of it ({@link ChannelFlushControl#onBackPressure}). Any thread.
     */
    public void onUnavailable() {
        for (ChannelFlushControl c : channels) {
            c.onBackPressure();
        }
    }

    // ------------------------------------------------------------------ Flink's buffer-timeout thread

    /** Flink flushed every subpartition ({@code flushAll()}: its buffer timeout). Any thread. */
    public void onFlinkFlushAll() {
        long now = clock.getAsLong();
        for (ChannelFlushControl c : channels) {
            int pending = c.pendingBytes();
            long waited = c.onFlushedElsewhere(now);
            if (waited >= 0) {
                flink.addShared(pending, waited);
            }
        }
    }

    // ------------------------------------------------------------------ flusher thread

    @Override
    public long onDeadline(long now) {
        if (closed) {
            return now + maxDelayNanos;
        }
        long next = FlushService.NOTHING_DUE;
        for (int i = 0; i < channels.length; i++) {
            ChannelFlushControl c = channels[i];
            Decision decision = c.onTimer(now, delegate.bytesInQueue(i));
            if (decision == Decision.NONE) {
                long d = c.nextDeadlineNanos();
                if (d - next < 0) {
                    next = d;
                }
                continue;
            }
            delegate.flush(i);
            int bytes = c.flushedByTimer();
            (decision == Decision.DEADLINE ? deadline : idle).add(bytes, c.timerFlushWaitNanos());
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
        return channels.length;
    }

    /** The size target of subpartition {@code i} now, bytes. */
    int targetBytes(int i) {
        return channels[i].targetBytes();
    }

    /** The measured drain of subpartition {@code i}, bytes per second (NaN before measured). */
    double drainBytesPerSecond(int i) {
        return channels[i].drainBytesPerSecond();
    }

    /** The oracle's decisions so far over all subpartitions. */
    long decisions() {
        long sum = 0;
        for (ChannelFlushControl c : channels) {
            sum += c.decisions();
        }
        return sum;
    }

    @Override
    public String toString() {
        return "flush control of " + name;
    }
}
