package io.jetstream.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class LatencySummaryTest {
    @Test
    void percentilesAreTheSamplesAtTheirRank() {
        long[] nanos = new long[1_000];
        for (int i = 0; i < nanos.length; i++) {
            nanos[nanos.length - 1 - i] = (i + 1) * 1_000L; // 1..1000 µs, reversed
        }
        LatencySummary s = LatencySummary.of(nanos);
        assertEquals(1_000, s.count());
        assertEquals(500.0, s.p50Micros());
        assertEquals(990.0, s.p99Micros());
        assertEquals(999.0, s.p999Micros());
        assertEquals(1_000.0, s.maxMicros());
        assertEquals(1_000L, nanos[nanos.length - 1], "the samples are not reordered");
    }

    @Test
    void runsArePooled() {
        LatencySummary s = LatencySummary.ofAll(List.of(new long[] {1_000, 2_000}, new long[] {3_000, 4_000}));
        assertEquals(4, s.count());
        assertEquals(2.0, s.p50Micros());
        assertTrue(Double.isNaN(LatencySummary.of(new long[0]).p50Micros()));
    }
}
