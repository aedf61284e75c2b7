package io.jetstream.core.internal.qos;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.model.LatencyConstraint;
import io.jetstream.core.model.OutputBufferRule;
import io.jetstream.harness.plot.Figure;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Nephele's buffer sizing in virtual time on a modelled channel (128-byte items, 100 µs of overhead
 * per shipped buffer, 100 MB/s, 1 ms network latency, a 0.5 ms source task): from a 32 KiB buffer at
 * a low rate a 50 ms constraint is met within 10 measurement intervals; when the rate jumps the
 * buffer grows back until throughput is at least 95 % of what the largest buffer achieves.
 */
class NepheleConvergenceTest {
    private static final Logger LOG = LoggerFactory.getLogger(NepheleConvergenceTest.class);
    static final double ITEM = 128;
    static final double OVERHEAD = 100e-6;
    static final double BANDWIDTH = 100e6;
    static final long INTERVAL = 1_000_000_000L;
    static final int MAX_BUFFER = 65_536;

    /** The channel's state across intervals: items waiting because buffers cannot ship fast enough. */
    static final class Channel {
        double backlog;

        double capacity(int buffer) {
            return (buffer / ITEM) / (OVERHEAD + buffer / BANDWIDTH);
        }

        /** One interval at {@code rate} items/s; reports to {@code reporter}; returns the throughput. */
        double run(int buffer, double rate, QosReporter reporter) {
            double capacity = capacity(buffer);
            double throughput = Math.min(capacity, rate + backlog);
            backlog = Math.max(0, backlog + rate - capacity);
            double lifetime = buffer / (rate * ITEM);                                  // time to fill a buffer
            double latency = lifetime / 2 + OVERHEAD + buffer / BANDWIDTH + 0.001 + backlog / capacity;
            reporter.channelLatency("e1", latency * 1e3);
            reporter.bufferLifetime("e1", lifetime * 1e3);
            reporter.taskLatency("source", 0.5);
            return throughput;
        }
    }

    @Test
    void meetsTheConstraintAtLowRateAndRecoversThroughputAtHighRate() throws Exception {
        LatencyConstraint constraint = new LatencyConstraint("50ms",
                List.of(LatencyConstraint.Element.channel("e1", "source")), 50, 2 * INTERVAL);
        ChannelBuffers buffers = new ChannelBuffers(32_768);
        QosManager manager = new QosManager(List.of(constraint), OutputBufferRule.nephele(MAX_BUFFER), buffers, QosListener.NONE);
        long now = 0;
        QosReporter reporter = new QosReporter(INTERVAL, now, manager::onReport);
        Channel channel = new Channel();

        // Per interval, for the figure: buffer size, estimated sequence latency, throughput share of the best.
        List<double[]> trace = new ArrayList<>();
        int metAt = -1;
        for (int interval = 1; interval <= 10 && metAt < 0; interval++) {
            channel.run(buffers.get("e1").bytes(), 1_000, reporter);
            now += INTERVAL;
            reporter.tick(now);
            manager.evaluate(now);
            trace.add(new double[] {trace.size() + 1, buffers.get("e1").bytes(), manager.estimate(constraint, now), Double.NaN});
            if (manager.estimate(constraint, now) <= 50) {
                metAt = interval;
            }
        }
        assertTrue(metAt > 0, "the 50 ms constraint was not met within 10 intervals; buffer " + buffers.get("e1").bytes());

        double best = Math.min(500_000, channel.capacity(MAX_BUFFER));
        double throughput = 0;
        int intervals = 0;
        for (; intervals < 200 && throughput < 0.95 * best; intervals++) {
            throughput = channel.run(buffers.get("e1").bytes(), 500_000, reporter);
            now += INTERVAL;
            reporter.tick(now);
            manager.evaluate(now);
            trace.add(new double[] {trace.size() + 1, buffers.get("e1").bytes(), manager.estimate(constraint, now), throughput / best});
        }
        assertTrue(throughput >= 0.95 * best, "throughput " + throughput + " of " + best + " after " + intervals
                + " intervals; buffer " + buffers.get("e1").bytes());
        double[] x = trace.stream().mapToDouble(r -> r[0]).toArray();
        Figure.writeIfRequested("nephele-convergence.png", 1, List.of(
                Figure.of("Output buffer: 1,000 items/s until the constraint holds, then 500,000",
                        "measurement interval (1 s each)", "output buffer (bytes)", false, true)
                        .line("output buffer", x, trace.stream().mapToDouble(r -> r[1]).toArray()),
                Figure.of("Estimated sequence latency", "measurement interval (1 s each)", "sequence latency (ms)", false, true)
                        .line("channel + source task", x, trace.stream().mapToDouble(r -> r[2]).toArray())
                        .horizontal("constraint 50 ms", 50),
                Figure.of("Throughput at 500,000 items/s", "measurement interval (1 s each)",
                        "throughput (share of the 64 KiB buffer's)", false, false)
                        .line("throughput / best", x, trace.stream().mapToDouble(r -> r[3]).toArray())
                        .horizontal("95 %", 0.95)));
        LOG.info("Nephele: constraint met after {} interval(s); throughput recovered after {} intervals (buffer {} B)",
                metAt, intervals, buffers.get("e1").bytes());
    }
}
