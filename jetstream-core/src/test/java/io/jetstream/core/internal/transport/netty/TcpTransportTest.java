package io.jetstream.core.internal.transport.netty;

import java.util.Map;


/** The contract over plain TCP (epoll where available). */
class TcpTransportTest extends TransportContractTest {
    @Override
    Map<String, Object> path() {
        return Map.of("transport.ring.enabled", false);
    }

    /** Many routes say HELLO at once on different I/O threads: they must all join one stream's state. */
    @org.junit.jupiter.api.Test
    void routesConnectingTogetherShareOneStream() throws Exception {
        Map<String, Object> o = Map.of("transport.ring.enabled", false, "transport.reliability", "acknowledged",
                "transport.io-threads", 4, "batch.max-routes", 16, "batch.mode", "fixed", "batch.fixed.target-bytes", 256);
        TransportTestSupport.Collector c = new TransportTestSupport.Collector();
        StreamReceiver r = transport("receiver", o).bind(0, c, t -> true, io.jetstream.core.api.SequenceStore.inMemory());
        NettyTransport sending = transport("sender", o);
        long expected = 0;
        for (int round = 0; round < 10; round++) {
            long before = r.metrics().connectionsAccepted();
            StreamSender s = sending.openSender("s", new java.net.InetSocketAddress("127.0.0.1", r.localAddress().getPort()),
                    io.jetstream.core.api.ControlListener.NONE);
            TransportTestSupport.await("16 routes", 10, () -> r.metrics().connectionsAccepted() - before >= 16 && s.isReady());
            for (int i = 0; i < 2_000; i++) {
                byte[] rec = TransportTestSupport.record(i, 40);
                s.send(0, rec, 0, rec.length);
            }
            s.flush();
            long target = expected += 2_000;
            int r0 = round;
            TransportTestSupport.await("round " + round, 10, () -> c.size() == target,
                    () -> "round " + r0 + ": delivered " + c.size() + " of " + target + "; sender " + s.metrics() + " unacked "
                            + s.batchesInFlight() + "; receiver " + r.metrics() + " " + r.watermarks());
            // While the stream is open all 16 routes share one state; a closed stream's state may be pruned at once.
            org.junit.jupiter.api.Assertions.assertEquals(1, r.watermarks().size(), "one stream state per (peer, stream)");
            s.close();
        }
    }

    @Override
    void assertPath(StreamSender sender) {
        org.junit.jupiter.api.Assertions.assertEquals(0, sender.ringBatches(), "batches over the ring");
    }
}
