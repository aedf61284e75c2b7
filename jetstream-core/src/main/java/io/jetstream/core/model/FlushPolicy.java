package io.jetstream.core.model;

/**
 * When a channel's pending data leaves: as soon as it reaches the size target, or when its oldest
 * pending byte has waited the deadline, whichever comes first. This is the one decision API every
 * transport calls (a Flink writer, a Storm connection, the ring's batch writer). Two controllers
 * set it: the batch controller ({@link BatchOracle}: batch size × event size, the user's max delay)
 * through {@link #setTargets}, and, on a channel under a latency constraint, Nephele's output-buffer
 * rule through {@link #setSizeCap} (bound with {@code ChannelBuffers.bind}). Data leaves at the
 * smaller of the two sizes: the oracle sizes batches for this channel's own latency and throughput,
 * the constraint bounds what a whole sequence of channels and tasks may add.
 *
 * <p>Threading contract: {@link #onRecord} and {@link #onFlush} are called by the channel's single
 * writer thread; {@link #deadlineNanos()} and {@link #isDue(long)} may be called by a flusher
 * thread; {@link #setTargets} and {@link #setSizeCap} by the controllers' threads. No allocation on
 * the writer's path; the setters, which run once per decision, synchronise among themselves.
 */
public final class FlushPolicy {
    /** No data pending. */
    public static final long NO_DEADLINE = Long.MAX_VALUE;

    /** Why data left. */
    public enum Reason {
        /** The size target was reached. */
        SIZE,
        /** The oldest pending record waited the maximum delay. */
        DEADLINE,
        /** The producer's send ended while the link was idle (adaptive mode's end-of-send hint). */
        END_OF_SEND,
        /** The caller flushed. */
        EXPLICIT
    }

    /** The batch controller's size target. Guarded by this (setters only). */
    private int controllerTargetBytes;
    /** The latency constraint's bound on the size (Nephele's output buffer size). Guarded by this. */
    private int sizeCapBytes = Integer.MAX_VALUE;
    /** Where data leaves: the smaller of the two, read by the writer for every record. */
    private volatile int targetBytes;
    private volatile long maxDelayNanos;

    // Writer thread.
    private int pendingBytes;
    private int pendingRecords;
    /** Arrival of the oldest pending record; read by the flusher thread. */
    private volatile long oldestNanos = NO_DEADLINE;

    private final long[] flushes = new long[Reason.values().length];

    public FlushPolicy(int targetBytes, long maxDelayNanos) {
        setTargets(targetBytes, maxDelayNanos);
    }

    /** The batch controller's new targets, effective from the next record. */
    public synchronized void setTargets(int newTargetBytes, long newMaxDelayNanos) {
        if (newTargetBytes < 1 || newMaxDelayNanos < 0) {
            throw new IllegalArgumentException("target " + newTargetBytes + " B, delay " + newMaxDelayNanos + " ns");
        }
        controllerTargetBytes = newTargetBytes;
        targetBytes = Math.min(newTargetBytes, sizeCapBytes);
        maxDelayNanos = newMaxDelayNanos;
    }

    /**
     * The latency constraint's bound on the size (Nephele's output buffer size for this channel),
     * effective from the next record; {@link Integer#MAX_VALUE} for none.
     */
    public synchronized void setSizeCap(int capBytes) {
        if (capBytes < 1) {
            throw new IllegalArgumentException("size cap " + capBytes + " B");
        }
        sizeCapBytes = capBytes;
        targetBytes = Math.min(controllerTargetBytes, capBytes);
    }

    /** Targets from an oracle decision: its batch in bytes, and how long its oldest event may wait. */
    public void apply(BatchDecision decision, double eventBytes, long maxDelayNanos) {
        setTargets((int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.ceil(decision.batchSize() * Math.max(1, eventBytes)))),
                maxDelayNanos);
    }

    /** A record of {@code bytes} joined the pending data; true if the size target is reached now. */
    public boolean onRecord(int bytes, long nowNanos) {
        if (pendingRecords++ == 0) {
            oldestNanos = nowNanos;
        }
        pendingBytes += bytes;
        return pendingBytes >= targetBytes;
    }

    /** When the pending data must leave at the latest ({@link #NO_DEADLINE} if none is pending). */
    public long deadlineNanos() {
        long oldest = oldestNanos;
        return oldest == NO_DEADLINE ? NO_DEADLINE : oldest + maxDelayNanos;
    }

    /** When the oldest pending record arrived ({@link #NO_DEADLINE} if none is pending). */
    public long pendingSinceNanos() {
        return oldestNanos;
    }

    public boolean isDue(long nowNanos) {
        return nowNanos - deadlineNanos() >= 0 && oldestNanos != NO_DEADLINE;
    }

    /** The pending data left for {@code reason}. Writer thread. */
    public void onFlush(Reason reason) {
        if (pendingRecords > 0) {
            flushes[reason.ordinal()]++;
        }
        pendingBytes = 0;
        pendingRecords = 0;
        oldestNanos = NO_DEADLINE;
    }

    public int pendingBytes() {
        return pendingBytes;
    }

    public int pendingRecords() {
        return pendingRecords;
    }

    /** The size at which pending data leaves: the smaller of the controller's target and the cap. */
    public int targetBytes() {
        return targetBytes;
    }

    /** The latency constraint's bound on the size, {@link Integer#MAX_VALUE} for none. */
    public synchronized int sizeCapBytes() {
        return sizeCapBytes;
    }

    public long maxDelayNanos() {
        return maxDelayNanos;
    }

    /** Non-empty flushes so far for {@code reason} (writer thread's count; approximate elsewhere). */
    public long flushes(Reason reason) {
        return flushes[reason.ordinal()];
    }
}
