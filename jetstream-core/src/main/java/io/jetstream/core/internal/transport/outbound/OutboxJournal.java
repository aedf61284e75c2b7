package io.jetstream.core.internal.transport.outbound;

import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.LENGTH_FIELD;

import io.jetstream.core.internal.transport.journal.StreamJournal;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link Outbox}'s use of its {@link StreamJournal}: which batches spill there (those beyond the
 * outbox's memory, and every one after the first spilled, to keep the order), which are written
 * ahead (a durable journal's: all), reading the spilled ones back, and whether the journal's budget
 * still has room. Without a journal (a best-effort stream, or none configured) it holds nothing.
 *
 * <p>A journal that fails once is not used again: the stream has failed (memory keeps what it has).
 * A failure while batches are written is thrown to the caller (the producer, whose stream then
 * fails); one while spilled batches are read back, which may happen on any thread that moves the
 * outbox, is reported to the stream's {@link StreamFailure} and not thrown.
 *
 * <p>Threading contract: not thread-safe; the outbox calls it under its lock.
 */
final class OutboxJournal {
    private static final Logger LOG = LoggerFactory.getLogger(OutboxJournal.class);

    /** Null without a journal. */
    private final StreamJournal journal;
    private final String name;
    private final long memoryBytesConfigured;
    private final int maxFrameBytes;
    private final ByteBufAllocator alloc;
    private final StreamFailure failure;
    private boolean broken;

    /**
     * @param journal the stream's journal, or null
     * @param memoryBytesConfigured {@code transport.memory-bytes}: beyond it batches spill
     * @param failure where a failure to read spilled batches back is reported
     */
    OutboxJournal(StreamJournal journal, String name, long memoryBytesConfigured, int maxFrameBytes, ByteBufAllocator alloc,
            StreamFailure failure) {
        this.journal = journal;
        this.name = name;
        this.memoryBytesConfigured = memoryBytesConfigured;
        this.maxFrameBytes = maxFrameBytes;
        this.alloc = alloc;
        this.failure = failure;
    }

    /** Whether there is a journal and it has not failed. */
    private boolean usable() {
        return journal != null && !broken;
    }

    /**
     * Journals a batch as it reaches the outbox, if it spills (memory would hold more than
     * {@code transport.memory-bytes} with it, or batches are spilled already) or the journal writes
     * every batch ahead. Returns whether it spilled: memory is not to keep it.
     *
     * @param memoryBytesWith the outbox's memory with this batch in it
     * @throws RuntimeException the journal's failure: the batch is not journaled, the journal is not
     *     used again, the caller keeps the batch in memory
     */
    boolean append(ByteBuf frame, long sequence, long memoryBytesWith) {
        if (!usable()) {
            return false;
        }
        boolean spill = journal.spilledFrames() > 0 || memoryBytesWith > memoryBytesConfigured;
        if (spill || journal.writesAhead()) {
            try {
                journal.append(frame, sequence, spill);
            } catch (RuntimeException e) {
                broken = true;
                throw e;
            }
        }
        return spill;
    }

    /**
     * The oldest spilled batch, read back into a new buffer, or null if none is spilled or the
     * journal failed. A failure to read is reported to the stream's {@link StreamFailure}.
     *
     * @param acknowledged the stream's acknowledged sequence, for the failure's message
     */
    ByteBuf pollSpilled(long acknowledged) {
        if (!usable() || journal.spilledFrames() == 0) {
            return null;
        }
        try {
            return journal.pollSpilled(alloc);
        } catch (RuntimeException e) {
            broken = true;
            failure.fail(e, "while it read spilled batches back (" + journal.spilledFrames() + " batches after sequence "
                    + acknowledged + " cannot be sent)");
            return null;
        }
    }

    /** Spilled batches not read back yet (those of a failed journal included: they are not sent). */
    long spilledFrames() {
        return journal == null ? 0 : journal.spilledFrames();
    }

    /** Whether a working journal still holds spilled batches to send. */
    boolean holdsSpilled() {
        return usable() && journal.spilledFrames() > 0;
    }

    /**
     * Whether the journal lets the producer add more: {@code memoryHasRoom} (the outbox is below its
     * bound) or, at the configured bound ({@code atConfiguredBound}), the journal has room for a
     * frame. A write-ahead journal without room pushes back whatever memory holds.
     */
    boolean admits(boolean memoryHasRoom, boolean atConfiguredBound) {
        boolean journalRoom = usable() && journal.hasRoomFor(maxFrameBytes + LENGTH_FIELD);
        boolean room = memoryHasRoom || atConfiguredBound && journalRoom;
        if (usable() && journal.writesAhead() && !journalRoom) {
            room = false; // every batch is journaled first: a full journal pushes back whatever memory holds
        }
        return room;
    }

    /** The receiver delivered everything up to {@code sequence}: the journal may forget it. */
    void acknowledged(long sequence) {
        if (usable()) {
            journal.acknowledged(sequence);
        }
    }

    /**
     * Logs what it keeps for the stream's next start (a durable journal) or what
     * spilled and was never sent. {@code heldInMemory}: unacknowledged batches the outbox drops.
     */
    void reportOnClose(int heldInMemory) {
        if (journal == null) {
            return;
        }
        long spilled = journal.spilledFrames();
        if (journal.writesAhead() && !broken) {
            if (heldInMemory > 0 || spilled > 0) {
                LOG.warn("Stream {}: closing with {} unacknowledged batches; the durable journal keeps them for the "
                        + "stream's next start", name, heldInMemory + spilled);
            }
        } else if (spilled > 0) {
            LOG.warn("Stream {}: {} spilled batches were never sent before close", name, spilled);
        }
    }

    /** Closes the journal's files, once the outbox dropped what it held. */
    void close() {
        if (journal != null) {
            journal.close();
        }
    }

    /** For messages. */
    String describe() {
        return journal == null ? "no journal" : journal.spilledFrames() + " spilled";
    }
}
