package io.jetstream.benchmarks.crosssiteflink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class EventTest {
    @Test
    void encodesAndDecodesEveryField() {
        byte[] payload = {1, 2, 3, 4, 5};
        Event e = new Event(3, 1L << 40, 1_700_000_000_123_456_789L, payload);
        byte[] wire = new Event.Schema().serialize(e);
        assertEquals(Event.HEADER_BYTES + payload.length, wire.length);
        Event d = new Event.Schema().deserialize(wire);
        assertEquals(3, d.sender);
        assertEquals(1L << 40, d.sequence);
        assertEquals(1_700_000_000_123_456_789L, d.sendTimeNanos);
        assertArrayEquals(payload, d.payload);
    }

    @Test
    void refusesWhatIsNotAnEvent() {
        assertThrows(IllegalArgumentException.class, () -> Event.decode(new byte[10]));
        byte[] wrongMagic = Event.encode(new Event(0, 0, 0, new byte[0]));
        wrongMagic[0] ^= 1;
        assertThrows(IllegalArgumentException.class, () -> Event.decode(wrongMagic));
    }
}
