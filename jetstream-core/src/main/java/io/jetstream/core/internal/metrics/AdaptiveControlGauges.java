package io.jetstream.core.internal.metrics;

import io.jetstream.core.internal.qos.QosListener;
import io.jetstream.core.model.BatchDecision;
import io.jetstream.core.model.BatchListener;
import io.jetstream.core.model.LatencyConstraint;
import io.jetstream.core.model.LatencyEstimate;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.DoubleSupplier;

/**
 * The metrics of one channel's adaptive control, kept as the latest values and counts of every
 * decision: chosen batch size and routes, each estimated latency component, the measured latency
 * next to the prediction, and the Nephele layer's violations, resizes and failures. Engine adapters
 * bind {@link #gauges()} to their metric systems once (Flink {@code Gauge}s, Storm's metric registry).
 *
 * <p>Threading: written by the one controller or QoS manager thread (plain volatile writes, no
 * allocation); read by any metrics thread.
 */
public final class AdaptiveControlGauges implements BatchListener, QosListener {
    private volatile double batchSize = Double.NaN;
    private volatile double routes = Double.NaN;
    private volatile double batchingMs = Double.NaN;
    private volatile double encodingMs = Double.NaN;
    private volatile double decodingMs = Double.NaN;
    private volatile double transferMs = Double.NaN;
    private volatile double reorderingMs = Double.NaN;
    private volatile double queueingMs = Double.NaN;
    private volatile double predictedMs = Double.NaN;
    private volatile double measuredMs = Double.NaN;
    private volatile double sustainable = Double.NaN;
    private volatile long decisions;
    private volatile long violations;
    private volatile long resizes;
    private volatile long failures;
    private volatile double outputBufferBytes = Double.NaN;
    private volatile double sequenceLatencyMs = Double.NaN;

    @Override
    public void onDecision(BatchDecision d) {
        LatencyEstimate e = d.estimate();
        batchSize = d.batchSize();
        routes = d.routes();
        batchingMs = e.batching() * 1e3;
        encodingMs = e.encoding() * 1e3;
        decodingMs = e.decoding() * 1e3;
        transferMs = e.transfer() * 1e3;
        reorderingMs = e.reordering() * 1e3;
        queueingMs = d.queueing() * 1e3;
        predictedMs = d.predictedLatency() * 1e3;
        sustainable = d.sustainable() ? 1 : 0;
        decisions = decisions + 1; // single writer
    }

    @Override
    public void onMeasuredLatency(double predictedSeconds, double measuredSeconds) {
        measuredMs = measuredSeconds * 1e3;
    }

    @Override
    public void onViolation(LatencyConstraint constraint, double estimateMillis) {
        sequenceLatencyMs = estimateMillis;
        violations = violations + 1;
    }

    @Override
    public void onResize(String channel, int fromBytes, int toBytes, double outputBufferLatencyMillis) {
        outputBufferBytes = toBytes;
        resizes = resizes + 1;
    }

    @Override
    public void onFailed(LatencyConstraint constraint, double estimateMillis) {
        sequenceLatencyMs = estimateMillis;
        failures = failures + 1;
    }

    /**
     * Every gauge by its metric name, in a stable order; NaN until the first decision of its kind.
     * Names are relative: adapters put them under their own group (for example {@code jetstream}).
     */
    public Map<String, DoubleSupplier> gauges() {
        Map<String, DoubleSupplier> g = new LinkedHashMap<>();
        g.put("batch.size", () -> batchSize);
        g.put("batch.routes", () -> routes);
        g.put("batch.sustainable", () -> sustainable);
        g.put("batch.decisions", () -> decisions);
        g.put("latency.predicted.batching-ms", () -> batchingMs);
        g.put("latency.predicted.encoding-ms", () -> encodingMs);
        g.put("latency.predicted.decoding-ms", () -> decodingMs);
        g.put("latency.predicted.transfer-ms", () -> transferMs);
        g.put("latency.predicted.reordering-ms", () -> reorderingMs);
        g.put("latency.predicted.queueing-ms", () -> queueingMs);
        g.put("latency.predicted-ms", () -> predictedMs);
        g.put("latency.measured-ms", () -> measuredMs);
        g.put("qos.violations", () -> violations);
        g.put("qos.resizes", () -> resizes);
        g.put("qos.failures", () -> failures);
        g.put("qos.output-buffer-bytes", () -> outputBufferBytes);
        g.put("qos.sequence-latency-ms", () -> sequenceLatencyMs);
        return g;
    }
}
