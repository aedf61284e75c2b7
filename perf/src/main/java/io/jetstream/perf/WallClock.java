package io.jetstream.perf;

import java.time.Instant;

/**
 * The wall clock, read per record without allocating: {@link System#nanoTime()} plus an offset to
 * the epoch, calibrated against {@link Instant#now()} (the system's real-time clock, at its full
 * resolution) when built and at every {@link #recalibrate()} — each report interval — so that the
 * real-time clock's slewing (NTP) is followed. One-way latencies from two processes' wall clocks are
 * only as good as the agreement of the two hosts' clocks: on one host, or hosts sharing one clock
 * (the emulated testbed), within a microsecond; between sites, the NTP/PTP offset of the two.
 *
 * <p>Threading contract: {@link #nanos()} from any thread (one volatile read); {@link #recalibrate()}
 * from one thread at a time (the reporter).
 */
public final class WallClock {
    private static final int CALIBRATION_TRIES = 7;

    private volatile long offsetNanos;

    public WallClock() {
        recalibrate();
    }

    /** Nanoseconds since the epoch, now. */
    public long nanos() {
        return System.nanoTime() + offsetNanos;
    }

    /** Re-reads the real-time clock: keeps the offset from the tightest of a few bracketed readings. Allocates. */
    public void recalibrate() {
        long bestWidth = Long.MAX_VALUE;
        long bestOffset = offsetNanos;
        for (int i = 0; i < CALIBRATION_TRIES; i++) {
            long before = System.nanoTime();
            Instant now = Instant.now();
            long after = System.nanoTime();
            long width = after - before;
            if (width < bestWidth) {
                bestWidth = width;
                long epochNanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
                bestOffset = epochNanos - (before + width / 2);
            }
        }
        offsetNanos = bestOffset;
    }
}
