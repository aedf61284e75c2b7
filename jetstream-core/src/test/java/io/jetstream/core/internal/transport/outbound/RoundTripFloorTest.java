package io.jetstream.core.internal.transport.outbound;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The idle round trip the sender's overdue-acknowledgement check scales with, in virtual time. */
class RoundTripFloorTest {

    @Test
    void theFloorIsTheShortestRoundTripSinceTheRoutesLastConnected() {
        RoundTripFloor floor = new RoundTripFloor();
        assertFalse(floor.known(), "nothing acknowledged yet");
        floor.onAcknowledged(0, 3_000_000);
        floor.onAcknowledged(10_000_000, 11_000_000); // 1 ms: the idle path
        floor.onAcknowledged(20_000_000, 60_000_000); // 40 ms behind a queue
        assertTrue(floor.known());
        assertEquals(1_000_000, floor.nanos());

        // Reconnected over a path of 100 ms: the old path's 1 ms must not stay the floor, or every
        // acknowledgement on the new path would read as overdue.
        floor.reset();
        assertFalse(floor.known(), "unknown until the new path is measured");
        floor.onAcknowledged(100_000_000, 250_000_000);
        floor.onAcknowledged(200_000_000, 300_000_000);
        assertEquals(100_000_000, floor.nanos());
    }
}
