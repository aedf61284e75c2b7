package io.jetstream.core.qos;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A worker's QoS reporter (Nephele §3.3): pre-aggregates the measurements of one measurement
 * interval — channel latencies from tagged items, task latencies, output buffer lifetimes — and
 * hands one report per interval to its manager. It also decides which items to tag: at most one per
 * channel per interval, so measuring costs one timestamp per channel per interval.
 *
 * <p>Not thread-safe: fed by one thread (transports hand measurements over).
 */
public final class QosReporter {
    /** One interval's averages per element, in milliseconds. */
    public record Report(long atNanos, Map<String, Double> channelLatency, Map<String, Double> taskLatency,
            Map<String, Double> bufferLifetime) {}

    private final long intervalNanos;
    private final Consumer<Report> manager;
    private final Map<String, double[]> channels = new HashMap<>();
    private final Map<String, double[]> tasks = new HashMap<>();
    private final Map<String, double[]> lifetimes = new HashMap<>();
    private final Map<String, Long> lastTag = new HashMap<>();
    private long nextReportNanos;

    public QosReporter(long intervalNanos, long startNanos, Consumer<Report> manager) {
        this.intervalNanos = intervalNanos;
        this.manager = manager;
        this.nextReportNanos = startNanos + intervalNanos;
    }

    /** Whether the next item on {@code channel} should carry a timestamp tag. */
    public boolean shouldTag(String channel, long nowNanos) {
        Long last = lastTag.get(channel);
        if (last != null && nowNanos - last < intervalNanos) {
            return false;
        }
        lastTag.put(channel, nowNanos);
        return true;
    }

    public void channelLatency(String channel, double millis) {
        add(channels, channel, millis);
    }

    public void taskLatency(String task, double millis) {
        add(tasks, task, millis);
    }

    public void bufferLifetime(String channel, double millis) {
        add(lifetimes, channel, millis);
    }

    private static void add(Map<String, double[]> into, String id, double millis) {
        double[] sumAndCount = into.computeIfAbsent(id, k -> new double[2]);
        sumAndCount[0] += millis;
        sumAndCount[1]++;
    }

    /** Sends the interval's report if the interval is over. */
    public void tick(long nowNanos) {
        if (nowNanos - nextReportNanos < 0) {
            return;
        }
        manager.accept(new Report(nowNanos, drain(channels), drain(tasks), drain(lifetimes)));
        nextReportNanos = nowNanos + intervalNanos;
    }

    private static Map<String, Double> drain(Map<String, double[]> from) {
        Map<String, Double> means = new HashMap<>();
        from.forEach((id, s) -> means.put(id, s[0] / s[1]));
        from.clear();
        return means;
    }
}
