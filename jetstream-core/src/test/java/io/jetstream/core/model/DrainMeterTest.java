package io.jetstream.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@link DrainMeter} and a controller deciding on the link it measures, in virtual time. */
class DrainMeterTest {
    private static final long MS = 1_000_000;

    @Test
    void measuresTheDrainOnlyWhileDataWaits() {
        DrainMeter meter = new DrainMeter(10 * MS, 0.5);
        long taken = 0;
        // 20 ms idle: nothing waiting, the consumer takes whatever arrives at once.
        for (long t = 0; t <= 20 * MS; t += MS) {
            taken += 100;
            assertFalse(meter.sample(t, taken, 0));
        }
        assertTrue(Double.isNaN(meter.bytesPerSecond()), "an idle consumer says nothing about its speed");
        // Busy: 5,000 B per ms while 1 MB waits = 5 MB/s.
        boolean measured = false;
        for (long t = 21 * MS; t <= 40 * MS; t += MS) {
            taken += 5_000;
            measured |= meter.sample(t, taken, 1 << 20);
        }
        assertTrue(measured);
        assertEquals(5e6, meter.bytesPerSecond(), 1e3);
    }

    @Test
    void aStalledConsumerIsASlowLinkNotNone() {
        DrainMeter meter = new DrainMeter(2 * MS, 1);
        for (long t = 0; t <= 10 * MS; t += MS) {
            meter.sample(t, 0, 4096);
        }
        assertEquals(DrainMeter.MIN_BYTES_PER_SECOND, meter.bytesPerSecond());
    }

    @Test
    void controllerOnAMeasuredLinkFlushesEveryEventWhenSlowAndBatchesWhenFast() {
        // A link where a flush costs 50 us and the consumer drains 50 MB/s; 20-byte events.
        ThroughputCurve link = new ThroughputCurve(50e-6, 50e6);
        assertEquals(1, decidedBatch(link, 1_000), "1,000 events/s: a flush per event");
        int atHighRate = decidedBatch(link, 200_000);
        assertTrue(atHighRate > 10, "200,000 events/s need batches: " + atHighRate);
        int onSlowDrain = decidedBatch(new ThroughputCurve(50e-6, 1.2e5), 5_000);
        assertTrue(onSlowDrain > 1, "a consumer draining 120 kB/s (100 kB/s arrive) gets batches at 5,000 events/s: " + onSlowDrain);
    }

    private static int decidedBatch(ThroughputCurve link, double rate) {
        StreamContext prior = new StreamContext(1_000, 20, 0, 0, 0, 0, 0, 0, new ThroughputCurve(1e-3, 1e6), 2, 1e-3);
        FlushPolicy policy = new FlushPolicy(1, 1_000_000);
        StreamMonitor monitor = new StreamMonitor(0.05, 16, 1, 2);
        monitor.useLink(link);
        BatchController controller = new BatchController(monitor, new BatchOracle(100_000, 1, 0.1, 0.95), policy, prior,
                10 * MS, 20, BatchListener.NONE);
        long gap = (long) (1e9 / rate);
        long t = 0;
        for (int i = 0; i < 1_000; i++, t += gap) {
            controller.onEvent(20, t);
        }
        assertTrue(controller.lastDecision() != null, "decided");
        return controller.lastDecision().batchSize();
    }
}
