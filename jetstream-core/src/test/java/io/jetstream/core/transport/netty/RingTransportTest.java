package io.jetstream.core.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

/**
 * The contract when both ends share a host: the handshake moves the data onto the receiver's
 * shared-memory ring (acknowledgements and control stay on TCP).
 */
class RingTransportTest extends TransportContractTest {
    @Override
    Map<String, Object> path() {
        return Map.of("transport.ring.enabled", true);
    }

    @Override
    void assertPath(StreamSender sender) {
        assertTrue(sender.peerOnSameHost(), "the handshake shows one host");
        assertEquals(sender.metrics().batchesSent(), sender.ringBatches(), "every batch went over the ring");
    }
}
