package io.jetstream.benchmarks.crosssiteflink;

import java.time.Instant;

/**
 * Wall-clock nanoseconds since the epoch, read per record without allocating: {@link System#nanoTime()}
 * plus an offset to the epoch taken from {@link Instant#now()} once per JVM (the tightest of a few
 * bracketed readings). The sending and the receiving job each read their own; on one machine (the
 * testbed's nodes share its clock) their difference is a one-way latency good to a few microseconds over
 * a benchmark's minutes (no NTP slewing is followed: runs are short).
 *
 * <p>Thread-safe: {@link #nanos()} from any thread.
 */
public final class EpochClock {
    private static final long OFFSET_NANOS = calibrate();

    private EpochClock() {
    }

    /** Nanoseconds since the epoch, now. */
    public static long nanos() {
        return System.nanoTime() + OFFSET_NANOS;
    }

    private static long calibrate() {
        long bestWidth = Long.MAX_VALUE;
        long bestOffset = 0;
        for (int i = 0; i < 9; i++) {
            long before = System.nanoTime();
            Instant now = Instant.now();
            long after = System.nanoTime();
            if (after - before < bestWidth) {
                bestWidth = after - before;
                bestOffset = now.getEpochSecond() * 1_000_000_000L + now.getNano() - (before + bestWidth / 2);
            }
        }
        return bestOffset;
    }
}
