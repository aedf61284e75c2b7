package io.jetstream.benchmarks.crosssiteflink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SequenceTrackerTest {
    @Test
    void countsDuplicatesAndGapsAcrossChunks() {
        SequenceTracker t = new SequenceTracker();
        long base = 4_611_686_018_427_387_903L; // a generator split's start with an unbounded count
        for (long s = 0; s < 3 * SequenceTracker.CHUNK_BITS; s++) {
            if (s != 70_000 && s != 70_001) {
                assertTrue(t.mark(base + s));
            }
        }
        assertFalse(t.mark(base + 5));
        assertFalse(t.mark(base + 2 * SequenceTracker.CHUNK_BITS + 1));
        assertEquals(3L * SequenceTracker.CHUNK_BITS - 2, t.distinct());
        assertEquals(2, t.duplicated());
        assertEquals(2, t.gaps());
        assertEquals(base, t.lowest());
        assertEquals(base + 3L * SequenceTracker.CHUNK_BITS - 1, t.highest());
        assertEquals(2, t.missingIn(base + 69_990, base + 70_010));
        assertFalse(t.contains(base + 70_000));
    }

    @Test
    void accountsForMissingSequencesOfAllSenders() {
        ReceiveAccount account = new ReceiveAccount();
        for (long s = 0; s < 1000; s++) {
            if (s != 500) {
                account.record(new Event((int) (s % 2), s, 0, new byte[0]), 1_000);
            }
        }
        account.record(new Event(1, 7, 0, new byte[0]), 1_000);
        assertEquals(999, account.distinct());
        assertEquals(1, account.duplicated());
        assertEquals(1, account.missingOf(1000));
        assertEquals(3, account.missingOf(1002));
    }
}
