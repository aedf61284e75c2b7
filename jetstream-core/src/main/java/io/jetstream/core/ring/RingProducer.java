package io.jetstream.core.ring;

import static io.jetstream.core.internal.ring.RecordDescriptor.BATCH_ID_LENGTH;
import static io.jetstream.core.internal.ring.RecordDescriptor.BATCH_TUPLE_HEADER_LENGTH;
import static io.jetstream.core.internal.ring.RecordDescriptor.GENERATION_OFFSET;
import static io.jetstream.core.internal.ring.RecordDescriptor.HEADER_LENGTH;
import static io.jetstream.core.internal.ring.RecordDescriptor.STATUS_ABORTED;
import static io.jetstream.core.internal.ring.RecordDescriptor.STATUS_READY;
import static io.jetstream.core.internal.ring.RecordDescriptor.STATUS_WRITING;
import static io.jetstream.core.internal.ring.RecordDescriptor.TARGET_OFFSET;
import static io.jetstream.core.internal.ring.RecordDescriptor.TUPLE_LENGTH_OFFSET;
import static io.jetstream.core.internal.ring.RecordDescriptor.TUPLE_TARGET_OFFSET;
import static io.jetstream.core.internal.ring.RecordDescriptor.TYPE_BATCH;
import static io.jetstream.core.internal.ring.RecordDescriptor.TYPE_DATA;
import static io.jetstream.core.internal.ring.RecordDescriptor.TYPE_PADDING;

