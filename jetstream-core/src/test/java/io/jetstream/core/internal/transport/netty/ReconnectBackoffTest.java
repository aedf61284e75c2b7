package io.jetstream.core.internal.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** A route that never connected retries at the minimum while nothing listens; every other failure backs off. */
class ReconnectBackoffTest {
    @Test
    void aReceiverThatIsStillStartingIsTriedAtTheMinimumEveryTime() {
        ReconnectBackoff b = new ReconnectBackoff(100, 5_000);
        for (int attempt = 0; attempt < 20; attempt++) {
            assertEquals(100, b.afterNoListener(), "attempt " + attempt);
        }
    }

    @Test
    void aRefusedHandshakeOrALostConnectionBacksOffToTheMaximum() {
        ReconnectBackoff b = new ReconnectBackoff(100, 1_000);
        assertEquals(100, b.afterFailure());
        assertEquals(200, b.afterFailure());
        assertEquals(400, b.afterFailure());
        assertEquals(800, b.afterFailure());
        assertEquals(1_000, b.afterFailure());
        assertEquals(1_000, b.afterFailure());
    }

    @Test
    void onceConnectedARouteBacksOffEvenWhenNothingListensAndStartsOverWhenItConnectsAgain() {
        ReconnectBackoff b = new ReconnectBackoff(100, 1_000);
        b.connected();
        assertEquals(100, b.afterNoListener());
        assertEquals(200, b.afterNoListener());
        assertEquals(400, b.afterFailure());
        b.connected();
        assertEquals(100, b.afterNoListener());
    }

    @Test
    void boundsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> new ReconnectBackoff(0, 10));
        assertThrows(IllegalArgumentException.class, () -> new ReconnectBackoff(10, 5));
    }
}
