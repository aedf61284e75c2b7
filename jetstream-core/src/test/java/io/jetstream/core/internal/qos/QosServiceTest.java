package io.jetstream.core.internal.qos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.QosSettings;
import io.jetstream.core.model.LatencyConstraint;
import io.jetstream.core.model.OutputBufferRule;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The service a transport runs, driven in virtual time: registration, one interval's work, leaving. */
class QosServiceTest {
    private static final long MS = 1_000_000;
    private static final long INTERVAL = 100 * MS;

    private static QosService service() {
        QosSettings settings = new QosSettings(30, 3 * INTERVAL, INTERVAL, 32 << 10, OutputBufferRule.nephele(64 << 10));
        return new QosService(settings, QosListener.NONE, () -> 0L);
    }

    @Test
    void aViolatingChannelIsShrunkThroughItsSinkAndALeftChannelIsNot() {
        QosService service = service();
        List<String> decisions = new ArrayList<>();
        service.addListener(new QosListener() {
            @Override
            public void onResize(String channel, int fromBytes, int toBytes, double outputBufferLatencyMillis) {
                decisions.add(channel + " " + fromBytes + " -> " + toBytes);
            }
        });
        List<Integer> sizes = new ArrayList<>();
        ChannelMeasurements m = service.register("a->b", sizes::add);
        assertEquals(List.of(32 << 10), sizes, "the initial size is handed over at once");
        assertThrows(IllegalStateException.class, () -> service.register("a->b", sizes::add));

        // One interval of 32 KiB buffers living 120 ms; tagged records took 60 ms, twice the bound.
        m.onBufferLifetime(110 * MS);
        m.onBufferLifetime(130 * MS);
        m.onChannelLatency(60 * MS);
        service.runInterval(INTERVAL);
        int expected = (int) Math.floor((32 << 10) * Math.pow(0.98, 60)); // obl = 120 ms / 2
        assertEquals(List.of(32 << 10, expected), sizes);
        assertEquals(expected, service.bufferBytes("a->b"));
        assertEquals(1, service.resizes());
        assertEquals(List.of("a->b 32768 -> " + expected), decisions, "an added listener hears each resize");
        assertEquals(1, service.violations());

        // The next interval's measurements are its own (the drained ones are not counted again), and
        // the resized channel waits out the window before it is changed again.
        m.onBufferLifetime(40 * MS);
        m.onChannelLatency(50 * MS);
        service.runInterval(2 * INTERVAL);
        assertEquals(2, sizes.size(), "still within the window after the change");

        service.unregister("a->b");
        m.onBufferLifetime(200 * MS);
        m.onChannelLatency(500 * MS);
        service.runInterval(10 * INTERVAL);
        assertEquals(2, sizes.size(), "a channel that left gets no size");
        assertEquals(2, service.violations(), "nor is its constraint watched");
        service.close();
    }

    @Test
    void aChannelsOwnListenerHearsOfItsChannelOnly() {
        QosService service = service();
        List<String> heardByA = new ArrayList<>();
        QosListener a = new QosListener() {
            @Override
            public void onViolation(LatencyConstraint constraint, double estimateMillis) {
                heardByA.add("violation " + constraint.name());
            }

            @Override
            public void onResize(String channel, int fromBytes, int toBytes, double outputBufferLatencyMillis) {
                heardByA.add("resize " + channel);
            }
        };
        ChannelMeasurements ma = service.register("a", size -> {}, a);
        ChannelMeasurements mb = service.register("b", size -> {}, QosListener.NONE);
        mb.onBufferLifetime(120 * MS); // only b violates its bound
        mb.onChannelLatency(60 * MS);
        ma.onBufferLifetime(1 * MS);
        ma.onChannelLatency(2 * MS);
        service.runInterval(INTERVAL);
        assertEquals(1, service.resizes());
        assertTrue(heardByA.isEmpty(), "a heard of b: " + heardByA);
        ma.onBufferLifetime(120 * MS);
        ma.onChannelLatency(60 * MS);
        service.runInterval(2 * INTERVAL);
        assertEquals(List.of("violation a <= 30.0 ms", "resize a"), heardByA);
        service.close();
    }

    @Test
    void measurementsAreIntervalMeansAndTagsOnePerInterval() {
        List<QosReporter.Report> reports = new ArrayList<>();
        QosReporter reporter = new QosReporter(INTERVAL, 0, reports::add);
        ChannelMeasurements m = new ChannelMeasurements("c", INTERVAL);
        assertTrue(m.tagDue(5 * MS));
        assertEquals(false, m.tagDue(104 * MS));
        assertTrue(m.tagDue(105 * MS));
        m.onBufferLifetime(10 * MS);
        m.onBufferLifetime(30 * MS);
        m.drainInto(reporter);
        reporter.tick(INTERVAL);
        m.onBufferLifetime(4 * MS);
        m.drainInto(reporter);
        reporter.tick(2 * INTERVAL);
        m.drainInto(reporter); // nothing new: nothing reported
        reporter.tick(3 * INTERVAL);
        assertEquals(20.0, reports.get(0).bufferLifetime().get("c"), 1e-9);
        assertEquals(4.0, reports.get(1).bufferLifetime().get("c"), 1e-9);
        assertTrue(reports.get(2).bufferLifetime().isEmpty());
        assertTrue(reports.get(0).channelLatency().isEmpty());
    }

    @Test
    void aServiceWithoutABoundIsRefused() {
        QosSettings off = new QosSettings(0, 3 * INTERVAL, INTERVAL, 32 << 10, OutputBufferRule.nephele(64 << 10));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new QosService(off, QosListener.NONE, () -> 0L));
        assertTrue(e.getMessage().contains("qos.latency-bound-ms is 0"), e.getMessage());
    }
}