import io.jetstream.core.internal.ring.RecordDescriptor;
import io.jetstream.core.internal.ring.RingDescriptor;
import java.nio.ByteOrder;
import java.nio.file.Path;
import org.agrona.DirectBuffer;
import org.agrona.IoUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A producer attached to a ring created by a {@link RingConsumer}, possibly in another JVM. Many
 * producers (threads or processes, up to {@link RingDescriptor#MAX_PRODUCERS}) write concurrently:
 * each reserves space with one CAS on the shared tail (TurboStream §IV-C), writes its record in
 * place and publishes it with one ordered store.
 *
 * <p>Two-phase writes: {@link #tryClaim} (or the waiting {@link #claim}) returns the offset in
 * {@link #buffer()} where the payload goes; {@link #commit()} publishes it, {@link #abort()} gives it
 * up. One claim at a time per producer, which keeps each producer's records in order.
 * {@link #beginBatch}/{@link #append}/{@link #commitBatch} write a batch record of many tuples
 * (paper Fig. 5c). {@link #offer} is claim, copy and commit in one call.
 *
 * <p>Threading: a producer belongs to one thread at a time ({@code @NotThreadSafe}); create one per
 * writing thread. Nothing on the write path allocates.
 */
public final class RingProducer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RingProducer.class);

    /** {@link #tryClaim}: the ring has no room now (back-pressure). */
    public static final int BACK_PRESSURED = -1;

    private final MappedRing ring;
    private final UnsafeBuffer buffer;
    private final RingSettings settings;
    private final int slot;
    private final int slotOffset;
    private final int generation;
    private final IdleStrategy idle;
    /** Null when the consumer has no wake-up socket or {@code ring.wakeup} is off here. */
    private final RingWakeup.Signal signal;

    /** Last HEAD read; the consumer only moves it forward, so a stale value is conservative. */
    private long headCache;

    // State of the outstanding claim (producer thread only).
    private int claimOffset = -1;
    private int claimLength;
    private int claimType;
    private int batchCursor;
    private int batchEnd;
    /** Ring position just past the last record claimed (its padding included); -1 before the first. */
    private long claimEnd = -1;

    private long claims;
    private long backPressured;
    private long waits;
    private boolean closed;

    private RingProducer(MappedRing ring, RingSettings settings, int slot, int generation) {
        this.ring = ring;
        this.buffer = ring.buffer;
        this.settings = settings;
        this.slot = slot;
        this.slotOffset = RingDescriptor.slotOffset(slot);
        this.generation = generation;
        this.idle = settings.newIdleStrategy();
        this.signal = settings.wakeup() ? RingWakeup.Signal.connect(ring.file) : null;
    }

    /**
     * Attaches to ring {@code name} in the settings' directory and registers a producer slot. The
     * file is checked (owner, magic, version, size) before it is mapped.
     *
     * @throws RingFileException if the file is missing, foreign, corrupt or closed
     * @throws RingClosedException if its consumer is gone
     */
    public static RingProducer attach(RingSettings settings, String name) {
        Path file = RingDirectory.fileOf(settings.directory(), name);
        RingDirectory.Header header = RingDirectory.readHeader(file);
        if (header.state() != RingDescriptor.STATE_OPEN) {
            throw new RingFileException(file, "not open (state " + header.state() + ")");
        }
        if (!header.consumer().isAlive()) {
            throw new RingClosedException(file + ": its consumer (pid " + header.consumer().pid() + ") is gone");
        }
        MappedRing ring = new MappedRing(file, IoUtil.mapExistingFile(file.toFile(), "ring"), header.capacity(), header.maxPayload());
        try {
            int[] slotAndGeneration = register(ring.buffer);
            LOG.debug("Attached to ring {} as producer slot {}", file, slotAndGeneration[0]);
            return new RingProducer(ring, settings, slotAndGeneration[0], slotAndGeneration[1]);
        } catch (RuntimeException e) {
            ring.unmap();
            throw e;
        }
    }

    /** Takes a free slot, or the slot of a dead producer, and stamps it with this process. */
    private static int[] register(UnsafeBuffer buffer) {
        for (int pass = 0; pass < 2; pass++) {
            for (int slot = 0; slot < RingDescriptor.MAX_PRODUCERS; slot++) {
                int offset = RingDescriptor.slotOffset(slot);
                int state = buffer.getIntVolatile(offset + RingDescriptor.SLOT_STATE_OFFSET);
                boolean take = state == RingDescriptor.SLOT_FREE
                        || (pass == 1 && state == RingDescriptor.SLOT_ACTIVE && !new ProcessIdentity(
                                buffer.getLongVolatile(offset + RingDescriptor.SLOT_PID_OFFSET),
                                buffer.getLongVolatile(offset + RingDescriptor.SLOT_START_OFFSET)).isAlive());
                if (take && buffer.compareAndSetInt(offset + RingDescriptor.SLOT_STATE_OFFSET, state, RingDescriptor.SLOT_INITIALISING)) {
                    int generation = buffer.getInt(offset + RingDescriptor.SLOT_GENERATION_OFFSET) + 1;
                    buffer.putLongVolatile(offset + RingDescriptor.SLOT_CLAIM_POSITION_OFFSET, -1);
                    buffer.putLong(offset + RingDescriptor.SLOT_PID_OFFSET, ProcessIdentity.SELF.pid());
                    buffer.putLong(offset + RingDescriptor.SLOT_START_OFFSET, ProcessIdentity.SELF.startMillis());
                    buffer.putIntVolatile(offset + RingDescriptor.SLOT_GENERATION_OFFSET, generation);
                    buffer.putIntVolatile(offset + RingDescriptor.SLOT_STATE_OFFSET, RingDescriptor.SLOT_ACTIVE);
                    return new int[] {slot, generation};
                }
            }
        }
        throw new IllegalStateException("all " + RingDescriptor.MAX_PRODUCERS + " producer slots of the ring are taken by live producers");
    }

    /** The mapped ring: write a claimed payload at the offset {@link #tryClaim} returned. */
    public MutableDirectBuffer buffer() {
        return buffer;
    }

    /** Largest payload this ring takes. */
    public int maxRecordLength() {
        return ring.maxPayload;
    }

    /**
     * Reserves space for a record of {@code length} bytes for {@code target} without waiting.
     *
     * @return the offset of the payload in {@link #buffer()}, or {@link #BACK_PRESSURED}
     * @throws IllegalArgumentException if {@code length} exceeds {@link #maxRecordLength()}
     * @throws IllegalStateException if a claim is outstanding
     * @throws RingClosedException if the consumer closed the ring
     */
    public int tryClaim(int target, int length) {
        return claimRecord(TYPE_DATA, target, length);
    }

    /**
     * As {@link #tryClaim}, waiting with the idle strategy up to {@code ring.producer-wait-ms} while
     * the ring is full. Never overwrites unread data. Returns {@link #BACK_PRESSURED} on timeout.
     *
     * @throws RingClosedException if the consumer closes the ring or dies while we wait
     */
    public int claim(int target, int length) {
        return claimWaiting(TYPE_DATA, target, length);
    }

    private int claimRecord(int type, int target, int length) {
        if (claimOffset >= 0) {
            throw new IllegalStateException("a claim is outstanding: commit or abort it first");
        }
        if (length < 0 || length > ring.maxPayload) {
            throw new IllegalArgumentException("record length " + length + " outside 0.." + ring.maxPayload);
        }
        int state = buffer.getIntVolatile(RingDescriptor.STATE_OFFSET);
        if (state != RingDescriptor.STATE_OPEN) {
            throw new RingClosedException(ring.file + (state == RingDescriptor.STATE_FAILED
                    ? ": its consumer failed: " + RingFailure.reason(buffer) : ": closed by its consumer"));
        }
        int recordLength = RecordDescriptor.recordLength(length);
        long tail;
        int toEnd;
        int required;
        do {
            tail = buffer.getLongVolatile(RingDescriptor.TAIL_OFFSET);
            toEnd = ring.capacity - (int) (tail & ring.mask);
            required = recordLength <= toEnd ? recordLength : toEnd + recordLength;
            if (tail + required - headCache > ring.capacity) {
                // Touch the consumer's line only when the cached head says there is no room.
                headCache = buffer.getLongVolatile(RingDescriptor.HEAD_OFFSET);
                if (tail + required - headCache > ring.capacity) {
                    backPressured++;
                    return BACK_PRESSURED;
                }
            }
            // Announce the claim before making it, so a consumer can size it if we die in between.
            // Ordered stores suffice: the CAS below has release semantics and publishes them first.
            buffer.putIntOrdered(slotOffset + RingDescriptor.SLOT_CLAIM_LENGTH_OFFSET, required);
            buffer.putLongOrdered(slotOffset + RingDescriptor.SLOT_CLAIM_POSITION_OFFSET, tail);
        } while (!buffer.compareAndSetLong(RingDescriptor.TAIL_OFFSET, tail, tail + required));

        claimEnd = tail + required;
        int offset = ring.offsetOf(tail);
        if (required != recordLength) {
            // Wrap: the rest of the ring becomes a padding record (paper: flush), the record goes at 0.
            buffer.putLongOrdered(offset, RecordDescriptor.header(toEnd, STATUS_READY, TYPE_PADDING, slot));
            offset = RingDescriptor.HEADER_LENGTH;
        }
        buffer.putInt(offset + TARGET_OFFSET, target);
        buffer.putInt(offset + GENERATION_OFFSET, generation);
        buffer.putLongOrdered(offset, RecordDescriptor.header(length, STATUS_WRITING, type, slot));
        claimOffset = offset;
        claimLength = length;
        claimType = type;
        claims++;
        return offset + HEADER_LENGTH;
    }

    /** Publishes the outstanding claim. */
    public void commit() {
        checkClaim();
        buffer.putLongOrdered(claimOffset, RecordDescriptor.header(claimLength, STATUS_READY, claimType, slot));
        endClaim();
        if (signal != null) {
            signal.afterCommit(buffer);
        }
    }

    /** Gives up the outstanding claim; the consumer skips it. */
    public void abort() {
        checkClaim();
        buffer.putLongOrdered(claimOffset, RecordDescriptor.header(claimLength, STATUS_ABORTED, claimType, slot));
        endClaim();
    }

    private void checkClaim() {
        if (claimOffset < 0) {
            throw new IllegalStateException("no outstanding claim");
        }
    }

    private void endClaim() {
        claimOffset = -1;
        buffer.putLongOrdered(slotOffset + RingDescriptor.SLOT_CLAIM_POSITION_OFFSET, -1);
    }

    /**
     * Copies one record into the ring, waiting for space as {@link #claim} does.
     *
     * @return false on back-pressure (the ring stayed full for {@code ring.producer-wait-ms})
     */
    public boolean offer(int target, DirectBuffer source, int offset, int length) {
        int index = claim(target, length);
        if (index < 0) {
            return false;
        }
        buffer.putBytes(index, source, offset, length);
        commit();
        return true;
    }

    /**
     * Starts a batch record for stream {@code target} with id {@code batchId} and room for
     * {@code maxBytes} of tuples (each costs its length plus an {@value RecordDescriptor#BATCH_TUPLE_HEADER_LENGTH}-byte
     * inner head), waiting for space as {@link #claim} does. Fill it with {@link #append}, publish it
     * with {@link #commitBatch}.
     *
     * @return false on back-pressure
     */
    public boolean beginBatch(int target, long batchId, int maxBytes) {
        int index = claimWaiting(TYPE_BATCH, target, BATCH_ID_LENGTH + maxBytes);
        if (index < 0) {
            return false;
        }
        buffer.putLong(index, batchId);
        batchCursor = index + BATCH_ID_LENGTH;
        batchEnd = index + BATCH_ID_LENGTH + maxBytes;
        return true;
    }

    /**
     * Claims, without waiting, a batch record for stream {@code target} with id {@code batchId} whose
     * tuples, already laid out as {@link RecordDescriptor} says, take exactly {@code tuplesLength}
     * bytes: copy them to the returned offset in {@link #buffer()} and {@link #commit()} (one copy for
     * a whole batch).
     *
     * @return the offset of the tuples, or {@link #BACK_PRESSURED}
     * @throws IllegalArgumentException if the batch exceeds {@link #maxRecordLength()}
     * @throws RingClosedException if the consumer closed or failed the ring
     */
    public int tryClaimBatch(int target, long batchId, int tuplesLength) {
        if (tuplesLength < 0 || tuplesLength > ring.maxPayload - BATCH_ID_LENGTH) {
            throw new IllegalArgumentException("batch of " + tuplesLength + " tuple bytes; at most "
                    + (ring.maxPayload - BATCH_ID_LENGTH) + " fit in a record of this ring");
        }
        int index = claimRecord(TYPE_BATCH, target, BATCH_ID_LENGTH + tuplesLength);
        if (index < 0) {
            return BACK_PRESSURED;
        }
        buffer.putLong(index, batchId);
        return index + BATCH_ID_LENGTH;
    }

    private int claimWaiting(int type, int target, int length) {
        int index = claimRecord(type, target, length);
        if (index >= 0) {
            return index;
        }
        long now = System.nanoTime();
        long deadline = now + settings.producerWaitNanos();
        long nextConsumerCheck = now + settings.livenessCheckIntervalNanos();
        idle.reset();
        while ((index = claimRecord(type, target, length)) < 0) {
            now = System.nanoTime();
            if (now - deadline >= 0) {
                return BACK_PRESSURED;
            }
            if (now - nextConsumerCheck >= 0) {
                checkConsumerAlive();
                nextConsumerCheck = now + settings.livenessCheckIntervalNanos();
            }
            waits++;
            idle.idle();
        }
        return index;
    }

    /** Appends one tuple for task {@code tupleTarget} to the open batch; false if it does not fit (commit and start another). */
    public boolean append(int tupleTarget, DirectBuffer source, int offset, int length) {
        if (claimOffset < 0 || claimType != TYPE_BATCH) {
            throw new IllegalStateException("no batch open");
        }
        if (length < 0 || batchEnd - batchCursor < BATCH_TUPLE_HEADER_LENGTH + length) {
            return false;
        }
        buffer.putInt(batchCursor + TUPLE_TARGET_OFFSET, tupleTarget, ByteOrder.BIG_ENDIAN);
        buffer.putInt(batchCursor + TUPLE_LENGTH_OFFSET, length, ByteOrder.BIG_ENDIAN);
        buffer.putBytes(batchCursor + BATCH_TUPLE_HEADER_LENGTH, source, offset, length);
        batchCursor += BATCH_TUPLE_HEADER_LENGTH + length;
        return true;
    }

    /**
     * Publishes the open batch with the tuples appended so far. Space claimed but not used becomes a
     * padding record, written before the batch is published.
     */
    public void commitBatch() {
        if (claimOffset < 0 || claimType != TYPE_BATCH) {
            throw new IllegalStateException("no batch open");
        }
        int used = batchCursor - (claimOffset + HEADER_LENGTH);
        int claimedRecord = RecordDescriptor.recordLength(claimLength);
        int usedRecord = RecordDescriptor.recordLength(used);
        if (usedRecord < claimedRecord) {
            buffer.putLongOrdered(claimOffset + usedRecord,
                    RecordDescriptor.header(claimedRecord - usedRecord, STATUS_READY, TYPE_PADDING, slot));
        }
        claimLength = used;
        commit();
    }

    /**
     * Throws {@link RingClosedException} naming the cause if the ring's consumer closed or failed it,
     * or if its process is gone (pid and start time). A syscall: callers throttle it (once per
     * {@code ring.liveness-check-interval-ms}). Producer thread.
     */
    public void checkConsumer() {
        int state = buffer.getIntVolatile(RingDescriptor.STATE_OFFSET);
        if (state != RingDescriptor.STATE_OPEN) {
            throw new RingClosedException(ring.file + (state == RingDescriptor.STATE_FAILED
                    ? ": its consumer failed: " + RingFailure.reason(buffer) : ": closed by its consumer"));
        }
        checkConsumerAlive();
    }

    private void checkConsumerAlive() {
        ProcessIdentity consumer = new ProcessIdentity(
                buffer.getLongVolatile(RingDescriptor.CONSUMER_PID_OFFSET),
                buffer.getLongVolatile(RingDescriptor.CONSUMER_START_OFFSET));
        if (!consumer.isAlive()) {
            throw new RingClosedException(ring.file + ": its consumer (pid " + consumer.pid() + ") is gone");
        }
    }

    /** Records claimed so far (for tests and diagnostics in this package). */
    long claims() {
        return claims;
    }

    /** Claims that found the ring full. */
    public long backPressured() {
        return backPressured;
    }

    /** Idle rounds spent waiting for space (for tests and diagnostics in this package). */
    long waits() {
        return waits;
    }

    /**
     * The ring position just past this producer's last claimed record, or -1 before its first claim.
     * Once {@link #consumedUpTo()} reaches it, the consumer has delivered that record (and skipped it
     * if it was aborted). Producer thread.
     */
    public long lastClaimEnd() {
        return claimEnd;
    }

    /**
     * The consumer's head: every record before this position has been delivered to its handler (or
     * skipped) and its space given back. Only moves forward. One volatile read; not after {@link #close()}.
     */
    public long consumedUpTo() {
        return buffer.getLongVolatile(RingDescriptor.HEAD_OFFSET);
    }

    /** Aborts an outstanding claim, frees the producer slot and unmaps the ring. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (claimOffset >= 0) {
            abort();
        }
        buffer.putIntVolatile(slotOffset + RingDescriptor.SLOT_STATE_OFFSET, RingDescriptor.SLOT_FREE);
        if (signal != null) {
            signal.close();
        }
        ring.unmap();
    }
}
