package io.jetstream.flink.crosssite;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A metric reporter (and its factory, found through {@code META-INF/services}) that keeps every metric
 * the MiniClusters of this JVM register, by identifier, so that the tests read the connector's gauges
 * and counters as a reporter would, also after their job ended. Thread-safe.
 */
public final class CapturingReporter implements MetricReporter, MetricReporterFactory {
    private static final Map<String, Metric> METRICS = new ConcurrentHashMap<>();

    /** The current values of metric {@code name} of the job named {@code job} (one per subtask). */
    static List<Long> values(String job, String name) {
        List<Long> values = new ArrayList<>();
        METRICS.forEach((id, metric) -> {
            if (id.contains("." + job + ".") && id.endsWith("." + name)) {
                if (metric instanceof Gauge<?> g && g.getValue() instanceof Number n) {
                    values.add(n.longValue());
                } else if (metric instanceof Counter c) {
                    values.add(c.getCount());
                }
            }
        });
        return values;
    }

    @Override
    public MetricReporter createMetricReporter(Properties properties) {
        return this;
    }

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        METRICS.put(group.getMetricIdentifier(name), metric);
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
        // Kept: a finished job's counters are read after it finished (the tests' job names are unique).
    }
}
