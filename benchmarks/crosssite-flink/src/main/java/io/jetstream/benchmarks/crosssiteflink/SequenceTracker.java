package io.jetstream.benchmarks.crosssiteflink;

import java.util.HashMap;
import java.util.Map;

/**
 * Which sequences of one sender arrived: a sparse bitmap in chunks of {@value #CHUNK_BITS} sequences
 * (8 KiB each, allocated when a chunk's first sequence arrives), so any range of sequences works and
 * 10^7 records take about 1.3 MB. Counts distinct and duplicated sequences and the lowest and highest
 * seen; {@link #gaps()} are the sequences missing between those two.
 *
 * <p>Threading contract: not thread-safe; one writing thread. The counters are read by other threads
 * only after that thread stopped (or as a racy, monotone progress figure).
 */
public final class SequenceTracker {
    static final int CHUNK_BITS = 1 << 16;
    private static final int CHUNK_SHIFT = 16;

    private final Map<Long, long[]> chunks = new HashMap<>();
    private long lastChunkIndex = Long.MIN_VALUE;
    private long[] lastChunk;
    private long distinct;
    private long duplicated;
    private long lowest = Long.MAX_VALUE;
    private long highest = Long.MIN_VALUE;

    /** Records {@code sequence} as arrived; true if it is the first time. Allocates only for a new chunk. */
    public boolean mark(long sequence) {
        long chunkIndex = sequence >>> CHUNK_SHIFT;
        long[] chunk;
        if (chunkIndex == lastChunkIndex) {
            chunk = lastChunk;
        } else {
            chunk = chunks.get(chunkIndex);
            if (chunk == null) {
                chunk = new long[CHUNK_BITS / 64];
                chunks.put(chunkIndex, chunk);
            }
            lastChunkIndex = chunkIndex;
            lastChunk = chunk;
        }
        int bitInChunk = (int) (sequence & (CHUNK_BITS - 1));
        long bit = 1L << bitInChunk;
        int word = bitInChunk >>> 6;
        if ((chunk[word] & bit) != 0) {
            duplicated++;
            return false;
        }
        chunk[word] |= bit;
        distinct++;
        lowest = Math.min(lowest, sequence);
        highest = Math.max(highest, sequence);
        return true;
    }

    /** Whether {@code sequence} arrived. */
    public boolean contains(long sequence) {
        long[] chunk = chunks.get(sequence >>> CHUNK_SHIFT);
        int bitInChunk = (int) (sequence & (CHUNK_BITS - 1));
        return chunk != null && (chunk[bitInChunk >>> 6] & (1L << bitInChunk)) != 0;
    }

    public long distinct() {
        return distinct;
    }

    public long duplicated() {
        return duplicated;
    }

    /** The lowest sequence seen, or -1 if none. */
    public long lowest() {
        return distinct == 0 ? -1 : lowest;
    }

    /** The highest sequence seen, or -1 if none. */
    public long highest() {
        return distinct == 0 ? -1 : highest;
    }

    /** Sequences between {@link #lowest()} and {@link #highest()} that did not arrive. */
    public long gaps() {
        return distinct == 0 ? 0 : highest - lowest + 1 - distinct;
    }

    /** How many of the sequences in {@code [from, to)} did not arrive. */
    public long missingIn(long from, long to) {
        long missing = 0;
        for (long s = from; s < to; s++) {
            if (!contains(s)) {
                missing++;
            }
        }
        return missing;
    }
}
