package io.jetstream.core.internal.qos;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One channel's measurements on their way from the data path to its {@link QosService}: output
 * buffer lifetimes (reported when the sender ships a buffer), channel latencies of tagged records
 * (reported when the receiver's answer arrives), and when the writer next tags a record — one per
 * measurement interval (Nephele §3.3), so measuring costs one timestamp per channel per interval.
 *
 * <p>Threading contract: {@link #tagDue} is for the channel's writer thread; {@link #onBufferLifetime}
 * and {@link #onChannelLatency} for any thread, once per buffer or tag (never per record: each is
 * two atomic adds); {@link #drainInto} for the service's thread. A sample racing a drain may have its
 * time in one interval's mean and its count in the next one's; nothing is lost.
 */
public final class ChannelMeasurements {
    private final String channel;
    private final long intervalNanos;
    /** Writer thread. */
    private boolean tagged;
    private long nextTagNanos;

    private final AtomicLong lifetimeNanos = new AtomicLong();
    private final AtomicLong lifetimes = new AtomicLong();
    private final AtomicLong latencyNanos = new AtomicLong();
    private final AtomicLong latencies = new AtomicLong();
    // Service thread: totals already handed to a reporter.
    private long drainedLifetimeNanos;
    private long drainedLifetimes;
    private long drainedLatencyNanos;
    private long drainedLatencies;

    public ChannelMeasurements(String channel, long intervalNanos) {
        this.channel = channel;
        this.intervalNanos = intervalNanos;
    }

    public String channel() {
        return channel;
    }

    /** Whether the record written at {@code nowNanos} is to carry a tag. Writer thread. */
    public boolean tagDue(long nowNanos) {
        if (tagged && nowNanos - nextTagNanos < 0) {
            return false;
        }
        tagged = true;
        nextTagNanos = nowNanos + intervalNanos;
        return true;
    }

    /** A buffer of this channel was shipped {@code nanos} after its first record entered it. */
    public void onBufferLifetime(long nanos) {
        lifetimeNanos.addAndGet(nanos);
        lifetimes.incrementAndGet();
    }

    /** A tagged record of this channel reached its receiver {@code nanos} after it was emitted. */
    public void onChannelLatency(long nanos) {
        latencyNanos.addAndGet(nanos);
        latencies.incrementAndGet();
    }

    /** Hands what arrived since the last drain to {@code reporter}, as interval means. Service thread. */
    void drainInto(QosReporter reporter) {
        long n = lifetimes.get();
        long sum = lifetimeNanos.get();
        if (n > drainedLifetimes) {
            reporter.bufferLifetime(channel, (sum - drainedLifetimeNanos) / 1e6 / (n - drainedLifetimes));
            drainedLifetimes = n;
            drainedLifetimeNanos = sum;
        }
        n = latencies.get();
        sum = latencyNanos.get();
        if (n > drainedLatencies) {
            reporter.channelLatency(channel, (sum - drainedLatencyNanos) / 1e6 / (n - drainedLatencies));
            drainedLatencies = n;
            drainedLatencyNanos = sum;
        }
    }
}
