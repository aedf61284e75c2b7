package io.jetstream.core.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.core.internal.metrics.AdaptiveControlGauges;
import io.jetstream.core.internal.qos.ChannelBuffers;
import io.jetstream.core.internal.qos.QosManager;
import io.jetstream.core.internal.qos.QosReporter;
import io.jetstream.core.model.LatencyConstraint;
import io.jetstream.core.model.OutputBufferRule;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QosSettingsTest {
    private static QosSettings load(Map<String, ?> raw) {
        return QosSettings.from(JetStreamConfig.load(ConfigScope.STORM, raw, QosOptions.GROUP));
    }

    @Test
    void defaultsAreThePapersAndAdaptationIsOffWithoutABound() {
        QosSettings s = load(Map.of());
        assertFalse(s.enabled());
        assertEquals(OutputBufferRule.nephele(64 << 10), s.rule());
        assertEquals(32 << 10, s.initialBufferBytes());
        assertThrows(IllegalStateException.class, () -> s.channelConstraint("c", "t"));
    }

    @Test
    void aBoundConstrainsEachChannelWithItsSourceTask() {
        QosSettings s = load(Map.of("jetstream.qos.latency-bound-ms", 50, "jetstream.qos.window-ms", 4000));
        LatencyConstraint c = s.channelConstraint("a->b", "a");
        assertEquals(50, c.boundMillis());
        assertEquals(4_000_000_000L, c.windowNanos());
        assertEquals(List.of(LatencyConstraint.Element.task("a"), LatencyConstraint.Element.channel("a->b", "a")), c.sequence());
    }

    @Test
    void crossOptionErrorsNameTheKey() {
        InvalidConfigurationException window = assertThrows(InvalidConfigurationException.class,
                () -> load(Map.of("jetstream.qos.window-ms", 10, "jetstream.qos.measurement-interval-ms", 100)));
        assertTrue(window.getMessage().contains("jetstream.qos.window-ms"), window.getMessage());
        InvalidConfigurationException initial = assertThrows(InvalidConfigurationException.class,
                () -> load(Map.of("jetstream.qos.buffer.initial-bytes", 100)));
        assertTrue(initial.getMessage().contains("jetstream.qos.buffer.initial-bytes"), initial.getMessage());
        InvalidConfigurationException base = assertThrows(InvalidConfigurationException.class,
                () -> load(Map.of("jetstream.qos.buffer.shrink-base", "1.0")));
        assertTrue(base.getMessage().contains("jetstream.qos.buffer.shrink-base"), base.getMessage());
    }

    @Test
    void managerDecisionsReachTheGauges() {
        QosSettings s = load(Map.of("jetstream.qos.latency-bound-ms", 10, "jetstream.qos.window-ms", 1000));
        AdaptiveControlGauges gauges = new AdaptiveControlGauges();
        ChannelBuffers buffers = new ChannelBuffers(s.initialBufferBytes());
        QosManager manager = new QosManager(List.of(s.channelConstraint("e", "src")), s.rule(), buffers, gauges);
        QosReporter reporter = new QosReporter(s.measurementIntervalNanos(), 0, manager::onReport);
        reporter.taskLatency("src", 0.5);
        reporter.channelLatency("e", 40);
        reporter.bufferLifetime("e", 60); // obl 30 ms > 5 ms threshold and > 0.5 ms task
        reporter.tick(s.measurementIntervalNanos());
        manager.evaluate(s.measurementIntervalNanos());
        assertEquals(1, gauges.gauges().get("qos.violations").getAsDouble());
        assertEquals(1, gauges.gauges().get("qos.resizes").getAsDouble());
        assertEquals(Math.floor(32_768 * Math.pow(0.98, 30)), gauges.gauges().get("qos.output-buffer-bytes").getAsDouble());
        assertEquals(40.5, gauges.gauges().get("qos.sequence-latency-ms").getAsDouble(), 1e-9);
        assertEquals(buffers.get("e").bytes(), (int) gauges.gauges().get("qos.output-buffer-bytes").getAsDouble());
    }
}
