package io.jetstream.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The pacer in virtual time. */
class RecordPacerTest {
    private long now = 1_000_000;

    @Test
    void recordsAreDueOneIntervalApartAndAParkedSenderCatchesUpInABurst() {
        RecordPacer pacer = new RecordPacer(1000, () -> now); // one record per ms
        assertEquals(1, pacer.due(0, 256), "record 0 is due at the start");
        assertEquals(0, pacer.due(1, 256));
        assertEquals(1_000_000, pacer.nanosUntilNext(1));
        now += 1_000_000;
        assertEquals(1, pacer.due(1, 256));
        now += 10_000_000; // the sender overslept 10 ms
        assertEquals(10, pacer.due(2, 256), "records 2..11 are due: one burst");
        assertEquals(4, pacer.due(2, 4), "a burst is capped");
        assertEquals(-9_000_000, pacer.nanosUntilNext(2), "record 2 was due 9 ms ago");
    }

    @Test
    void rateZeroMeansEveryRecordIsDue() {
        RecordPacer pacer = new RecordPacer(0, () -> now);
        assertEquals(256, pacer.due(12345, 256));
        assertEquals(0, pacer.nanosUntilNext(12345));
    }

    @Test
    void aNegativeRateIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new RecordPacer(-1, () -> now));
        assertThrows(IllegalArgumentException.class, () -> new RecordPacer(Double.NaN, () -> now));
    }
}
