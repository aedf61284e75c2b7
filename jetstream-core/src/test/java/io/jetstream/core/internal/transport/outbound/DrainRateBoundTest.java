package io.jetstream.core.internal.transport.outbound;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.model.FlushPolicy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The adaptive outbox bound, in virtual time: what the drain under backlog allows within the event delay. */
class DrainRateBoundTest {
    private static final long CONFIGURED = 64L << 20;
    private static final long MAX_DELAY = 20_000_000L; // 20 ms
    private final FlushPolicy policy = new FlushPolicy(16 << 10, MAX_DELAY);
    private final RouteTable routes = new RouteTable(2, null);
    private final List<long[]> samples = new ArrayList<>();

    private static Route route(int index) {
        return new Route() {
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
            public String kind() {
                return "test";
            }
        };
    }

    private DrainRateBound bound(boolean adaptive) {
        DrainRateBound b = new DrainRateBound(adaptive, CONFIGURED, MAX_DELAY, policy, routes);
        b.setListener((bytesPerRoute, spanNanos) -> samples.add(new long[] {bytesPerRoute, spanNanos}));
        routes.ready(route(0));
        routes.ready(route(1));
        return b;
    }

    @Test
    void aBacklogDrainedAtTenMegabytesPerSecondBoundsTheOutboxToWhatDrainsWithinTheDelay() {
        DrainRateBound b = bound(true);
        assertEquals(CONFIGURED, b.limit(), "unknown until measured");
        long now = 1_000_000_000L;
        b.onFreed(0, now, true); // the backlog starts
        for (int i = 0; i < 10; i++) { // 10 MB/s: 100 KB every 10 ms
            now += 10_000_000L;
            b.onFreed(100_000, now, true);
        }
        assertEquals(1, samples.size(), "one sample per " + DrainRateBound.SAMPLE_NANOS + " ns span");
        assertEquals(1_000_000 / 2, samples.get(0)[0], "bytes per route in use");
        assertEquals(10_000_000.0, b.drainBytesPerSecond(), 1.0);
        // 10 MB/s × 20 ms = 200 KB, below the floor of MIN_ADAPTIVE_OUTBOX per route in use.
        assertEquals(2 * DrainRateBound.MIN_ADAPTIVE_OUTBOX, b.limit());
    }

    @Test
    void aFastDrainBoundsTheOutboxAboveTheFloorAndNeverAboveTheConfiguredMemory() {
        DrainRateBound b = bound(true);
        long now = 1_000_000_000L;
        b.onFreed(0, now, true);
        now += DrainRateBound.SAMPLE_NANOS;
        b.onFreed(100_000_000, now, true); // 1 GB/s: 20 MB within the delay
        assertEquals(20_000_000L, b.limit(), 1.0);
        now += DrainRateBound.SAMPLE_NANOS;
        b.onFreed(10_000_000_000L, now, true); // far faster: the configured memory caps it
        assertEquals(CONFIGURED, b.limit());
    }

    @Test
    void withoutABacklogTheSpanStartsOverAndNothingIsSampled() {
        DrainRateBound b = bound(true);
        long now = 1_000_000_000L;
        for (int i = 0; i < 50; i++) {
            now += 10_000_000L;
            b.onFreed(100_000, now, false);
        }
        assertTrue(samples.isEmpty());
        assertTrue(Double.isNaN(b.drainBytesPerSecond()));
        assertEquals(CONFIGURED, b.limit());
    }

    @Test
    void inFixedModeTheBoundIsTheConfiguredMemory() {
        DrainRateBound b = bound(false);
        long now = 1_000_000_000L;
        b.onFreed(0, now, true);
        now += DrainRateBound.SAMPLE_NANOS;
        b.onFreed(100_000, now, true);
        assertEquals(CONFIGURED, b.limit());
    }
}
