package io.jetstream.perf;

/**
 * Which sequences of one stream were delivered: one bit per sequence in {@code [0, capacity)},
 * allocated once (the capacity is the receiver's {@code --max-records}, never a length a peer sent).
 *
 * <p>Threading contract: not thread-safe; one delivering thread at a time (a stream's batches are
 * never delivered concurrently).
 */
public final class DeliveredSequences {
    /** {@link #mark} of a sequence delivered for the first time. */
    public static final int FIRST = 0;
    /** {@link #mark} of a sequence delivered before. */
    public static final int DUPLICATE = 1;
    /** {@link #mark} of a sequence outside {@code [0, capacity)}: not recorded. */
    public static final int OUT_OF_RANGE = 2;

    private final long[] words;
    private final long capacity;

    public DeliveredSequences(long capacity) {
        if (capacity < 1 || capacity > (long) Integer.MAX_VALUE * 64) {
            throw new IllegalArgumentException("capacity " + capacity + " outside [1, " + (long) Integer.MAX_VALUE * 64 + "]");
        }
        this.capacity = capacity;
        this.words = new long[(int) ((capacity + 63) >>> 6)];
    }

    /** Records {@code sequence} as delivered: {@link #FIRST}, {@link #DUPLICATE} or {@link #OUT_OF_RANGE}. */
    public int mark(long sequence) {
        if (sequence < 0 || sequence >= capacity) {
            return OUT_OF_RANGE;
        }
        int word = (int) (sequence >>> 6);
        long bit = 1L << sequence; // shifts use the low 6 bits
        long w = words[word];
        if ((w & bit) != 0) {
            return DUPLICATE;
        }
        words[word] = w | bit;
        return FIRST;
    }

    public long capacity() {
        return capacity;
    }
}
