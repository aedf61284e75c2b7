package io.jetstream.core.internal.qos;

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
    /** Orders notifications: resizes are rare (one per channel per window at most), so one lock will do. */
    private final Object notifications = new Object();
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
        synchronized (notifications) { // no notification in progress hands it one more size after this
            sinks.remove(channel);
        }
    }

    /** Unbinds the channel and drops its size: a channel of that name opened later starts afresh. */
    public void forget(String channel) {
        unbind(channel);
        sizes.remove(channel);
    }

    /**
     * Hands the current size over, read under one lock: when two managers' updates win one after the
     * other, the later notification always carries the later size, whatever order the threads reach
     * here in.
     */
    private void notifySink(String channel) {
        synchronized (notifications) {
            IntConsumer sink = sinks.get(channel);
            if (sink != null) {
                sink.accept(get(channel).bytes());
            }
        }
    }
}
