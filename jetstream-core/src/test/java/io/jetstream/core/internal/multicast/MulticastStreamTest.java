package io.jetstream.core.internal.multicast;

import static io.jetstream.core.internal.multicast.MulticastTestSupport.await;
import static io.jetstream.core.internal.multicast.MulticastTestSupport.multicast;
import static io.jetstream.core.internal.multicast.MulticastTestSupport.record;
import static io.jetstream.core.internal.multicast.MulticastTestSupport.transport;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.MulticastDestination;
import io.jetstream.core.api.MulticastDestinationStats;
import io.jetstream.core.api.MulticastDestinationStats.State;
import io.jetstream.core.api.MulticastStream;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.api.Transport;
import io.jetstream.core.internal.multicast.MulticastTestSupport.Destination;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A multicast stream over real transports on loopback: delivery, membership, and both slow-destination policies. */
class MulticastStreamTest {
    private Transport receiving;
    private Transport sending;

    @BeforeEach
    void start() {
        receiving = Transport.start(transport(Map.of()), "receivers");
        // a small memory budget per destination stream, so that a held receiver pushes back within a few batches
        sending = Transport.start(transport(Map.of("transport.memory-bytes", 32 << 10, "transport.window-bytes", 16 << 10)),
                "sender");
    }

    @AfterEach
    void stop() {
        sending.close();
        receiving.close();
    }

    private static MulticastDestination to(String name, Destination d) {
        return MulticastDestination.direct(name, 0, StreamRoutes.direct(d.endpoint.localAddress()));
    }

