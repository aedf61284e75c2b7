package io.jetstream.perf;

import java.util.function.LongSupplier;

/**
 * When the records of an open-loop sender at a fixed rate are due: record {@code n} at
 * {@code start + n / rate}. The sender asks how many records are due now ({@link #due}), sends them
 * as one burst (a sender that fell behind — a park overshot, the stream pushed back — catches up in
 * bursts, so the offered rate holds on average), and otherwise parks until the next one
 * ({@link #nanosUntilNext}) rather than spinning. Rate 0: every record is due at once (as fast as the
 * stream takes them).
 *
 * <p>Threading contract: one sending thread. The clock is injected (nanoseconds).
 */
public final class RecordPacer {
    private final double nanosPerRecord;
    private final LongSupplier clock;
    private final long startNanos;

    /** @param recordsPerSecond 0 for no pacing */
    public RecordPacer(double recordsPerSecond, LongSupplier clock) {
        if (!(recordsPerSecond >= 0) || Double.isInfinite(recordsPerSecond)) {
            throw new IllegalArgumentException("rate " + recordsPerSecond + " records/s: expected 0 or more");
        }
        this.nanosPerRecord = recordsPerSecond == 0 ? 0 : 1e9 / recordsPerSecond;
        this.clock = clock;
        this.startNanos = clock.getAsLong();
    }

    /** Records due now beyond the {@code sent} already sent, at most {@code max}. */
    public long due(long sent, long max) {
        if (nanosPerRecord == 0) {
            return max;
        }
        long elapsed = clock.getAsLong() - startNanos;
        long dueTotal = (long) (elapsed / nanosPerRecord) + 1; // record 0 is due at the start
        return Math.max(0, Math.min(max, dueTotal - sent));
    }

    /** How long until record {@code sent} is due (0 or less: due now). */
    public long nanosUntilNext(long sent) {
        if (nanosPerRecord == 0) {
            return 0;
        }
        return startNanos + (long) (sent * nanosPerRecord) - clock.getAsLong();
    }
}
