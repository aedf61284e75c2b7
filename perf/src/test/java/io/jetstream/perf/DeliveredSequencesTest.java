package io.jetstream.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class DeliveredSequencesTest {
    @Test
    void eachSequenceIsFirstOnceThenADuplicate() {
        DeliveredSequences s = new DeliveredSequences(130);
        for (long q : new long[] {0, 63, 64, 129, 5}) {
            assertEquals(DeliveredSequences.FIRST, s.mark(q), "first " + q);
        }
        assertEquals(DeliveredSequences.DUPLICATE, s.mark(64));
        assertEquals(DeliveredSequences.DUPLICATE, s.mark(0));
        assertEquals(DeliveredSequences.FIRST, s.mark(1), "a neighbour is not marked");
    }

    @Test
    void sequencesOutsideTheCapacityAreNotRecorded() {
        DeliveredSequences s = new DeliveredSequences(130);
        assertEquals(DeliveredSequences.OUT_OF_RANGE, s.mark(130));
        assertEquals(DeliveredSequences.OUT_OF_RANGE, s.mark(-1));
        assertEquals(DeliveredSequences.OUT_OF_RANGE, s.mark(Long.MAX_VALUE));
        assertEquals(DeliveredSequences.FIRST, s.mark(130 - 64), "130 did not mark its low bits' twin");
    }

    @Test
    void theCapacityIsBounded() {
        assertThrows(IllegalArgumentException.class, () -> new DeliveredSequences(0));
        assertThrows(IllegalArgumentException.class, () -> new DeliveredSequences(Long.MAX_VALUE));
    }
}
