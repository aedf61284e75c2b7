package io.jetstream.core.internal.transport.journal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Where an acknowledged stream keeps sealed batches beyond its memory: the {@link SpillJournal}
 * holds only the batches memory could not (overflow, one process's lifetime); the
 * {@link DurableJournal} writes every batch ahead of sending it and survives the process, so that a
 * restarted sender replays what its receiver has not acknowledged.
 *
 * <p>A journal is handed batches in sequence order. The batches it holds apart from memory
 * ("spilled") are always younger than every batch in memory, so reading them back in order keeps
 * the stream's order.
 *
 * <p>Not thread-safe: the owning outbox calls it under its lock.
 */
public interface StreamJournal extends AutoCloseable {
    /** Whether every batch goes through the journal ({@link #append} with {@code spilled} false too). */
    boolean writesAhead();

    /** Whether a frame of {@code bytes} still fits the journal's budget ({@code transport.journal.max-bytes}). */
    boolean hasRoomFor(int bytes);

    /**
     * Records a sealed batch (the frame's readable bytes, not consumed; the caller keeps ownership).
     * {@code spilled}: memory does not keep it, {@link #pollSpilled} will give it back.
     *
     * @throws JournalException if it could not be written: nothing of it counts as journaled
     */
    void append(ByteBuf frame, long sequence, boolean spilled);

    /**
     * The oldest spilled frame not read back yet, in a new buffer from {@code alloc}, or null.
     *
     * @throws JournalCorruptedException if an entry is not a frame this journal could have written
     * @throws JournalException if the journal cannot be read
     */
    ByteBuf pollSpilled(ByteBufAllocator alloc);

    /** Spilled frames not read back yet. */
    long spilledFrames();

    /** The receiver delivered everything up to {@code sequence}: a durable journal may forget it. */
    void acknowledged(long sequence);

    /** Closes the files; a spill journal deletes them, a durable journal keeps what is unacknowledged. */
    @Override
    void close();
}
