package io.jetstream.core.ring;

import static io.jetstream.core.internal.ring.RecordDescriptor.BATCH_ID_LENGTH;
import static io.jetstream.core.internal.ring.RecordDescriptor.BATCH_TUPLE_HEADER_LENGTH;
import static io.jetstream.core.internal.ring.RecordDescriptor.GENERATION_OFFSET;
import static io.jetstream.core.internal.ring.RecordDescriptor.HEADER_LENGTH;
import static io.jetstream.core.internal.ring.RecordDescriptor.STATUS_ABORTED;
import static io.jetstream.core.internal.ring.RecordDescriptor.STATUS_FAILED;
import static io.jetstream.core.internal.ring.RecordDescriptor.STATUS_READ;
import static io.jetstream.core.internal.ring.RecordDescriptor.STATUS_READY;
import static io.jetstream.core.internal.ring.RecordDescriptor.STATUS_WRITING;
import static io.jetstream.core.internal.ring.RecordDescriptor.TARGET_OFFSET;
import static io.jetstream.core.internal.ring.RecordDescriptor.TYPE_BATCH;
import static io.jetstream.core.internal.ring.RecordDescriptor.TYPE_DATA;
import static io.jetstream.core.internal.ring.RecordDescriptor.TYPE_PADDING;

import io.jetstream.core.internal.ring.RecordDescriptor;
import io.jetstream.core.internal.ring.RingDescriptor;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.agrona.IoUtil;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consuming side of a ring (TurboStream's OSRBuffer): creates the ring file, reads records with
 * the sliding window of §IV-B, frees and zeroes consumed space, and removes the file on close, or
 * when the JVM begins to shut down if that comes first ({@link RingNamesOnExit}).
 *
 * <p><b>Sliding window.</b> The left edge ({@code head}) stops at the first record still being
 * written; the right edge goes on delivering committed records behind it, up to
 * {@link RingSettings#windowBytes()} past the left edge, and marks them READ so they are not
 * delivered twice; it holds back the later records of a producer whose earlier record is still being
 * written, so each producer's records arrive in the order it wrote them. A record stuck in WRITING is skipped (marked FAILED) only when its producer is
 * proven dead: its process is gone (pid and start time) or its producer slot was taken over. A live
 * producer is never skipped, even a slow one: its space must not be handed to another producer
 * while it may still write into it. The same rule covers a producer that died between claiming
 * space and writing the record header, found through the claim it announced in its slot.
 *
 * <p>Threading: one consumer thread calls {@link #poll}; {@link #metrics()} may be read from any
 * thread. {@code poll} allocates nothing.
 */
public final class RingConsumer implements AutoCloseable {
    /** Tuples one poll of {@link #run} delivers at most before {@link RecordHandler#afterPoll}. */
    private static final int POLL_LIMIT = 256;
    private static final Logger LOG = LoggerFactory.getLogger(RingConsumer.class);

    private final MappedRing ring;
    private final UnsafeBuffer buffer;
    private final RingSettings settings;
    private final Metrics metrics = new Metrics();
    private final long[] slotCheckedAt = new long[RingDescriptor.MAX_PRODUCERS];
    private final boolean[] slotAliveAtCheck = new boolean[RingDescriptor.MAX_PRODUCERS];
    private final int[] slotGenerationAtCheck = new int[RingDescriptor.MAX_PRODUCERS];
    /** Consumer-thread copy of HEAD. */
    private long head;
    /** Clock time of the last look at the tail behind an empty header (consumer thread). */
    private long lastGapCheck = Long.MIN_VALUE / 2;
    private boolean closed;
    /** Whether the file is gone from the directory ({@link #closeForProducers}); guarded by this. */
    private boolean removed;

    /** Null when {@code ring.wakeup} is off. */
    private final RingWakeup.Listener wakeup;

    private RingConsumer(MappedRing ring, RingSettings settings, RingWakeup.Listener wakeup) {
        this.ring = ring;
        this.wakeup = wakeup;
        this.buffer = ring.buffer;
        this.settings = settings;
        this.head = buffer.getLongVolatile(RingDescriptor.HEAD_OFFSET);
    }

    /**
     * Creates ring {@code name} in the settings' directory. A leftover file of a dead consumer is
     * replaced; a file whose consumer is alive is refused. The file appears under its final name only
     * once fully initialised, so producers never attach to a half-written header.
     */
    public static RingConsumer create(RingSettings settings, String name) {
        Path directory = RingDirectory.prepare(settings.directory());
        Path file = RingDirectory.fileOf(directory, name);
        if (Files.exists(file)) {
            RingDirectory.Header existing = RingDirectory.readHeader(file);
            if (existing.consumer().isAlive() && existing.state() == RingDescriptor.STATE_OPEN) {
                throw new RingFileException(file, "in use by a live consumer (pid " + existing.consumer().pid() + ")");
            }
            LOG.info("Replacing stale ring file {} of consumer pid {}", file, existing.consumer().pid());
        }
        Path temp = directory.resolve("." + name + ".init-" + ProcessIdentity.SELF.pid());
        MappedByteBuffer mapping = null;
        RingWakeup.Listener wakeup = null;
        try {
            Files.deleteIfExists(temp);
            Files.createFile(temp, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(RingDirectory.OWNER_ONLY_FILE));
            mapping = IoUtil.mapExistingFile(reserve(temp, RingDescriptor.fileLength(settings.capacity())).toFile(), "ring");
            UnsafeBuffer header = new UnsafeBuffer(mapping);
            header.putLong(RingDescriptor.MAGIC_OFFSET, RingDescriptor.MAGIC);
            header.putInt(RingDescriptor.VERSION_OFFSET, RingDescriptor.VERSION);
            header.putInt(RingDescriptor.HEADER_LENGTH_OFFSET, RingDescriptor.HEADER_LENGTH);
            header.putInt(RingDescriptor.CAPACITY_OFFSET, settings.capacity());
            header.putInt(RingDescriptor.MAX_PAYLOAD_OFFSET, settings.maxRecordLength());
            header.putLong(RingDescriptor.CONSUMER_PID_OFFSET, ProcessIdentity.SELF.pid());
            header.putLong(RingDescriptor.CONSUMER_START_OFFSET, ProcessIdentity.SELF.startMillis());
            header.putLongVolatile(RingDescriptor.TAIL_OFFSET, 0);
            header.putLongVolatile(RingDescriptor.HEAD_OFFSET, 0);
            header.putIntVolatile(RingDescriptor.STATE_OFFSET, RingDescriptor.STATE_OPEN);
            mapping.force();
            // Listen before the ring appears under its name, so every producer finds the socket.
            wakeup = settings.wakeup() ? new RingWakeup.Listener(RingWakeup.socketOf(file)) : null;
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            if (mapping != null) {
                IoUtil.unmap(mapping);
            }
            if (wakeup != null) {
                wakeup.close();
            }
            try {
                Files.deleteIfExists(temp);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e instanceof RingFileException r ? r : new RingFileException(file, "cannot create ring: " + e, e);
        }
        LOG.info("Created ring {} ({} data bytes, max record {} bytes, window {} bytes)",
                file, settings.capacity(), settings.maxRecordLength(), settings.windowBytes());
        RingConsumer consumer = new RingConsumer(new MappedRing(file, mapping, settings.capacity(), settings.maxRecordLength()),
                settings, wakeup);
        RingNamesOnExit.register(consumer);
        return consumer;
    }

    /**
     * Writes the whole file, so that every page of it is allocated now: ring files live on tmpfs,
     * and a page first touched through a mapping when tmpfs is full kills the JVM with SIGBUS. A
     * full file system is an {@link IOException} here instead, before anything is mapped.
     */
    static Path reserve(Path file, long length) throws IOException {
        java.nio.ByteBuffer zeros = java.nio.ByteBuffer.allocate((int) Math.min(length, 1 << 20));
        try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
            long position = 0;
            while (position < length) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), length - position));
                while (zeros.hasRemaining()) {
                    position += channel.write(zeros, position);
                }
            }
        } catch (IOException e) {
            throw new IOException("cannot reserve " + length + " bytes for the ring in " + file.getParent() + " (" + e.getMessage()
                    + "): the file system is full or limited. A container's /dev/shm is 64 MiB unless raised (docker run "
                    + "--shm-size, compose shm_size); each receiver's ring takes ring.capacity-bytes plus 8 KiB", e);
        }
        return file;
    }

    /**
     * Delivers up to {@code limit} tuples to {@code handler} and frees the space of everything the
     * left edge passed. Returns the number of tuples delivered (0 when idle). If the handler throws,
     * the tuples before are freed and the failing record is delivered again by the next poll.
     */
    public int poll(RecordHandler handler, int limit) {
        long position = head;
        long freeUpTo = head;
        boolean blocked = false;
        int delivered = 0;
        long windowEnd = Long.MAX_VALUE; // bounded once the left edge is blocked
        long blockedSlots = 0; // producers with a record still being written earlier in this scan
        // Never scan a full lap: beyond head + capacity lie this poll's records, not yet freed.
        long lapEnd = head + ring.capacity;
        try {
            while (delivered < limit && position < windowEnd && position < lapEnd) {
                int offset = ring.offsetOf(position);
                // Freed space is zeroed, so a non-zero header below head + capacity is a record of
                // this lap: read it first and touch the producers' tail line only when it is zero.
                long header = buffer.getLongVolatile(offset);
                if (header == 0) {
                    // Nothing here yet. Usually nothing was claimed; rarely a claim's header is late.
                    // Telling the two apart reads the producers' tail line, so an idle consumer does
                    // it at most once per liveness interval rather than on every poll.
                    long now = settings.nanoClock().getAsLong();
                    if (now - lastGapCheck < settings.livenessCheckIntervalNanos()
                            || position >= buffer.getLongVolatile(RingDescriptor.TAIL_OFFSET)) {
                        if (now - lastGapCheck >= settings.livenessCheckIntervalNanos()) {
                            lastGapCheck = now;
                        }
                        break;
                    }
                    lastGapCheck = now;
                    int abandoned = abandonedClaimLength(position);
                    if (abandoned <= 0) {
                        if (!blocked) {
                            add(metrics.stalls, 1);
                        }
                        break; // claimed by a live producer that has not written its header yet
                    }
                    if (buffer.getLongVolatile(offset) != 0) {
                        continue; // its producer wrote the header before it died: read the record
                    }
                    add(metrics.skipped, 1);
                    LOG.warn("Ring {}: skipped {} bytes claimed at position {} by a producer that died before writing",
                            ring.file, abandoned, position);
                    position += abandoned;
                    if (!blocked) {
                        freeUpTo = position;
                    }
                    continue;
                }
                int type = RecordDescriptor.type(header);
                int status = RecordDescriptor.status(header);
                int length = RecordDescriptor.length(header);
                int recordLength;
                if (type == TYPE_PADDING) {
                    recordLength = length;
                } else if ((type == TYPE_DATA || type == TYPE_BATCH) && length >= 0 && length <= ring.maxPayload) {
                    recordLength = RecordDescriptor.recordLength(length);
                } else {
                    throw new RingCorruptedException(ring.file, "record header 0x" + Long.toHexString(header)
                            + " at position " + position + " has type " + type + " and length " + length);
                }
                int slot = RecordDescriptor.slot(header);
                long slotBit = 1L << (slot & 63);
                if (status == STATUS_READY && type != TYPE_PADDING && (blockedSlots & slotBit) != 0) {
                    // A later record of a producer whose earlier record we saw still being written:
                    // hold it back, or that producer's records would be delivered out of order.
                    blocked = true;
                } else if (status == STATUS_READY && type != TYPE_PADDING) {
                    delivered += deliver(handler, type, offset, length);
                    if (blocked) {
                        buffer.putLongOrdered(offset, RecordDescriptor.withStatus(header, STATUS_READ));
                        add(metrics.readAhead, 1);
                    }
                } else if (status == STATUS_WRITING) {
                    if (producerDead(slot, buffer.getInt(offset + GENERATION_OFFSET))) {
                        // The header was read before the liveness check: a producer that committed this
                        // record and closed in between looks dead too. Only a header still WRITING is
                        // failed; otherwise read the record again.
                        if (!buffer.compareAndSetLong(offset, header, RecordDescriptor.withStatus(header, STATUS_FAILED))) {
                            continue;
                        }
                        add(metrics.skipped, 1);
                        LOG.warn("Ring {}: skipped a {}-byte record at position {}: its producer (slot {}) died while writing it",
                                ring.file, length, position, slot);
                    } else {
                        if (!blocked) {
                            add(metrics.stalls, 1);
                            windowEnd = position + settings.windowBytes();
                        }
                        blocked = true;
                        blockedSlots |= slotBit;
                    }
                } else if (status == STATUS_ABORTED) {
                    add(metrics.aborted, (blocked ? 0 : 1));
                } else if (status != STATUS_READ && status != STATUS_FAILED && status != STATUS_READY) {
                    throw new RingCorruptedException(ring.file, "record header 0x" + Long.toHexString(header)
                            + " at position " + position + " has status " + status);
                }
                position += recordLength;
                if (!blocked) {
                    freeUpTo = position;
                }
            }
        } finally {
            free(freeUpTo);
        }
        return delivered;
    }

    /**
     * Polls until {@code running} turns false. When polls find nothing it spins, yields, then either
     * blocks on the wake-up socket ({@code ring.wakeup}, up to {@code ring.idle.max-block-ms}) or parks
     * with doubling periods up to {@code ring.idle.max-park-ns}.
     *
     * <p>Anything thrown out of the loop — a corrupt record ({@link RingCorruptedException}), a failed
     * wake-up socket, a handler's exception — ends it for good: the ring is first marked failed with
     * the cause ({@link #fail}), so producers stop writing into a ring nobody reads, then the
     * exception is rethrown to the thread's owner.
     */
    public void run(RecordHandler handler, BooleanSupplier running) {
        try {
            runLoop(handler, running);
        } catch (RuntimeException | Error e) {
            fail(e.toString());
            throw e;
        }
    }

    private void runLoop(RecordHandler handler, BooleanSupplier running) {
        IdleStrategy idle = settings.newIdleStrategy();
        int idleRounds = 0;
        int blockAfter = settings.idleSpins() + settings.idleYields();
        while (running.getAsBoolean()) {
            // While spinning towards a block, an empty ring costs one volatile read, not a poll's clock read.
            boolean spinning = idleRounds > 0 && idleRounds <= blockAfter;
            int work = !spinning || hasRecordAtHead() ? pollAndSettle(handler) : 0;
            if (work > 0) {
                idleRounds = 0;
                idle.reset();
            } else if (wakeup != null && ++idleRounds > blockAfter) {
                // Announce the park, look once more (a commit may have missed the flag), then block.
                buffer.putIntVolatile(RingDescriptor.CONSUMER_PARKED_OFFSET, 1);
                if (pollAndSettle(handler) == 0 && running.getAsBoolean()) {
                    long maxBlockNanos = settings.maxBlockMillis() * 1_000_000L;
                    long blockNanos = Math.min(maxBlockNanos, Math.max(0, handler.onIdle(maxBlockNanos)));
                    // The handler's own deadline bounds the block (at least 1 ms: the socket's granularity).
                    wakeup.await(buffer, Math.max(1, (blockNanos + 999_999) / 1_000_000));
                } else {
                    buffer.putIntOrdered(RingDescriptor.CONSUMER_PARKED_OFFSET, 0);
                }
                idleRounds = 0;
            } else {
                if (wakeup == null && ++idleRounds > blockAfter) {
                    handler.onIdle(0); // no block to bound: the handler's deferred work is checked as often
                    idleRounds = 0;
                }
                idle.idle(0);
            }
        }
    }

    private int pollAndSettle(RecordHandler handler) {
        int delivered = poll(handler, POLL_LIMIT);
        if (delivered > 0) {
            handler.afterPoll();
        }
        return delivered;
    }

    /**
     * Marks the ring failed with {@code reason}: producers that claim next get a
     * {@link RingClosedException} naming it. Any thread; idempotent (the first reason stays).
     */
    public void fail(String reason) {
        if (buffer.getIntVolatile(RingDescriptor.STATE_OFFSET) == RingDescriptor.STATE_OPEN) {
            RingFailure.mark(buffer, reason);
            LOG.error("Ring {} failed and is closed to producers: {}", ring.file, reason);
        }
    }

    /** Whether the ring was marked failed ({@link #fail}). Any thread. */
    public boolean isFailed() {
        return buffer.getIntVolatile(RingDescriptor.STATE_OFFSET) == RingDescriptor.STATE_FAILED;
    }

    /** The wake-up socket's listener, or null (tests break it to see the consumer fail). */
    RingWakeup.Listener wakeupListener() {
        return wakeup;
    }

    /**
     * One idle step for a consumer thread that also serves work of its own (and so cannot use
     * {@link #run}): announces that it parks, polls once more (a commit may have missed the flag), and
     * if that delivered nothing blocks on the wake-up socket until a producer signals, {@link #wake()}
     * is called (before or during the block) or {@code maxBlockMillis} pass. Without a wake-up socket
     * ({@code ring.wakeup: false}) it only polls: the caller idles its own way. Consumer thread.
     *
     * @return the tuples the extra poll delivered
     */
    public int pollOrAwait(RecordHandler handler, int limit, long maxBlockMillis) {
        if (wakeup == null) {
            return poll(handler, limit);
        }
        buffer.putIntVolatile(RingDescriptor.CONSUMER_PARKED_OFFSET, 1);
        int delivered = poll(handler, limit);
        if (delivered == 0) {
            wakeup.await(buffer, Math.max(1, maxBlockMillis));
        } else {
            buffer.putIntOrdered(RingDescriptor.CONSUMER_PARKED_OFFSET, 0);
        }
        return delivered;
    }

    /**
     * Whether anything is at the head of the ring: a record, or a claim whose header is written. One
     * volatile read and no clock: a consumer spinning between polls asks this first, since an empty
     * {@link #poll} reads the clock for its gap check (half of a spinning thread's time, profiled).
     * A claim whose header is late reads as nothing here; the next {@link #poll} sees to it.
     * Consumer thread.
     */
    public boolean hasRecordAtHead() {
        return buffer.getLongVolatile(ring.offsetOf(head)) != 0;
    }

    /** Whether this consumer has a wake-up socket ({@code ring.wakeup}). Any thread. */
    public boolean hasWakeup() {
        return wakeup != null;
    }

    /** Wakes a consumer thread blocked on the wake-up socket (to see {@code running} turn false). Any thread. */
    public void wake() {
        if (wakeup != null) {
            wakeup.wake();
        }
    }

    private int deliver(RecordHandler handler, int type, int offset, int length) {
        int target = buffer.getInt(offset + TARGET_OFFSET);
        int payload = offset + HEADER_LENGTH;
        if (type == TYPE_DATA) {
            handler.onRecord(target, buffer, payload, length);
            add(metrics.messages, 1);
            add(metrics.bytes, length);
            return 1;
        }
        // A batch is delivered whole even beyond the budget: it cannot be resumed half-way. It is
        // checked first, so a batch with inconsistent tuples is skipped whole, never half-delivered.
        int tuples = length < BATCH_ID_LENGTH ? -1 : RecordDescriptor.countTuples(buffer, payload + BATCH_ID_LENGTH, length - BATCH_ID_LENGTH);
        if (tuples < 0) {
            add(metrics.corrupt, 1);
            LOG.error("Ring {}: batch record of {} bytes for target {} has inconsistent tuples; skipped whole", ring.file, length, target);
            return 0;
        }
        handler.onBatch(target, buffer.getLong(payload), buffer, payload + BATCH_ID_LENGTH, length - BATCH_ID_LENGTH, tuples);
        add(metrics.messages, tuples);
        add(metrics.bytes, length - BATCH_ID_LENGTH - (long) tuples * BATCH_TUPLE_HEADER_LENGTH);
        return tuples;
    }

    private static void add(AtomicLong counter, long delta) {
        counter.lazySet(counter.get() + delta); // single writer: the consumer thread
    }

    /** Zeroes [head, freeUpTo) and publishes the new head, releasing the space to producers. */
    private void free(long freeUpTo) {
        long from = head;
        if (freeUpTo <= from) {
            return;
        }
        while (from < freeUpTo) {
            int index = (int) (from & ring.mask);
            int chunk = (int) Math.min(freeUpTo - from, ring.capacity - index);
            buffer.setMemory(RingDescriptor.HEADER_LENGTH + index, chunk, (byte) 0);
            from += chunk;
        }
        head = freeUpTo;
        buffer.putLongOrdered(RingDescriptor.HEAD_OFFSET, freeUpTo);
    }

    /** Whether the producer of a WRITING record in {@code slot} with {@code generation} is gone. */
    private boolean producerDead(int slot, int generation) {
        if (slot < 0 || slot >= RingDescriptor.MAX_PRODUCERS) {
            return true;
        }
        int slotOffset = RingDescriptor.slotOffset(slot);
        if (buffer.getIntVolatile(slotOffset + RingDescriptor.SLOT_STATE_OFFSET) != RingDescriptor.SLOT_ACTIVE
                || buffer.getIntVolatile(slotOffset + RingDescriptor.SLOT_GENERATION_OFFSET) != generation) {
            return true; // the producer closed or its slot was taken over after it died
        }
        return !slotAlive(slot, slotOffset, generation);
    }

    /** Liveness of a slot's process, checked at most once per liveness interval. */
    private boolean slotAlive(int slot, int slotOffset, int generation) {
        long now = settings.nanoClock().getAsLong();
        if (slotGenerationAtCheck[slot] == generation && slotCheckedAt[slot] != 0
                && now - slotCheckedAt[slot] < settings.livenessCheckIntervalNanos()) {
            return slotAliveAtCheck[slot];
        }
        ProcessIdentity producer = new ProcessIdentity(
                buffer.getLongVolatile(slotOffset + RingDescriptor.SLOT_PID_OFFSET),
                buffer.getLongVolatile(slotOffset + RingDescriptor.SLOT_START_OFFSET));
        boolean alive = producer.isAlive();
        slotCheckedAt[slot] = now == 0 ? 1 : now;
        slotGenerationAtCheck[slot] = generation;
        slotAliveAtCheck[slot] = alive;
        return alive;
    }

    /**
     * Bytes from {@code position} to the end of the claim covering it, if the producer that announced
     * that claim is dead, else 0. A claim is announced before the CAS that makes it, so an
     * announcement may be stale (its producer lost the CAS and died before announcing again): while
     * any live producer announces this claim, the space is waited for, since that producer may have
     * won it. At the start of the ring the claim may also have begun earlier: a wrapping claim is its
     * padding and then the record at the start, and its producer may die between the two headers.
     */
    private int abandonedClaimLength(long position) {
        boolean ringStart = (position & ring.mask) == 0;
        long end = -1;
        for (int slot = 0; slot < RingDescriptor.MAX_PRODUCERS; slot++) {
            int slotOffset = RingDescriptor.slotOffset(slot);
            long claimed = buffer.getLongVolatile(slotOffset + RingDescriptor.SLOT_CLAIM_POSITION_OFFSET);
            if (claimed < 0 || claimed > position || (claimed < position && !ringStart)
                    || buffer.getIntVolatile(slotOffset + RingDescriptor.SLOT_STATE_OFFSET) != RingDescriptor.SLOT_ACTIVE) {
                continue;
            }
            int length = buffer.getIntVolatile(slotOffset + RingDescriptor.SLOT_CLAIM_LENGTH_OFFSET);
            if (length <= 0 || length > ring.capacity || position >= claimed + length
                    || buffer.getLongVolatile(slotOffset + RingDescriptor.SLOT_CLAIM_POSITION_OFFSET) != claimed) {
                continue;
            }
            if (slotAlive(slot, slotOffset, buffer.getIntVolatile(slotOffset + RingDescriptor.SLOT_GENERATION_OFFSET))) {
                return 0;
            }
            end = Math.max(end, claimed + length);
        }
        return end < 0 ? 0 : (int) (end - position);
    }

    /** Path of the ring file; producers attach to it by name. */
    public Path file() {
        return ring.file;
    }

    public Metrics metrics() {
        return metrics;
    }

    /**
     * Closes the ring to producers (a failed ring stays failed) and removes its file and wake-up
     * socket from the directory; the mapping stays valid for a consumer thread still delivering.
     * Any thread; idempotent.
     */
    public void closeForProducers() {
        synchronized (this) {
            if (removed) {
                return;
            }
            removed = true;
        }
        RingNamesOnExit.forget(this);
        if (buffer.getIntVolatile(RingDescriptor.STATE_OFFSET) == RingDescriptor.STATE_OPEN) {
            buffer.putIntVolatile(RingDescriptor.STATE_OFFSET, RingDescriptor.STATE_CLOSED);
        }
        try {
            Files.deleteIfExists(ring.file);
            Files.deleteIfExists(RingWakeup.socketOf(ring.file));
        } catch (IOException e) {
            LOG.warn("Could not delete ring file {}: {}", ring.file, e.toString());
        }
    }

    /**
     * {@link #closeForProducers}, then closes the wake-up socket and unmaps the ring. Only the
     * consumer thread may call it, or another thread once the consumer thread has ended: the
     * mapping must never go while a thread may still read it. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeForProducers();
        if (wakeup != null) {
            wakeup.close();
        }
        ring.unmap();
        LOG.info("Closed ring {}: {}", ring.file, metrics);
    }

    /**
     * Counters of one consumer. Written by the consumer thread only (ordered stores), readable from
     * any thread.
     */
    public static final class Metrics {
        final AtomicLong messages = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        final AtomicLong readAhead = new AtomicLong();
        final AtomicLong stalls = new AtomicLong();
        final AtomicLong skipped = new AtomicLong();
        final AtomicLong aborted = new AtomicLong();
        final AtomicLong corrupt = new AtomicLong();

        /** Tuples delivered. */
        public long messages() {
            return messages.get();
        }

        /** Payload bytes delivered. */
        public long bytes() {
            return bytes.get();
        }

        /** Records delivered by the right edge past a record still being written. */
        public long readAhead() {
            return readAhead.get();
        }

        /** Polls whose left edge waited on a live producer's record. */
        public long stalls() {
            return stalls.get();
        }

        /** Records (or claims) skipped because their producer died mid-write. */
        public long skipped() {
            return skipped.get();
        }

        /** Records aborted by their producer. */
        public long aborted() {
            return aborted.get();
        }

        /** Batch records whose inner lengths were inconsistent. */
        public long corrupt() {
            return corrupt.get();
        }

        @Override
        public String toString() {
            return "messages=" + messages() + ", bytes=" + bytes() + ", readAhead=" + readAhead() + ", stalls=" + stalls()
                    + ", skipped=" + skipped() + ", aborted=" + aborted() + ", corrupt=" + corrupt();
        }
    }
}
