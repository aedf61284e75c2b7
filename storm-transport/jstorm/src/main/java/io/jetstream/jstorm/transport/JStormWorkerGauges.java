package io.jetstream.jstorm.transport;

import com.alibaba.jstorm.common.metric.AsmGauge;
import com.alibaba.jstorm.metric.JStormMetrics;
import com.alibaba.jstorm.metric.MetricType;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What JetStream carried in this worker as gauges of JStorm's own worker metrics (shown with the
 * worker's other metrics, e.g. in JStorm's UI): messages sent and received, batches received over the
 * shared-memory ring and over TCP, messages dropped and overflowed ({@link JetStreamJStormContext#processTotals()}).
 * Registered when the worker binds its server, removed at {@code term()}. Outside a worker (JStorm's
 * metrics not set up) registration is skipped and logged.
 *
 * <p>Thread-safety: called by the context's {@code bind} and {@code term}.
 */
final class JStormWorkerGauges {
    private static final Logger LOG = LoggerFactory.getLogger(JStormWorkerGauges.class);
    private final List<String> names = new ArrayList<>();

    void register() {
        try {
            gauge("JetStreamSentMessages", JetStreamJStormContext.ProcessTotals::sentRecords);
            gauge("JetStreamReceivedMessages", JetStreamJStormContext.ProcessTotals::receivedRecords);
            gauge("JetStreamRingBatches", JetStreamJStormContext.ProcessTotals::ringBatches);
            gauge("JetStreamTcpBatches", JetStreamJStormContext.ProcessTotals::tcpBatches);
            gauge("JetStreamDropped", JetStreamJStormContext.ProcessTotals::dropped);
            gauge("JetStreamOverflowed", JetStreamJStormContext.ProcessTotals::overflowed);
        } catch (RuntimeException | LinkageError e) {
            LOG.info("JetStream's counters not registered as JStorm worker metrics ({}); they are in the log at term()", e.toString());
        }
    }

    private void gauge(String metric, ToLongFunction<JetStreamJStormContext.ProcessTotals> value) {
        String name = JStormMetrics.workerMetricName(metric, MetricType.GAUGE);
        JStormMetrics.registerWorkerMetric(name, new AsmGauge(() -> (double) value.applyAsLong(JetStreamJStormContext.processTotals())));
        names.add(name);
    }

    void unregister() {
        for (String name : names) {
            try {
                JStormMetrics.unregisterWorkerMetric(name);
            } catch (RuntimeException e) {
                LOG.debug("Unregistering {} failed: {}", name, e.toString());
            }
        }
        names.clear();
    }
}