    /** Offers records [from, to), retrying while the stream pushes back (bounded). */
    private static void offer(MulticastStream m, long from, long to, int size) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (long i = from; i < to; i++) {
            byte[] r = record(i, size);
            int result;
            while ((result = m.offer(0, r, 0, r.length)) == OutboundStream.BACK_PRESSURED) {
                assertTrue(System.nanoTime() < deadline, "pushed back for 60 s at record " + i + ": " + m.destinations());
                Thread.onSpinWait();
            }
            assertEquals(OutboundStream.ACCEPTED, result, "record " + i);
        }
    }

    private static MulticastDestinationStats stats(MulticastStream m, String name) {
        return m.destinations().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void everyRecordReachesEveryDestinationOnceAndInOrder() throws Exception {
        try (Destination a = new Destination(receiving); Destination b = new Destination(receiving);
                Destination c = new Destination(receiving)) {
            MulticastStream m = sending.openMulticast("orders", List.of(to("a", a), to("b", b), to("c", c)), multicast(Map.of()));
            offer(m, 0, 20_000, 100);
            await("all delivered", 30, () -> a.size() == 20_000 && b.size() == 20_000 && c.size() == 20_000,
                    () -> a.size() + " " + b.size() + " " + c.size() + " " + m.destinations());
            a.assertExactly(0, 20_000);
            b.assertExactly(0, 20_000);
            c.assertExactly(0, 20_000);
            await("all confirmed", 10, () -> m.destinations().stream().allMatch(s -> s.confirmedPosition() == 20_000),
                    () -> m.destinations().toString());
            assertEquals(20_000L, m.metrics().get("records-offered"));
            assertEquals(0, a.receiver.duplicatesDropped() + a.receiver.recordsMissing());
            m.close();
            assertEquals(OutboundStream.CLOSED, m.offer(0, new byte[8], 0, 8));
        }
    }

    @Test
    void aJoiningDestinationGetsWhatFollowsItsJoinAndALeavingOneWhatPrecededItsLeave() throws Exception {
        try (Destination a = new Destination(receiving); Destination b = new Destination(receiving);
                Destination c = new Destination(receiving)) {
            MulticastStream m = sending.openMulticast("joins", List.of(to("a", a), to("b", b)), multicast(Map.of()));
            offer(m, 0, 1_000, 64);
            m.join(to("c", c));
            assertThrows(IllegalArgumentException.class, () -> m.join(to("c", c)));
            offer(m, 1_000, 2_000, 64);
            assertTrue(m.leave("a"));
            assertFalse(m.leave("a"));
            offer(m, 2_000, 3_000, 64);
            await("delivered", 30, () -> b.size() == 3_000 && c.last() == 2_999, () -> a.size() + " " + b.size() + " " + c.size());
            a.assertExactly(0, 2_000);
            b.assertExactly(0, 3_000);
            // c joined after record 999 was offered: it has every record from 1,000 on, once each
            c.assertExactly(1_000, 3_000);
            m.close();
        }
    }

    @Test
    void holdPushesBackOnTheProducerThenDropsADestinationThatTakesNothing() throws Exception {
        try (Destination fast = new Destination(receiving); Destination held = new Destination(receiving)) {
            MulticastStream m = sending.openMulticast("hold", List.of(to("fast", fast), to("held", held)), multicast(Map.of(
                    "multicast.slow-destination", "hold", "multicast.max-lag-bytes", 64 << 10, "multicast.hold-timeout-ms", 1_000,
                    "multicast.buffer-bytes", 64 << 10)));
            held.hold();
            long i = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            byte[] r;
            while (m.offer(0, r = record(i, 200), 0, r.length) == OutboundStream.ACCEPTED) {
                i++;
                assertTrue(System.nanoTime() < deadline, "never pushed back");
            }
            long pushedBackAt = i;
            // the producer is held while the held destination holds the others...
            await("the fast destination has what was accepted", 10, () -> fast.size() >= pushedBackAt / 2, () -> "" + fast.size());
            assertEquals(State.DIRECT, stats(m, "held").state());
            // ...until the hold timeout drops it; then the stream goes on
            offer(m, pushedBackAt, pushedBackAt + 5_000, 200);
            MulticastDestinationStats dropped = stats(m, "held");
            assertEquals(State.DROPPED, dropped.state());
            assertTrue(dropped.reason().startsWith("slow"), dropped.reason());
            assertEquals(1L, m.metrics().get("destinations-dropped-slow"));
            await("fast has all", 30, () -> fast.size() == pushedBackAt + 5_000, () -> "" + fast.size());
            fast.assertExactly(0, pushedBackAt + 5_000);
            held.release();
            m.close();
        }
    }

    @Test
    void leaveBehindLetsTheOthersGoOnAndDropsADestinationThatTrailsBeyondTheBound() throws Exception {
        try (Destination fast = new Destination(receiving); Destination slow = new Destination(receiving)) {
            MulticastStream m = sending.openMulticast("behind", List.of(to("fast", fast), to("slow", slow)), multicast(Map.of(
                    "multicast.slow-destination", "leave-behind", "multicast.max-lag-bytes", 256 << 10,
                    "multicast.buffer-bytes", 64 << 10)));
            // held briefly, within the bound: it catches up and misses nothing
            slow.hold();
            offer(m, 0, 500, 200);
            await("fast goes on", 10, () -> fast.size() == 500, () -> "" + fast.size());
            slow.release();
            await("slow catches up", 10, () -> slow.size() == 500, () -> "" + slow.size());
            assertEquals(State.DIRECT, stats(m, "slow").state());
            // held for longer than the bound: dropped, and the fast one never waits for it
            slow.hold();
            offer(m, 500, 20_500, 200);
            await("slow dropped", 10, () -> stats(m, "slow").state() == State.DROPPED, () -> stats(m, "slow").toString());
            assertTrue(stats(m, "slow").reason().startsWith("lagged"), stats(m, "slow").reason());
            assertEquals(1L, m.metrics().get("destinations-dropped-lagged"));
            await("fast has all", 30, () -> fast.size() == 20_500, () -> "" + fast.size());
            fast.assertExactly(0, 20_500);
            slow.release();
            m.close();
        }
    }

    @Test
    void anUnreachableDestinationSiteIsDroppedAfterTheHoldTimeoutAndTheOthersGetEverything() throws Exception {
        int closedPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort(); // nothing listens there once this closes
        }
        try (Destination reachable = new Destination(receiving)) {
            MulticastStream m = sending.openMulticast("unreachable", List.of(to("up", reachable),
                    MulticastDestination.direct("down", 0, StreamRoutes.direct(new java.net.InetSocketAddress("127.0.0.1", closedPort)))),
                    multicast(Map.of("multicast.max-lag-bytes", 64 << 10, "multicast.hold-timeout-ms", 1_000,
                            "multicast.buffer-bytes", 64 << 10)));
            offer(m, 0, 5_000, 200);
            MulticastDestinationStats down = stats(m, "down");
            assertEquals(State.DROPPED, down.state(), m.destinations().toString());
            assertTrue(down.reason().startsWith("slow"), down.reason());
            assertFalse(down.connected());
            await("the reachable one has all", 30, () -> reachable.size() == 5_000, () -> "" + reachable.size());
            reachable.assertExactly(0, 5_000);
            m.close();
        }
    }

    @Test
    void aRecordLongerThanTheRingAllowsIsRefusedNamingTheOption() {
        MulticastStream m = sending.openMulticast("big", List.of(), multicast(Map.of("multicast.buffer-bytes", 64 << 10)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> m.offer(0, new byte[9_000], 0, 9_000));
        assertTrue(e.getMessage().contains("multicast.buffer-bytes"), e.getMessage());
        m.close();
    }
}
