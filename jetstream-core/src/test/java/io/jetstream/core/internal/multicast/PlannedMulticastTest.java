package io.jetstream.core.internal.multicast;

import static io.jetstream.core.internal.multicast.MulticastTestSupport.await;
import static io.jetstream.core.internal.multicast.MulticastTestSupport.multicast;
import static io.jetstream.core.internal.multicast.MulticastTestSupport.record;
import static io.jetstream.core.internal.multicast.MulticastTestSupport.transport;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.MulticastDestinationStats.State;
import io.jetstream.core.api.MulticastSite;
import io.jetstream.core.api.MulticastStream;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.Replicator;
import io.jetstream.core.api.ReplicatorSettings;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.api.Transport;
import io.jetstream.core.internal.multicast.MulticastTestSupport.Destination;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A planned multicast on loopback, its outbound quota set to 0.8 Mbit/s (100 kB/s) so that the rate decides: at
 * 50 records/s of 100 B four copies fit and every receiver is sent to directly (faster than a hop through a node
 * said to cost 20 ms); at 250 records/s they do not (nor three), and both sites switch to their replicating node;
 * every receiver delivers every record once, in order, across the switch.
 */
class PlannedMulticastTest {
    private Transport receiving;
    private Transport sending;

    @BeforeEach
    void start() {
        receiving = Transport.start(transport(Map.of()), "receivers");
        // adaptive batching (the default): at a low rate a batch is a record or two, as the model is told
        sending = Transport.start(transport(Map.of("batch.mode", "adaptive")), "sender");
    }

    @AfterEach
    void stop() {
        sending.close();
        receiving.close();
    }

    /** Offers records [from, to) at {@code rate} per second. */
    private static void offer(MulticastStream m, long from, long to, double rate) {
        long start = System.nanoTime();
        for (long i = from; i < to; i++) {
            long due = start + (long) ((i - from) * 1e9 / rate);
            long wait = due - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            byte[] r = record(i, 100);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            int result;
            while ((result = m.offer(0, r, 0, r.length)) == OutboundStream.BACK_PRESSURED) {
                assertTrue(System.nanoTime() < deadline, "pushed back for 30 s");
                Thread.onSpinWait();
            }
            assertEquals(OutboundStream.ACCEPTED, result);
            m.endOfSend();
        }
    }

    @Test
    void theRateMovesBothSitesFromDirectToTheirReplicatingNodeAndEveryRecordArrivesOnce() throws Exception {
        List<Destination> receivers = new ArrayList<>();
        List<Replicator> nodes = new ArrayList<>();
        List<MulticastSite> sites = new ArrayList<>();
        try {
            for (String site : List.of("b", "c")) {
                Destination r1 = new Destination(receiving);
                Destination r2 = new Destination(receiving);
                receivers.add(r1);
                receivers.add(r2);
                List<InetSocketAddress> members = List.of(r1.endpoint.localAddress(), r2.endpoint.localAddress());
                Replicator node = Replicator.start(new ReplicatorSettings(0, members, TimeUnit.MILLISECONDS.toNanos(20),
                        multicast(Map.of())), transport(Map.of()), "node-" + site);
                nodes.add(node);
                sites.add(new MulticastSite(site, 0, StreamRoutes.direct(node.localAddress()),
                        members.stream().map(StreamRoutes::direct).toList()));
            }
            MulticastStream m = sending.openPlannedMulticast("planned", sites, multicast(Map.of(
                    "multicast.plan.interval-ms", 200, "multicast.plan.outbound-quota-mbit", 0.8,
                    "multicast.plan.intra-site-latency-ms", 20)));
            await("planned", 10, () -> m.planGauges().getOrDefault("plan.direct-connections", 0.0) > 0, () -> m.planGauges().toString());
            offer(m, 0, 150, 50);
            assertEquals(4.0, m.planGauges().get("plan.direct-connections"), "four copies fit at 50 records/s: " + m.planGauges());
            assertEquals(0.0, m.planGauges().get("plan.replicated-sites"), m.planGauges().toString());

            offer(m, 150, 1_350, 250);
            await("both sites through their node", 10, () -> m.planGauges().get("plan.replicated-sites") == 2.0,
                    () -> m.planGauges() + " " + m.destinations());
            // while the stream runs, what it measured stands beside what the model predicted
            java.util.concurrent.CompletableFuture<Void> producing = java.util.concurrent.CompletableFuture.runAsync(
                    () -> offer(m, 1_350, 1_850, 250));
            await("measured beside predicted", 10, () -> {
                Map<String, Double> g = m.planGauges();
                return g.get("plan.measured-latency-ms") > 0 && g.get("plan.measured-outbound-bytes-per-s") > 0
                        && g.get("plan.predicted-outbound-bytes-per-s") > 0 && g.get("plan.measured-spend-per-hour") > 0
                        && g.get("plan.routes-in-use") >= 1;
            }, () -> m.planGauges().toString());
            assertEquals(1.0, m.planGauges().get("plan.predicted-routes"), "no relays offered: one route " + m.planGauges());
            producing.get(30, TimeUnit.SECONDS);
            await("all delivered", 30, () -> receivers.stream().allMatch(r -> r.last() == 1_849),
                    () -> receivers.stream().map(Destination::size).toList() + " " + m.destinations());
            for (Destination r : receivers) {
                r.assertExactly(0, 1_850);
                assertEquals(0, r.receiver.recordsMissing());
            }
            assertTrue(m.destinations().stream().anyMatch(d -> d.name().equals("b") && d.state() == State.REPLICATED), m.destinations().toString());
            assertTrue(m.destinations().stream().anyMatch(d -> d.name().equals("b/0") && d.state() == State.SWITCHED), m.destinations().toString());
            assertTrue(m.planGauges().get("plan.changes") >= 1);
            assertTrue(m.planGauges().get("plan.fan-out-bound") < 4, "K_p below four copies at 250 records/s: " + m.planGauges());
            m.close();
        } finally {
            nodes.forEach(Replicator::close);
            receivers.forEach(Destination::close);
        }
    }
}
