package io.jetstream.core.internal.transport.netty;

import java.util.Map;

/** The contract over TCP with Netty's NIO transport (the fallback where epoll does not load). */
class NioTransportTest extends TransportContractTest {
    @Override
    Map<String, Object> path() {
        return Map.of("transport.io", "nio", "transport.ring.enabled", false);
    }

    @Override
    void assertPath(StreamSender sender) {
        org.junit.jupiter.api.Assertions.assertEquals(0, sender.ringBatches(), "batches over the ring");
    }
}
