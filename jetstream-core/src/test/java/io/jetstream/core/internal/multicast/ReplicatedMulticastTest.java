package io.jetstream.core.internal.multicast;

import static io.jetstream.core.internal.multicast.MulticastTestSupport.await;
import static io.jetstream.core.internal.multicast.MulticastTestSupport.multicast;
import static io.jetstream.core.internal.multicast.MulticastTestSupport.record;
import static io.jetstream.core.internal.multicast.MulticastTestSupport.transport;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.MulticastDestination;
import io.jetstream.core.api.MulticastDestinationStats;
import io.jetstream.core.api.MulticastDestinationStats.State;
import io.jetstream.core.api.MulticastStream;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.Replicator;
import io.jetstream.core.api.ReplicatorSettings;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.api.Transport;
import io.jetstream.core.internal.multicast.MulticastTestSupport.Destination;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Replication at a destination site, on loopback: a site's receivers reached through its replicating node,
 * which confirms upstream; the node lost mid-stream, its receivers sent to directly, each record delivered once.
 */
class ReplicatedMulticastTest {
    private Transport receiving;
    private Transport sending;

    @BeforeEach
    void start() {
        receiving = Transport.start(transport(Map.of()), "site-b-receivers");
        sending = Transport.start(transport(Map.of()), "site-a-sender");
    }

    @AfterEach
    void stop() {
        sending.close();
        receiving.close();
    }

    private static void offer(MulticastStream m, long from, long to) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (long i = from; i < to; i++) {
            byte[] r = record(i, 120);
            int result;
            while ((result = m.offer(0, r, 0, r.length)) == OutboundStream.BACK_PRESSURED) {
                assertTrue(System.nanoTime() < deadline, "pushed back for 60 s at record " + i);
                Thread.onSpinWait();
            }
            assertEquals(OutboundStream.ACCEPTED, result);
        }
    }

    private static MulticastDestinationStats stats(MulticastStream m, String name) {
        return m.destinations().stream().filter(s -> s.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no destination " + name + " in " + m.destinations()));
    }

    @Test
    void aSiteReachedThroughItsReplicatingNodeThenDirectlyOnceTheNodeIsLostGetsEveryRecordOnce() throws Exception {
        try (Destination local = new Destination(receiving); Destination b1 = new Destination(receiving);
                Destination b2 = new Destination(receiving)) {
            List<InetSocketAddress> siteB = List.of(b1.endpoint.localAddress(), b2.endpoint.localAddress());
            Replicator node = Replicator.start(new ReplicatorSettings(0, siteB, TimeUnit.MILLISECONDS.toNanos(20), multicast(Map.of())),
                    transport(Map.of()), "site-b-replicator");
            MulticastStream m = sending.openMulticast("feed", List.of(
                    MulticastDestination.direct("local", 0, StreamRoutes.direct(local.endpoint.localAddress())),
                    MulticastDestination.replicated("site-b", 0, StreamRoutes.direct(node.localAddress()),
                            siteB.stream().map(StreamRoutes::direct).toList())),
                    multicast(Map.of("multicast.failover-timeout-ms", 300)));

            offer(m, 0, 5_000);
            await("site B has the first half through its node", 30, () -> b1.size() == 5_000 && b2.size() == 5_000,
                    () -> b1.size() + " " + b2.size() + " " + m.destinations());
            await("the node confirms it", 10, () -> stats(m, "site-b").confirmedPosition() == 5_000, () -> m.destinations().toString());
            assertEquals(State.REPLICATED, stats(m, "site-b").state());
            assertEquals(java.util.Set.of("site-b-replicator"), b1.peers, "site B's receivers heard only from the node");
            assertEquals(1, node.streams().size());

            node.close();
            offer(m, 5_000, 10_000);
            await("every destination has every record", 30,
                    () -> local.size() == 10_000 && b1.size() == 10_000 && b2.size() == 10_000,
                    () -> local.size() + " " + b1.size() + " " + b2.size() + " " + m.destinations());
            local.assertExactly(0, 10_000);
            b1.assertExactly(0, 10_000);
            b2.assertExactly(0, 10_000);
            assertEquals(State.FAILED_OVER, stats(m, "site-b").state());
            assertEquals(State.DIRECT, stats(m, "site-b/0").state());
            assertEquals(State.DIRECT, stats(m, "site-b/1").state());
            assertEquals(1L, m.metrics().get("failovers"));
            assertTrue(b1.peers.contains("site-a-sender"), "after the failover site B hears from the sender: " + b1.peers);
            assertEquals(0, b1.receiver.recordsMissing() + b2.receiver.recordsMissing());
            m.close();
        }
    }
}
