package io.jetstream.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.internal.qos.ChannelBuffers;
import io.jetstream.core.internal.qos.ChannelMeasurements;
import io.jetstream.core.internal.qos.QosListener;
import io.jetstream.core.internal.qos.QosManager;
import io.jetstream.core.internal.qos.QosReporter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OutputBufferRuleTest {
    final OutputBufferRule rule = OutputBufferRule.nephele(65_536);

    @Test
    void shrinksByRToThePowerOfTheBufferLatency() {
        assertEquals((int) Math.floor(32_768 * Math.pow(0.98, 125)), rule.resize(32_768, 125, 0));
        assertEquals(2_622, rule.resize(32_768, 125, 0)); // 32,768 · e^(125·ln 0.98) = 32,768 · 0.080017
        assertEquals(200, rule.resize(1_000, 400, 0), "never below ε = 200 B");
        assertEquals(1_000, rule.resize(1_000, 10, 20), "not while the source task is slower than the buffer");
        assertEquals(1_000, rule.resize(1_000, 4.9, 0), "not under the 5 ms threshold");
    }

    @Test
    void growsBySWhenTheBufferFillsAtOnce() {
        assertEquals(1_100, rule.resize(1_000, 0.2, 0));
        assertEquals(65_536, rule.resize(64_000, 0, 0), "never above ω");
        assertEquals(1_000, rule.resize(1_000, 1, 0), "1 ms is not ≈ 0");
    }

    @Test
    void theFirstUpdateToAChannelWins() {
        ChannelBuffers buffers = new ChannelBuffers(32_768);
        ChannelBuffers.Size seen = buffers.get("e1");
        assertTrue(buffers.propose("e1", seen.version(), 2_000));
        assertFalse(buffers.propose("e1", seen.version(), 5_000), "a second manager's stale update is discarded");
        assertEquals(2_000, buffers.get("e1").bytes());
    }

    @Test
    void reporterTagsOncePerIntervalAndReportsIntervalMeans() {
        List<QosReporter.Report> reports = new ArrayList<>();
        QosReporter reporter = new QosReporter(1_000, 0, reports::add);
        ChannelMeasurements e1 = new ChannelMeasurements("e1", 1_000);
        assertTrue(e1.tagDue(0));
        assertFalse(e1.tagDue(999));
        assertTrue(e1.tagDue(1_000));
        reporter.channelLatency("e1", 10);
        reporter.channelLatency("e1", 20);
        reporter.bufferLifetime("e1", 4);
        reporter.tick(999);
        assertTrue(reports.isEmpty());
        reporter.tick(1_000);
        assertEquals(Map.of("e1", 15.0), reports.get(0).channelLatency());
        assertEquals(Map.of("e1", 4.0), reports.get(0).bufferLifetime());
    }

    @Test
    void managerReportsAConstraintItCannotHelp() {
        LatencyConstraint c = new LatencyConstraint("c", List.of(LatencyConstraint.Element.task("slow")), 50, 1_000);
        List<String> failed = new ArrayList<>();
        QosManager manager = new QosManager(List.of(c), rule, new ChannelBuffers(32_768), new QosListener() {
            @Override
            public void onFailed(LatencyConstraint constraint, double estimateMillis) {
                failed.add(constraint.name() + "@" + estimateMillis);
            }
        });
        manager.onReport(new QosReporter.Report(10, Map.of(), Map.of("slow", 80.0), Map.of()));
        assertTrue(manager.evaluate(20).isEmpty());
        assertEquals(List.of("c@80.0"), failed, "a task's own latency has no buffer to resize");
    }
}
