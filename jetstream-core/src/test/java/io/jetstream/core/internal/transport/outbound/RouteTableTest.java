package io.jetstream.core.internal.transport.outbound;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.core.model.BatchController;
import io.jetstream.core.model.BatchListener;
import io.jetstream.core.model.FlushPolicy;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The route table's preference order: which routes are in use, the round-robin among them, exploration of the others. */
class RouteTableTest {
    /** A route that takes every batch and reports {@code queued} bytes in front of its socket. */
    static final class TestRoute implements Route {
        final int index;
        long queued;

        TestRoute(int index) {
            this.index = index;
        }

        @Override
        public int index() {
            return index;
        }

        @Override
        public int write(OutboundBatch batch) {
            return WRITTEN;
        }

        @Override
        public void probe(long id, int bytes) {}

        @Override
        public long queuedBytes() {
            return queued;
        }

        @Override
        public String kind() {
            return "test";
        }
    }

    private static RouteTable readyTable(int n, BatchController controller) {
        RouteTable t = new RouteTable(n, controller);
        for (int i = 0; i < n; i++) {
            t.ready(new TestRoute(i));
        }
        return t;
    }

    private static int[] next(RouteTable t, int calls) {
        int[] got = new int[calls];
        for (int i = 0; i < calls; i++) {
            got[i] = t.next().index();
        }
        return got;
    }

    @Test
    void withoutAnOrderEveryRouteIsUsedRoundRobinInIndexOrder() {
        RouteTable t = readyTable(3, null);
        assertArrayEquals(new int[] {0, 1, 2}, t.order());
        assertArrayEquals(new int[] {0, 1, 2, 0, 1, 2}, next(t, 6));
        assertEquals(3, t.inUse());
    }

    @Test
    void anOrderPutsItsFirstPreferredRoutesInUseAndOnlyThose() {
        RouteTable t = readyTable(4, null);
        t.order(new int[] {0, 3, 1, 2}, 2);
        assertArrayEquals(new int[] {0, 3, 0, 3, 0, 3}, next(t, 6));
        assertEquals(2, t.inUse());
        assertEquals(2, t.active());
        assertEquals(4, t.allowed(), "fixed mode: the oracle allows every route");
        // Idle: a route in use with nothing queued; route 1 is idle but not in use.
        ((TestRoute) t.get(0)).queued = 10;
        ((TestRoute) t.get(3)).queued = 10;
        assertFalse(t.anyInUseIdle());
        ((TestRoute) t.get(3)).queued = 0;
        assertTrue(t.anyInUseIdle());
    }

    @Test
    void aRouteInUseThatIsNotReadyIsSkippedAndWithNoneReadyInUseAnyReadyRouteTakesTheBatchInOrder() {
        RouteTable t = readyTable(4, null);
        t.order(new int[] {0, 3, 1, 2}, 2);
        t.remove(3, t.get(3));
        assertArrayEquals(new int[] {0, 0, 0}, next(t, 3));
        assertEquals(1, t.inUse());
        t.remove(0, t.get(0));
        assertEquals(0, t.inUse());
        assertEquals(1, t.next().index(), "then route 1, the next in the order");
        t.clear();
        assertNull(t.next());
    }

    @Test
    void withExplorationOneBatchInNGoesToTheNextReadyRouteNotInUse() {
        RouteTable t = readyTable(4, null);
        t.order(new int[] {2, 0, 3, 1}, 2);
        t.exploreEvery(4);
        int[] got = next(t, 16);
        // every 4th call: routes 3 then 1 (not in use) in turn; the others alternate 2 and 0
        assertArrayEquals(new int[] {2, 0, 2, 3, 0, 2, 0, 1, 2, 0, 2, 3, 0, 2, 0, 1}, got);
        t.remove(3, t.get(3));
        t.remove(1, t.get(1));
        int[] none = next(t, 8);
        for (int i : none) {
            assertTrue(i == 2 || i == 0, "no ready route to explore: the routes in use take every batch");
        }
    }

    @Test
    void theOraclesRouteCountStillBoundsTheRoutesInUse() {
        RouteTable t = readyTable(4, controllerDecidingOneRoute());
        t.order(new int[] {3, 0, 1, 2}, 3);
        assertEquals(1, t.active());
        assertEquals(1, t.allowed());
        assertArrayEquals(new int[] {3, 3, 3}, next(t, 3));
        assertEquals(1, t.inUse());
    }

    @Test
    void anOrderThatIsNotAPermutationOfTheRoutesIsRefused() {
        RouteTable t = readyTable(3, null);
        assertThrows(IllegalArgumentException.class, () -> t.order(new int[] {0, 1}, 1));
        assertThrows(IllegalArgumentException.class, () -> t.order(new int[] {0, 1, 1}, 1));
        assertThrows(IllegalArgumentException.class, () -> t.order(new int[] {0, 1, 3}, 1));
        assertThrows(IllegalArgumentException.class, () -> t.order(new int[] {0, 1, 2}, 0));
    }

    /** An adaptive controller whose oracle may use one route only, after its first decision. */
    static BatchController controllerDecidingOneRoute() {
        TransportSettings settings = TransportSettings.from(JetStreamConfig.load(ConfigScope.STORM,
                Map.of("jetstream.batch.max-routes", "1"), TransportSettings.GROUPS));
        BatchController controller = settings.batch().newController(new FlushPolicy(1, 100_000_000L), 2, BatchListener.NONE);
        long t = 1_000_000_000L;
        for (int i = 0; i < 1_000_000 && controller.lastDecision() == null; i++) {
            controller.onEvent(100, t += 100_000);
        }
        assertEquals(1, controller.lastDecision().routes());
        return controller;
    }
}
