package io.jetstream.flink.shuffle;

import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A real Flink metric reporter (configured through {@code metrics.reporter.*}) that keeps every
 * JetStream counter the TaskManagers register, so an ITCase can prove that records went through
 * JetStream's decorators. The MiniCluster runs in the test JVM, hence the static registry.
 */
public final class CollectingMetricReporter implements MetricReporter {
    /** Counters registered in a {@code jetstream} group, with their full identifiers. */
    static final List<Registered> COUNTERS = new CopyOnWriteArrayList<>();

    record Registered(String identifier, Counter counter) {}

    /** Sum over all registered counters whose identifier ends with {@code .jetstream.<name>}. */
    static long sum(String name) {
        return COUNTERS.stream()
                .filter(r -> r.identifier().endsWith("." + JetStreamShuffleEnvironment.METRIC_GROUP + "." + name))
                .mapToLong(r -> r.counter().getCount())
                .sum();
    }

    /** Sum over registered counters whose identifier ends with {@code .<suffix>} (flush metrics: {@code flushesSize}...). */
    static long sumEndingWith(String suffix) {
        return COUNTERS.stream()
                .filter(r -> r.identifier().endsWith("." + suffix))
                .mapToLong(r -> r.counter().getCount())
                .sum();
    }

    static void reset() {
        COUNTERS.clear();
    }

    static void configure(org.apache.flink.configuration.Configuration conf) {
        conf.setString("metrics.reporter.collecting.factory.class", Factory.class.getName());
    }

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String metricName, MetricGroup group) {
        String identifier = group.getMetricIdentifier(metricName);
        if (metric instanceof Counter counter
                && identifier.contains("." + JetStreamShuffleEnvironment.METRIC_GROUP + ".")) {
            COUNTERS.add(new Registered(identifier, counter));
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String metricName, MetricGroup group) {
        // Keep the counter: the test reads the final values after the job has finished.
    }

    /** Loaded by Flink from {@code metrics.reporter.collecting.factory.class}. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new CollectingMetricReporter();
        }
    }
}
