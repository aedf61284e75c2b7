package io.jetstream.flink.crosssite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The committable, writer state, split and enumerator state survive their serializers; other versions are refused. */
class SerializersTest {
    @Test
    void landedEpochRoundTrips() throws IOException {
        LandedEpoch.Serializer s = new LandedEpoch.Serializer();
        LandedEpoch e = new LandedEpoch("orders/3", 0x7fff_0000_1234L, 42);
        assertEquals(e, s.deserialize(s.getVersion(), s.serialize(e)));
        IOException newer = assertThrows(IOException.class, () -> s.deserialize(s.getVersion() + 1, s.serialize(e)));
        assertTrue(newer.getMessage().contains("version 2"), newer.getMessage());
    }

    @Test
    void splitRoundTrips() throws IOException {
        LandedStreamSplit.Serializer s = new LandedStreamSplit.Serializer();
        LandedStreamSplit split = new LandedStreamSplit("orders/0", 123_456_789_012L);
        assertEquals(split, s.deserialize(s.getVersion(), s.serialize(split)));
        assertEquals("orders/0", split.splitId());
        assertThrows(IOException.class, () -> s.deserialize(s.getVersion() + 1, s.serialize(split)));
    }

    @Test
    void enumeratorStateRoundTrips() throws IOException {
        CrossSiteEnumeratorState.Serializer s = new CrossSiteEnumeratorState.Serializer();
        CrossSiteEnumeratorState state = new CrossSiteEnumeratorState(Set.of("orders/0", "orders/1", "orders/2"),
                List.of(new LandedStreamSplit("orders/2", 0), new LandedStreamSplit("orders/1", 17)));
        assertEquals(state, s.deserialize(s.getVersion(), s.serialize(state)));
        CrossSiteEnumeratorState empty = new CrossSiteEnumeratorState(Set.of(), List.of());
        assertEquals(empty, s.deserialize(s.getVersion(), s.serialize(empty)));
        assertThrows(IOException.class, () -> s.deserialize(s.getVersion() + 1, s.serialize(state)));
    }
}
