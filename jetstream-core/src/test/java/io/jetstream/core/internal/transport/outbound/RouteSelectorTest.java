package io.jetstream.core.internal.transport.outbound;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.StreamRoutes.RelayChoice;
import io.jetstream.core.api.TransportOptions.Reliability;
import io.jetstream.core.internal.metrics.SenderCounters;
import io.jetstream.core.model.BatchController;
import io.jetstream.core.model.FlushPolicy;
import io.jetstream.core.model.RelayColony;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.TreeMap;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The ant colony choosing a stream's relays inside its outbox, in virtual time: a fake clock, routes
 * that deliver their batches one after another at a rate the test sets, and a receiver that
 * acknowledges cumulatively (the highest sequence delivered in order), as the real one does.
 */
class RouteSelectorTest {
    private static final long MS = 1_000_000L;
    private static final long INTERVAL = 2_000 * MS;
    private static final int BATCH_BYTES = 16 << 10;
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final SenderCounters metrics = new SenderCounters();
    /** Delivery time by sequence, of batches written and not yet acknowledged. */
    private final TreeMap<Long, Long> deliveries = new TreeMap<>();
    private long acknowledged;
    private Outbox outbox;
    private SimulatedRoute[] routes;

    /** A route delivering what it is given in order at {@code bytesPerSecond}. */
    private final class SimulatedRoute implements Route {
        final int index;
        double bytesPerSecond;
        long freeAt;
        final ArrayDeque<Long> carried = new ArrayDeque<>();
        long batches;

        SimulatedRoute(int index, double bytesPerSecond) {
            this.index = index;
            this.bytesPerSecond = bytesPerSecond;
        }

        @Override
        public int index() {
            return index;
        }

        @Override
        public int write(OutboundBatch batch) {
            long start = Math.max(clock.get(), freeAt);
            freeAt = start + (long) (batch.bytes * 1e9 / bytesPerSecond);
            deliveries.put(batch.sequence(), freeAt);
            batches++;
            return WRITTEN;
        }

        @Override
        public void probe(long id, int bytes) {}

        @Override
        public String kind() {
            return "simulated";
        }
    }

    @AfterEach
    void close() {
        if (outbox != null) {
            outbox.close("test over");
        }
    }

    private void open(BatchController controller, double... rates) {
        outbox = Outbox.builder("colony-test")
                .routes(rates.length)
                .reliability(Reliability.ACKNOWLEDGED)
                .limits(1 << 20, 64L << 20, 8 << 20, 100 * MS)
                .clock(clock::get)
                .alloc(UnpooledByteBufAllocator.DEFAULT)
                .metrics(metrics)
                .batching(new FlushPolicy(BATCH_BYTES, 100 * MS), controller)
                .relayChoice(RelayChoice.ANT_COLONY, INTERVAL)
                .relaySelection(new RelayColony(new SplittableRandom(17), clock::get))
                .build();
        routes = new SimulatedRoute[rates.length];
        for (int i = 0; i < rates.length; i++) {
            routes[i] = new SimulatedRoute(i, rates[i]);
            outbox.beginHandshake(i);
            outbox.onRouteReady(routes[i], 0);
        }
    }

    private static ByteBuf batch() {
        ByteBuf b = Unpooled.buffer(BATCH_BYTES);
        b.writerIndex(BATCH_BYTES);
        return b;
    }

    /** Runs {@code nanos} of virtual time in 1 ms steps, the outbox always holding a backlog. */
    private void run(long nanos) {
        long end = clock.get() + nanos;
        while (clock.get() < end) {
            clock.addAndGet(MS);
            while (outbox.memoryBytes() < 4L << 20) {
                outbox.enqueue(batch(), 1, clock.get());
            }
            long now = clock.get();
            long watermark = acknowledged;
            while (!deliveries.isEmpty() && deliveries.firstKey() == watermark + 1 && deliveries.firstEntry().getValue() <= now) {
                deliveries.pollFirstEntry();
                watermark++;
            }
            if (watermark > acknowledged) {
                acknowledged = watermark;
                outbox.onAck(watermark);
            }
        }
    }

