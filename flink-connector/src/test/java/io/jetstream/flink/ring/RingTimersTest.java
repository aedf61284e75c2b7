package io.jetstream.flink.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Timers in virtual time: nothing runs before it is due, due ones run in order of their time. */
class RingTimersTest {
    private final RingTimers timers = new RingTimers();
    private final List<String> ran = new ArrayList<>();

    @Test
    void dueCommandsRunInOrderOfTheirTimeAndNoneEarly() {
        timers.schedule(300, () -> ran.add("c"));
        timers.schedule(100, () -> ran.add("a"));
        timers.schedule(200, () -> ran.add("b"));
        assertEquals(100, timers.nextDue());

        assertEquals(0, timers.runDue(99));
        assertTrue(ran.isEmpty(), "nothing is due at 99");
        assertEquals(2, timers.runDue(200));
        assertEquals(List.of("a", "b"), ran);
        assertEquals(300, timers.nextDue());
        assertEquals(1, timers.runDue(1_000));
        assertEquals(List.of("a", "b", "c"), ran);
        assertTrue(timers.isEmpty());
    }

    @Test
    void aFailingCommandReachesTheLoop() {
        timers.schedule(0, () -> {
            throw new IllegalStateException("timer bug");
        });
        assertEquals("timer bug", assertThrows(IllegalStateException.class, () -> timers.runDue(0)).getMessage());
    }
}
