package io.jetstream.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class MedianTest {
    @Test
    void anOddCountGivesTheMiddleValue() {
        assertEquals(3.0, Median.of(5, 1, 3), 0);
    }

    @Test
    void anEvenCountGivesTheMeanOfTheMiddleTwo() {
        assertEquals(2.5, Median.of(List.of(4, 1, 2, 3)), 0);
    }

    @Test
    void noValuesGiveNaN() {
        assertTrue(Double.isNaN(Median.of()));
    }

    @Test
    void theValuesAreNotReordered() {
        double[] values = {3, 1, 2};
        Median.of(values);
        assertEquals(3.0, values[0], 0);
    }
}
