package io.jetstream.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.BatchOptions;
import io.jetstream.core.api.BatchSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.core.internal.metrics.AdaptiveControlGauges;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BatchSettingsTest {
    private static BatchSettings load(Map<String, ?> raw) {
        return BatchSettings.from(JetStreamConfig.load(ConfigScope.STORM, raw, BatchOptions.GROUP));
    }

    @Test
    void defaultsMatchTheDeclaredOptions() {
        assertEquals(BatchSettings.defaults(), load(Map.of()));
        assertEquals(BatchOptions.Mode.ADAPTIVE, BatchSettings.defaults().mode());
        assertEquals(100_000_000L, BatchSettings.defaults().maxEventDelayNanos());
    }

    @Test
    void readsEveryKeyUnderTheEnginePrefix() {
        BatchSettings s = BatchSettings.from(JetStreamConfig.load(ConfigScope.FLINK, Map.of(
                "taskmanager.network.jetstream.batch.mode", "fixed",
                "taskmanager.network.jetstream.batch.max-event-delay-ms", "5",
                "taskmanager.network.jetstream.batch.fixed.target-bytes", 4096,
                "taskmanager.network.jetstream.batch.max-utilisation", "0.5"), BatchOptions.GROUP));
        assertEquals(BatchOptions.Mode.FIXED, s.mode());
        assertEquals(5_000_000L, s.maxEventDelayNanos());
        assertEquals(0.5, s.maxUtilisation());
        FlushPolicy flush = s.newFlushPolicy();
        assertEquals(4096, flush.targetBytes());
        assertEquals(5_000_000L, flush.maxDelayNanos());
        assertThrows(IllegalStateException.class, () -> s.newController(flush, 2, BatchListener.NONE),
                "fixed mode has nothing to control");
    }

    @Test
    void badValuesNameTheirKey() {
        InvalidConfigurationException range = assertThrows(InvalidConfigurationException.class,
                () -> load(Map.of("jetstream.batch.max-utilisation", "1.5")));
        assertTrue(range.getMessage().contains("jetstream.batch.max-utilisation"), range.getMessage());
        InvalidConfigurationException nan = assertThrows(InvalidConfigurationException.class,
                () -> load(Map.of("jetstream.batch.link-variation", "NaN")));
        assertTrue(nan.getMessage().contains("jetstream.batch.link-variation"), nan.getMessage());
        InvalidConfigurationException cross = assertThrows(InvalidConfigurationException.class,
                () -> load(Map.of("jetstream.batch.probe.min-interval-ms", 1000, "jetstream.batch.probe.max-interval-ms", 10)));
        assertTrue(cross.getMessage().contains("jetstream.batch.probe.max-interval-ms"), cross.getMessage());
        InvalidConfigurationException typo = assertThrows(InvalidConfigurationException.class,
                () -> load(Map.of("jetstream.batch.max-route", 2)));
        assertTrue(typo.getMessage().contains("jetstream.batch.max-route"), typo.getMessage());
    }

    @Test
    void adaptiveControllerReportsEveryDecisionToTheGauges() {
        BatchSettings s = BatchSettings.defaults();
        FlushPolicy flush = s.newFlushPolicy();
        assertEquals(1, flush.targetBytes(), "one event at a time until measured");
        AdaptiveControlGauges gauges = new AdaptiveControlGauges();
        BatchController controller = s.newController(flush, 2, gauges);
        ThroughputCurve link = new ThroughputCurve(0.001, 10_000_000);
        for (long bytes = controller.probeBytesDue(0); bytes > 0; bytes = controller.probeBytesDue(0)) {
            controller.onTransfer(bytes, link.transferSeconds(bytes));
        }
        assertTrue(Double.isNaN(gauges.gauges().get("batch.size").getAsDouble()), "no decision during warm-up");
        for (int i = 0; i < s.warmupEvents(); i++) {
            controller.onEvent(200, i * 100_000L); // 10,000 ev/s of 200 B
        }
        BatchDecision d = controller.lastDecision();
        assertEquals(d.batchSize(), gauges.gauges().get("batch.size").getAsDouble());
        assertEquals(1, gauges.gauges().get("batch.decisions").getAsDouble());
        assertEquals(d.estimate().transfer() * 1e3, gauges.gauges().get("latency.predicted.transfer-ms").getAsDouble(), 1e-12);
        assertEquals(d.predictedLatency() * 1e3, gauges.gauges().get("latency.predicted-ms").getAsDouble(), 1e-12);
        assertEquals(d.batchSize() * 200, flush.targetBytes());
        controller.onMeasuredLatency(0.004);
        assertEquals(4.0, gauges.gauges().get("latency.measured-ms").getAsDouble(), 1e-12);
    }

    @Test
    void transportsReportWireBytesWithTheHeadersOfEverySegment() {
        BatchSettings s = BatchSettings.defaults();
        BatchController controller = s.newController(s.newFlushPolicy(), 2, BatchListener.NONE);
        assertEquals(300 + 66, controller.wireBytes(300), 1e-9);                 // one segment
        assertEquals(4_096 + 3 * 66, controller.wireBytes(4_096), 1e-9);         // 1,448 + 1,448 + 1,200
        assertEquals(65_536 + 46 * 66, controller.wireBytes(65_536), 1e-9);      // ceil(65,536 / 1,448) = 46
        // The paper's context: one overhead per batch, whatever its size.
        assertEquals(65_536 + 40, LatencyModelTest.CONTEXT.wireBytes(65_536), 1e-9);
    }
}
