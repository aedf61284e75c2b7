package io.jetstream.flink.ring;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.ThreadSafeSimpleCounter;

/**
 * Which path carried a TaskManager's data: counters in its shuffle metric group, sub-group
 * {@code jetstream}. {@code ring*In} count what this TaskManager's input channels received over the
 * ring, {@code ring*Out} what its partitions sent over it; {@code ringConnections} and
 * {@code nettyConnections} count the partition-request clients handed out per path (a connection
 * to another host, or one whose ring could not be opened, goes to Netty), {@code ringFallbacks} the
 * same-host connections that fell back to Netty, {@code ringRedirects} the channels a producer moved
 * to Netty (blocking and hybrid partitions).
 *
 * <p>Threading: the {@code ring*In/Out}, {@code ringChannels}, {@code ringServedChannels} and
 * {@code ringRedirects} counters are written by the ring I/O thread only; the connection counters
 * by any thread (thread-safe counters).
 */
public final class RingMetrics {
    final Counter buffersIn;
    final Counter bytesIn;
    final Counter buffersOut;
    final Counter bytesOut;
    final Counter channels;
    final Counter servedChannels;
    final Counter redirects;
    final Counter ringConnections;
    final Counter nettyConnections;
    final Counter fallbacks;

    public RingMetrics(MetricGroup group) {
        buffersIn = group.counter("ringBuffersIn");
        bytesIn = group.counter("ringBytesIn");
        buffersOut = group.counter("ringBuffersOut");
        bytesOut = group.counter("ringBytesOut");
        channels = group.counter("ringChannels");
        servedChannels = group.counter("ringServedChannels");
        redirects = group.counter("ringRedirects");
        ringConnections = group.counter("ringConnections", new ThreadSafeSimpleCounter());
        nettyConnections = group.counter("nettyConnections", new ThreadSafeSimpleCounter());
        fallbacks = group.counter("ringFallbacks", new ThreadSafeSimpleCounter());
    }
}
