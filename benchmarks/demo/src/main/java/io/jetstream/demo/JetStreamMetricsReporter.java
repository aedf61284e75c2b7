package io.jetstream.demo;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A Flink metric reporter that keeps the counters the demo reports: the flush decisions of
 * JetStream's flush control ({@code flushesSize}, {@code flushesDeadline}, {@code flushesIdle}), so
 * the demo can say that JetStream, not Flink's timer, decided when buffers left, and the bytes each
 * path carried into the input gates ({@code bytesInRing}, {@code bytesInNetty}). The demo's
 * MiniCluster runs in its JVM.
 */
public final class JetStreamMetricsReporter implements MetricReporter {
    private static final List<String> DECISIONS = List.of("flushesSize", "flushesDeadline", "flushesIdle");
    private static final List<String> PATHS = List.of("bytesInRing", "bytesInNetty");
    private static final Map<String, List<Counter>> COUNTERS = new ConcurrentHashMap<>();

    static void configure(Configuration conf) {
        conf.setString("metrics.reporter.jetstream-demo.factory.class", Factory.class.getName());
    }

    static void reset() {
        COUNTERS.clear();
    }

    /** The sum of every counter named {@code name} the cluster registered so far. */
    static long sum(String name) {
        return COUNTERS.getOrDefault(name, List.of()).stream().mapToLong(Counter::getCount).sum();
    }

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String metricName, MetricGroup group) {
        if (metric instanceof Counter counter && (DECISIONS.contains(metricName) || PATHS.contains(metricName))) {
            COUNTERS.computeIfAbsent(metricName, n -> new CopyOnWriteArrayList<>()).add(counter);
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String metricName, MetricGroup group) {
        // Kept: the demo reads the counts after the jobs finished.
    }

    /** Loaded by Flink from {@code metrics.reporter.jetstream-demo.factory.class}. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new JetStreamMetricsReporter();
        }
    }
}
