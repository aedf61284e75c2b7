package io.jetstream.core.transport.netty;

import java.util.Map;

/** The contract over plain TCP (epoll where available). */
class TcpTransportTest extends TransportContractTest {
    @Override
    Map<String, Object> path() {
        return Map.of("transport.ring.enabled", false);
    }

    @Override
    void assertPath(StreamSender sender) {
        org.junit.jupiter.api.Assertions.assertEquals(0, sender.ringBatches(), "batches over the ring");
    }
}
