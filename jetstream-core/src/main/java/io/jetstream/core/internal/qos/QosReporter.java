package io.jetstream.core.internal.qos;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A worker's QoS reporter (Nephele §3.3): pre-aggregates the measurements of one measurement
 * interval — channel latencies from tagged items, task latencies, output buffer lifetimes — and
 * hands one report per interval to its manager. (Which items are tagged, one per channel per
 * interval, each channel's {@link ChannelMeasurements} decides on its writer's thread.)
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
    private long nextReportNanos;

    public QosReporter(long intervalNanos, long startNanos, Consumer<Report> manager) {
        this.intervalNanos = intervalNanos;
        this.manager = manager;
        this.nextReportNanos = startNanos + intervalNanos;
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
