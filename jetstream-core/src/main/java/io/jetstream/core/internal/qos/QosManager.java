package io.jetstream.core.internal.qos;

import io.jetstream.core.model.LatencyConstraint;
import io.jetstream.core.model.OutputBufferRule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A QoS manager (Nephele §3.3-3.5): keeps the reported measurements fresher than each constraint's
 * window, estimates each constrained sequence's mean latency as the sum of its elements' running
 * averages, and on a violation resizes the sequence's output buffers with {@link OutputBufferRule}.
 * After changing a channel it leaves it alone until the measurements taken under the old size have
 * aged out of the window. When a violated constraint has no countermeasure left it is reported as
 * failed.
 *
 * <p>Driven by an injected clock ({@code nowNanos} arguments); not thread-safe: one manager thread.
 */
public final class QosManager {
    private static final int SAMPLES = 1024;

    private final List<LatencyConstraint> constraints;
    private final OutputBufferRule rule;
    private final ChannelBuffers buffers;
    private final QosListener listener;
    private final Map<String, WindowedMean> channelLatency = new HashMap<>();
    private final Map<String, WindowedMean> taskLatency = new HashMap<>();
    private final Map<String, WindowedMean> bufferLifetime = new HashMap<>();
    private final Map<String, Long> changedAt = new HashMap<>();

    public QosManager(List<LatencyConstraint> constraints, OutputBufferRule rule, ChannelBuffers buffers, QosListener listener) {
        this.constraints = new ArrayList<>(constraints);
        this.rule = rule;
        this.buffers = buffers;
        this.listener = listener;
    }

    /** Watches one more constraint from the next evaluation on. */
    public void add(LatencyConstraint constraint) {
        constraints.add(constraint);
    }

    /** Stops watching the constraint named {@code name} and forgets what was measured of {@code channel}. */
    public void remove(String name, String channel) {
        constraints.removeIf(c -> c.name().equals(name));
        channelLatency.remove(channel);
        bufferLifetime.remove(channel);
        changedAt.remove(channel);
    }

    /** Stores one reporter's interval report. */
    public void onReport(QosReporter.Report report) {
        long at = report.atNanos();
        report.channelLatency().forEach((id, v) -> window(channelLatency, id).add(at, v));
        report.taskLatency().forEach((id, v) -> window(taskLatency, id).add(at, v));
        report.bufferLifetime().forEach((id, v) -> window(bufferLifetime, id).add(at, v));
    }

    private static WindowedMean window(Map<String, WindowedMean> map, String id) {
        return map.computeIfAbsent(id, k -> new WindowedMean(SAMPLES));
    }

    private static double mean(Map<String, WindowedMean> map, String id, long since) {
        WindowedMean w = map.get(id);
        return w == null ? Double.NaN : w.meanSince(since);
    }

    /** The estimated mean sequence latency (ms), NaN while an element has no fresh measurement. */
    public double estimate(LatencyConstraint c, long nowNanos) {
        long since = nowNanos - c.windowNanos();
        double sum = 0;
        for (LatencyConstraint.Element e : c.sequence()) {
            double v = e.kind() == LatencyConstraint.Kind.CHANNEL
                    ? mean(channelLatency, e.id(), since)
                    : mean(taskLatency, e.id(), since);
            sum += v;
        }
        return sum;
    }

    /** Checks every constraint and applies countermeasures; returns the channels resized. */
    public List<String> evaluate(long nowNanos) {
        List<String> resized = new ArrayList<>();
        for (LatencyConstraint c : constraints) {
            double estimate = estimate(c, nowNanos);
            if (Double.isNaN(estimate) || estimate <= c.boundMillis()) {
                continue;
            }
            listener.onViolation(c, estimate);
            boolean waiting = false;
            boolean acted = false;
            long since = nowNanos - c.windowNanos();
            for (LatencyConstraint.Element e : c.sequence()) {
                if (e.kind() != LatencyConstraint.Kind.CHANNEL) {
                    continue;
                }
                Long changed = changedAt.get(e.id());
                if (changed != null && nowNanos - changed < c.windowNanos()) {
                    waiting = true; // measurements under the old size have not aged out yet
                    continue;
                }
                double lifetime = mean(bufferLifetime, e.id(), since);
                if (Double.isNaN(lifetime)) {
                    continue;
                }
                double obl = lifetime / 2;
                double source = e.sourceTask() == null ? 0 : mean(taskLatency, e.sourceTask(), since);
                ChannelBuffers.Size size = buffers.get(e.id());
                int next = rule.resize(size.bytes(), obl, Double.isNaN(source) ? 0 : source);
                if (next != size.bytes() && buffers.propose(e.id(), size.version(), next)) {
                    changedAt.put(e.id(), nowNanos);
                    listener.onResize(e.id(), size.bytes(), next, obl);
                    resized.add(e.id());
                    acted = true;
                }
            }
            if (!acted && !waiting) {
                listener.onFailed(c, estimate);
            }
        }
        return resized;
    }
}
