package io.jetstream.core.internal.qos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.model.FlushPolicy;
import io.jetstream.core.model.LatencyConstraint;
import io.jetstream.core.model.OutputBufferRule;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Both controllers on one channel's {@link FlushPolicy}, in virtual time: the batch controller's
 * size target and Nephele's output-buffer size reaching it through {@link ChannelBuffers#bind}. The
 * items really go through the policy: buffer lifetimes and tagged items' latencies are measured
 * from when it lets the data leave, not computed from a formula.
 */
class ConstrainedFlushTest {
    private static final Logger LOG = LoggerFactory.getLogger(ConstrainedFlushTest.class);
    private static final long MS = 1_000_000;
    private static final long INTERVAL = 1_000 * MS;
    private static final int ITEM = 128;
    /** Shipping a buffer: 100 µs of overhead, 100 MB/s, then 1 ms of network. */
    private static long shipNanos(int bytes) {
        return 100_000 + bytes * 10L + MS;
    }

    @Test
    void aViolatedConstraintShrinksWhatTheChannelSendsAndTheSmallerTargetAlwaysWins() {
        LatencyConstraint constraint = new LatencyConstraint("50ms",
                List.of(LatencyConstraint.Element.channel("e1", "source")), 50, 2 * INTERVAL);
        ChannelBuffers buffers = new ChannelBuffers(32_768);
        QosManager manager = new QosManager(List.of(constraint), OutputBufferRule.nephele(65_536), buffers, QosListener.NONE);
        QosReporter reporter = new QosReporter(INTERVAL, 0, manager::onReport);
        // A fixed 32 KiB target with a 1 s timeout (hand-tuned, as Flink's default buffers); 1,000
        // items/s in Poisson arrivals, so the one tagged item per interval falls anywhere in a buffer.
        FlushPolicy policy = new FlushPolicy(32_768, 1_000 * MS);
        buffers.bind("e1", policy::setSizeCap);
        assertEquals(32_768, policy.sizeCapBytes(), "binding hands the current size over at once");

        Shipping channel = new Shipping(policy, reporter);
        int metAt = -1;
        List<Double> trueMeanMillis = new ArrayList<>(); // every item's latency, not only the tagged ones
        SplittableRandom arrivals = new SplittableRandom(42);
        long now = 0;
        for (int interval = 1; interval <= 10 && metAt < 0; interval++) {
            for (long end = interval * INTERVAL; now < end; now += (long) (-Math.log(1 - arrivals.nextDouble()) * MS)) {
                if (policy.isDue(now)) {
                    channel.ship(now, FlushPolicy.Reason.DEADLINE);
                }
                channel.offer(now);
            }
            trueMeanMillis.add(channel.meanLatencyMillisSinceLastCall());
            reporter.taskLatency("source", 0.5);
            reporter.tick(now);
            manager.evaluate(now);
            if (manager.estimate(constraint, now) <= 50 && channel.lastShippedBytes() < buffers.get("e1").bytes() + ITEM) {
                metAt = interval;
            }
        }
        assertTrue(metAt > 0, "the 50 ms constraint was not met within 10 intervals; cap " + policy.sizeCapBytes());
        assertTrue(trueMeanMillis.get(0) > 100, "with 32 KiB buffers items waited " + trueMeanMillis.get(0) + " ms");
        double lastMean = trueMeanMillis.get(trueMeanMillis.size() - 1);
        assertTrue(lastMean <= 50, "measured over every item, the last interval's mean is " + lastMean + " ms");
        int cap = buffers.get("e1").bytes();
        LOG.info("Constrained channel: met after {} interval(s); output buffer {} B; mean item latency {} ms, then {} ms",
                metAt, cap, String.format("%.1f", trueMeanMillis.get(0)), String.format("%.1f", lastMean));
        assertTrue(cap < 32_768, "Nephele shrank the buffer: " + cap);
        assertEquals(cap, policy.sizeCapBytes(), "the winning size reached the channel");
        assertEquals(cap, policy.targetBytes(), "data leaves at the smaller of the two targets");
        int last = channel.lastShippedBytes();
        assertTrue(last >= cap && last < cap + ITEM, "the channel now sends what the constraint allows: " + last + " B");
        assertEquals(32_768, channel.firstShippedBytes(), "before the constraint acted, the controller's 32 KiB");

        // The batch controller decides a smaller batch (a low rate): its target is now the smaller one.
        policy.setTargets(1_024, 1_000 * MS);
        assertEquals(1_024, policy.targetBytes());
        // Nephele grows the buffer past the controller's target: the controller's stays in force.
        assertTrue(buffers.propose("e1", buffers.get("e1").version(), 65_536));
        assertEquals(65_536, policy.sizeCapBytes());
        assertEquals(1_024, policy.targetBytes());
    }

    @Test
    void onlyAWinningProposalReachesTheChannelAndAnUnboundChannelHearsNothing() {
        ChannelBuffers buffers = new ChannelBuffers(8_192);
        FlushPolicy policy = new FlushPolicy(65_536, MS);
        buffers.bind("e1", policy::setSizeCap);
        long version = buffers.get("e1").version();
        assertTrue(buffers.propose("e1", version, 4_096), "the first manager's update wins");
        assertFalse(buffers.propose("e1", version, 16_384), "a second update computed from the same version loses");
        assertEquals(4_096, policy.targetBytes());
        buffers.unbind("e1");
        assertTrue(buffers.propose("e1", version + 1, 2_048));
        assertEquals(4_096, policy.targetBytes(), "a closed channel's policy is no longer driven");
    }

    /**
     * The channel's sending side: items join the policy's pending data and leave when it says so;
     * reports buffer lifetimes and one tagged item's latency per interval, as a Nephele reporter
     * would, and keeps the true mean latency of every item for the test to check against.
     */
    private static final class Shipping {
        private final FlushPolicy policy;
        private final QosReporter reporter;
        private long firstPending;
        private final ChannelMeasurements tags = new ChannelMeasurements("e1", INTERVAL);
        private long tagged = -1;
        private double pendingArrivalSum;
        private double latencySum;
        private long items;
        private int firstShipped = -1;
        private int lastShipped;

        Shipping(FlushPolicy policy, QosReporter reporter) {
            this.policy = policy;
            this.reporter = reporter;
        }

        void offer(long now) {
            if (policy.pendingRecords() == 0) {
                firstPending = now;
            }
            if (tagged < 0 && tags.tagDue(now)) {
                tagged = now;
            }
            pendingArrivalSum += now;
            if (policy.onRecord(ITEM, now)) {
                ship(now, FlushPolicy.Reason.SIZE);
            }
        }

        void ship(long now, FlushPolicy.Reason reason) {
            int bytes = policy.pendingBytes();
            int count = policy.pendingRecords();
            long delivered = now + shipNanos(bytes);
            reporter.bufferLifetime("e1", (now - firstPending) / 1e6);
            if (tagged >= 0) {
                reporter.channelLatency("e1", (delivered - tagged) / 1e6);
                tagged = -1;
            }
            latencySum += (double) count * delivered - pendingArrivalSum;
            items += count;
            pendingArrivalSum = 0;
            if (firstShipped < 0) {
                firstShipped = bytes;
            }
            lastShipped = bytes;
            policy.onFlush(reason);
        }

        double meanLatencyMillisSinceLastCall() {
            double mean = items == 0 ? Double.NaN : latencySum / items / 1e6;
            latencySum = 0;
            items = 0;
            return mean;
        }

        int firstShippedBytes() {
            return firstShipped;
        }

        int lastShippedBytes() {
            return lastShipped;
        }
    }
}
