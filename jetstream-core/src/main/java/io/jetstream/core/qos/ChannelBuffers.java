package io.jetstream.core.qos;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntConsumer;

/**
 * The output buffer size of each channel on a worker, versioned so that when several QoS managers
 * change one channel the first update wins (Nephele §3.5.1): an update names the version it was
 * computed from and is discarded if another update got there first. A channel's sender binds its
 * flush decision to its size ({@link #bind}: typically {@code FlushPolicy::setSizeCap}), which is
 * how the constraint reaches the data path.
 *
 * <p>Thread-safe.
 */
public final class ChannelBuffers {
    /** A channel's size and the version it carries. */
    public record Size(int bytes, long version) {}

    private final ConcurrentHashMap<String, Size> sizes = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, IntConsumer> sinks = new ConcurrentHashMap<>();
    private final int initialBytes;

    public ChannelBuffers(int initialBytes) {
        this.initialBytes = initialBytes;
    }

    public Size get(String channel) {
        return sizes.computeIfAbsent(channel, c -> new Size(initialBytes, 0));
    }

    /**
     * Applies {@code bytes} if the channel is still at {@code basedOn}; returns whether it won. A
     * winning size is handed to the channel's bound sink on the caller's thread.
     */
    public boolean propose(String channel, long basedOn, int bytes) {
        Size current = get(channel);
        boolean won = current.version() == basedOn && sizes.replace(channel, current, new Size(bytes, basedOn + 1));
        if (won) {
            notifySink(channel);
        }
        return won;
    }

    /**
     * Hands the channel's size to {@code sink} now and after every winning {@link #propose}, until
     * {@link #unbind}; replaces an earlier sink of the channel.
     */
    public void bind(String channel, IntConsumer sink) {
        sinks.put(channel, sink);
        notifySink(channel);
    }

    /** Stops handing the channel's sizes to its sink (the channel closed). */
    public void unbind(String channel) {
        sinks.remove(channel);
    }

    /**
     * The current size, read under the sink's lock: when two managers' updates win one after the
     * other, the later notification always carries the later size, whatever order the threads
     * reach here in.
     */
    private void notifySink(String channel) {
        IntConsumer sink = sinks.get(channel);
        if (sink != null) {
            synchronized (sink) {
                sink.accept(get(channel).bytes());
            }
        }
    }
}
