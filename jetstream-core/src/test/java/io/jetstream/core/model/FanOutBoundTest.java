package io.jetstream.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Atmosphere's K_p in virtual time: the bound follows the stream's rate and the CPU per connection. */
class FanOutBoundTest {
    private static final long SECOND = 1_000_000_000L;
    /** 50 Mbit/s towards remote sites. */
    private static final double QUOTA = 6.25e6;

    @Test
    void theBoundIsTheSmallerOfTheCpuAndTheBandwidthTerms() {
        FanOutBound k = new FanOutBound(QUOTA, 1.0, 0);
        // 1,000 msg/s of 1,000 B: one copy is 1 MB/s, the quota carries 6.25 copies; 4 connections use 20 % CPU: 5 % each.
        k.sample(0, 0.20, 4, 1_000, 1_000);
        assertEquals(6.25, k.bandwidthBound(), 1e-9);
        assertEquals(20, k.cpuBound(), 1e-9);
        assertEquals(6, k.bound());
        // The CPU per connection triples: 1 / 0.15 = 6.67 copies, still above the bandwidth's 6.25.
        k.sample(SECOND, 0.60, 4, 1_000, 1_000);
        assertEquals(6, k.bound());
        // And again: 1 / 0.25 = 4 copies, now the CPU bounds it.
        k.sample(2 * SECOND, 1.0, 4, 1_000, 1_000);
        assertEquals(4, k.bound());
    }

    @Test
    void asTheRateRisesTheBoundFallsWithinAFewTimeConstantsAndABurstBarelyMovesIt() {
        FanOutBound k = new FanOutBound(QUOTA, 1.0, 5 * SECOND);
        long t = 0;
        for (int i = 0; i < 60; i++, t += SECOND) {
            k.sample(t, 0.05, 2, 500, 1_000); // 0.5 MB/s per copy: 12 copies
        }
        assertEquals(12, k.bound());
        k.sample(t, 0.05, 2, 5_000, 1_000); // a one-second burst of 10x: unsmoothed, the bound would be 1
        assertEquals(4, k.bound(), "one second of a burst moves the average a fifth of the way (1 - e^-1/5)");
        t += SECOND;
        for (int i = 0; i < 30; i++, t += SECOND) { // the rate doubles for good: 1 MB/s per copy
            k.sample(t, 0.05, 2, 1_000, 1_000);
        }
        assertEquals(6, k.bound(), "after six time constants the bound follows the doubled rate");
    }

    @Test
    void nothingMeasuredLeavesItUnboundedAndItNeverFallsBelowOne() {
        FanOutBound k = new FanOutBound(QUOTA, 0.8, 0);
        assertEquals(FanOutBound.UNBOUNDED, k.bound());
        k.sample(0, 0.5, 0, 0, 1_000); // no connection yet, no traffic
        assertEquals(FanOutBound.UNBOUNDED, k.bound());
        k.sample(SECOND, 1.0, 1, 100_000, 1_000); // one copy is 100 MB/s: over the quota alone
        assertEquals(1, k.bound());
    }

    @Test
    void badArgumentsAreRefusedNamingThem() {
        assertThrows(IllegalArgumentException.class, () -> new FanOutBound(0, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new FanOutBound(QUOTA, 1.5, 0));
        FanOutBound k = new FanOutBound(QUOTA, 1, 0);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> k.sample(0, Double.NaN, 1, 1, 1));
        assertTrue(e.getMessage().contains("CPU NaN"), e.getMessage());
    }
}
