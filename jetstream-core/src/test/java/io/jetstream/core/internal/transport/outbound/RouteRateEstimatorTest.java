package io.jetstream.core.internal.transport.outbound;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Read rates from cumulative acknowledgements, in virtual time: the route that holds the line is charged the wait. */
class RouteRateEstimatorTest {
    private static final long S = 1_000_000_000L;

    @Test
    void theRouteHoldingTheLineIsMeasuredAtItsOwnPaceAndTheOthersAtTheStreamsPace() {
        RouteRateEstimator e = new RouteRateEstimator(3, 0);
        // for one second, route 1's batches hold the watermark 0.9 s; route 0's 0.1 s; route 2's never
        e.onWatermark(1, 0, 900_000_000L);
        e.onAcknowledged(1, 9_000_000);
        e.onAcknowledged(2, 9_000_000);
        e.onWatermark(0, 850_000_000L, S);
        e.onAcknowledged(0, 9_000_000);
        e.endInterval(S);
        assertEquals(10e6, e.rate(1), 1, "9 MB over the 0.9 s it held the line");
        assertEquals(27e6, e.rate(0), 1, "90 MB/s over 0.1 s, capped by the stream's 27 MB/s");
        assertEquals(27e6, e.rate(2), 1, "never held the line: as fast as the stream went");
    }

    @Test
    void aRouteThatHoldsTheLineAndDeliversNothingReadsZeroAndOneThatCarriedNothingKeepsItsRate() {
        RouteRateEstimator e = new RouteRateEstimator(2, 0);
        e.onWatermark(-1, 0, S / 2); // nothing in flight: nobody charged
        e.onAcknowledged(0, 1_000_000);
        e.onAcknowledged(1, 1_000_000);
        e.onWatermark(1, S / 2, S);
        e.endInterval(S);
        assertEquals(2e6, e.rate(1), 1);
        double before = e.rate(0);
        e.onWatermark(1, S, 2 * S); // route 1 stalls a whole interval
        e.endInterval(2 * S);
        assertEquals(0.0, e.rate(1), "it held the line and delivered nothing: it does not answer");
        assertEquals(before, e.rate(0), "route 0 carried nothing: its rate stands");
        e.forget(1);
        assertTrue(Double.isNaN(e.rate(1)), "a lost route's rate is forgotten");
    }

    @Test
    void ratesAreSmoothedOverIntervals() {
        RouteRateEstimator e = new RouteRateEstimator(1, 0);
        e.onAcknowledged(0, 10_000_000);
        e.onWatermark(0, 0, S);
        e.endInterval(S);
        assertEquals(10e6, e.rate(0), 1);
        e.onAcknowledged(0, 20_000_000);
        e.onWatermark(0, S, 2 * S);
        e.endInterval(2 * S);
        assertEquals(10e6 + RouteRateEstimator.SMOOTHING * 10e6, e.rate(0), 1);
        e.onAcknowledged(0, 3_000_000); // a fifth of 15 MB/s: replaces the average at once
        e.onWatermark(0, 2 * S, 3 * S);
        e.endInterval(3 * S);
        assertEquals(3e6, e.rate(0), 1);
    }
}