    /** The routes in use now, in preference order. */
    private int[] inUse() {
        int[] o = outbox.routeOrder();
        return Arrays.copyOfRange(o, 1, 1 + o[0]);
    }

    private static boolean contains(int[] routes, int route) {
        return Arrays.stream(routes).anyMatch(r -> r == route);
    }

    @Test
    void theSlowestRelayIsLeftOutAndARelayWhoseRateDropsToAFifthLeavesWithinOneInterval() {
        // direct 50 MB/s; relays (routes 1-3) 8, 30 and 40 MB/s: all four carry 4 × 8 = 32 MB/s, without route 1 3 × 30 = 90
        open(null, 50e6, 8e6, 30e6, 40e6);
        assertEquals(4, inUse().length, "before the first choice: every route, in index order");
        run(INTERVAL + 10 * MS);
        int[] first = inUse();
        assertEquals(0, first[0], "the direct route first: " + Arrays.toString(outbox.routeOrder()));
        assertFalse(contains(first, 1), "the 8 MB/s relay is left out: " + Arrays.toString(outbox.routeOrder()));
        assertTrue(contains(first, 2) && contains(first, 3), Arrays.toString(outbox.routeOrder()));
        assertEquals(first.length, metrics.routesInUse(), "the metric counts the routes in use");
        long explored = routes[1].batches;
        run(INTERVAL);
        assertTrue(routes[1].batches > explored, "the route left out still gets one batch in " + RouteSelector.EXPLORE_EVERY);

        // relay 3 drops to a fifth (8 MB/s) and relay 1 rises to 60 MB/s
        routes[3].bytesPerSecond = 8e6;
        routes[1].bytesPerSecond = 60e6;
        run(INTERVAL); // the next choice falls within this interval
        int[] after = inUse();
        assertFalse(contains(after, 3), "the relay that dropped leaves: " + Arrays.toString(outbox.routeOrder()));
        assertTrue(contains(after, 1), "the relay that rose, measured by exploration, comes in: " + Arrays.toString(outbox.routeOrder()));
        assertEquals(0, after[0]);
    }

    @Test
    void whenTheOracleUsesOneRouteOnlyTheDirectRouteCarriesTheStream() {
        open(RouteTableTest.controllerDecidingOneRoute(), 10e6, 40e6, 40e6, 40e6);
        run(3 * INTERVAL);
        assertEquals(1, inUse().length);
        assertEquals(0, inUse()[0], "the direct route");
        long before = routes[0].batches;
        long[] relaysBefore = {routes[1].batches, routes[2].batches, routes[3].batches};
        run(INTERVAL);
        long direct = routes[0].batches - before;
        long relays = routes[1].batches + routes[2].batches + routes[3].batches - relaysBefore[0] - relaysBefore[1] - relaysBefore[2];
        assertTrue(direct > 0 && relays <= direct / (RouteSelector.EXPLORE_EVERY - 1) + 1,
                "the relays take only the explored share: direct " + direct + ", relays " + relays);
        assertEquals(1, metrics.routesInUse());
    }

    @Test
    void inOrderKeepsTheRoutesInIndexOrderWithoutExploring() {
        outbox = Outbox.builder("in-order")
                .routes(3)
                .reliability(Reliability.ACKNOWLEDGED)
                .limits(1 << 20, 64L << 20, 8 << 20, 100 * MS)
                .clock(clock::get)
                .alloc(UnpooledByteBufAllocator.DEFAULT)
                .metrics(metrics)
                .batching(new FlushPolicy(BATCH_BYTES, 100 * MS), null)
                .build();
        routes = new SimulatedRoute[] {new SimulatedRoute(0, 50e6), new SimulatedRoute(1, 1e6), new SimulatedRoute(2, 50e6)};
        for (SimulatedRoute r : routes) {
            outbox.beginHandshake(r.index);
            outbox.onRouteReady(r, 0);
        }
        run(3 * INTERVAL);
        assertEquals("[3, 0, 1, 2]", Arrays.toString(outbox.routeOrder()));
    }
}
