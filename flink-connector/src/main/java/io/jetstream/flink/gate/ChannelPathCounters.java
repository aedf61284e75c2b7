package io.jetstream.flink.gate;

import java.util.function.Predicate;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.io.network.partition.consumer.InputChannel;
import org.apache.flink.runtime.io.network.partition.consumer.RemoteInputChannel;

/**
 * Which path carried a gate's data buffers: those of remote channels served by the same-host ring
 * ({@code buffersInRing}, {@code bytesInRing}) and those of other remote channels, Flink's Netty
 * ({@code buffersInNetty}, {@code bytesInNetty}). Local and recovered channels count in neither.
 *
 * <p>Threading: the gate's task thread (Flink's {@code SimpleCounter}s); {@code onRing} must be safe to
 * call from it. Each channel's path is looked up once (when the gate first delivers one of its buffers,
 * or after Flink replaced the channel object) and cached by the gate.
 *
 * @param onRing whether a remote channel's buffers come over the ring
 */
public record ChannelPathCounters(
        Predicate<RemoteInputChannel> onRing,
        Counter ringBuffers,
        Counter ringBytes,
        Counter nettyBuffers,
        Counter nettyBytes) {

    static final byte OTHER = 0;
    static final byte RING = 1;
    static final byte NETTY = 2;

    byte pathOf(InputChannel channel) {
        if (channel instanceof RemoteInputChannel remote) {
            return onRing.test(remote) ? RING : NETTY;
        }
        return OTHER; // local, recovered (state from a checkpoint) or not yet known
    }
}
