package io.jetstream.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class LatencySummaryTest {
    @Test
    void percentilesAreTheSamplesAtTheirRank() {
        // 1..1,000 ns: below 2,048 ns HdrHistogram keeps every value exactly at 3 significant digits.
        long[] nanos = new long[1_000];
        for (int i = 0; i < nanos.length; i++) {
            nanos[nanos.length - 1 - i] = i + 1; // reversed
        }
        LatencySummary s = LatencySummary.of(nanos);
        assertEquals(1_000, s.count());
        assertEquals(0.500, s.p50Micros());  // rank ⌈0.5 · 1000⌉ = 500
        assertEquals(0.990, s.p99Micros());  // rank 990
        assertEquals(0.999, s.p999Micros()); // rank 999
        assertEquals(1.000, s.maxMicros());
        assertEquals(1L, nanos[nanos.length - 1], "the samples are not reordered");
    }

    @Test
    void largerSamplesAreReportedAsTheTopOfTheirBucketWithinAThousandth() {
        long[] nanos = new long[1_000];
        for (int i = 0; i < nanos.length; i++) {
            nanos[i] = (i + 1) * 1_000L; // 1..1,000 µs
        }
        LatencySummary s = LatencySummary.of(nanos);
        Histogram precision = new Histogram(LatencySummary.SIGNIFICANT_DIGITS);
        assertEquals(precision.highestEquivalentValue(500_000) / 1e3, s.p50Micros());
        assertEquals(precision.highestEquivalentValue(990_000) / 1e3, s.p99Micros());
        assertEquals(precision.highestEquivalentValue(999_000) / 1e3, s.p999Micros());
        assertEquals(precision.highestEquivalentValue(1_000_000) / 1e3, s.maxMicros());
        assertWithinAThousandthAbove(500, s.p50Micros());
        assertWithinAThousandthAbove(990, s.p99Micros());
        assertWithinAThousandthAbove(999, s.p999Micros());
        assertWithinAThousandthAbove(1_000, s.maxMicros());
        assertTrue(s.p999Micros() <= s.maxMicros());
    }

    @Test
    void runsArePooled() {
        LatencySummary s = LatencySummary.ofAll(List.of(new long[] {1_000, 2_000}, new long[] {300, 400}));
        assertEquals(4, s.count());
        assertEquals(0.4, s.p50Micros());
        assertEquals(2.0, s.maxMicros());
        assertEquals(2.0, LatencySummary.ofAll(List.of(new long[] {2_000}, new long[0])).maxMicros());
        assertTrue(Double.isNaN(LatencySummary.of(new long[0]).p50Micros()));
        assertEquals(0, LatencySummary.ofAll(List.of()).count());
    }

    @Test
    void aNegativeSampleIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> LatencySummary.of(new long[] {5, -1}));
    }

    private static void assertWithinAThousandthAbove(double exact, double reported) {
        assertTrue(reported >= exact && reported <= exact * 1.001, reported + " not within 0.1 % above " + exact);
    }
}
