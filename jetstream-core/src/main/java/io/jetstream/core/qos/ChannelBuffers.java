package io.jetstream.core.qos;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The output buffer size of each channel on a worker, versioned so that when several QoS managers
 * change one channel the first update wins (Nephele §3.5.1): an update names the version it was
 * computed from and is discarded if another update got there first.
 *
 * <p>Thread-safe.
 */
public final class ChannelBuffers {
    /** A channel's size and the version it carries. */
    public record Size(int bytes, long version) {}

    private final ConcurrentHashMap<String, Size> sizes = new ConcurrentHashMap<>();
    private final int initialBytes;

    public ChannelBuffers(int initialBytes) {
        this.initialBytes = initialBytes;
    }

    public Size get(String channel) {
        return sizes.computeIfAbsent(channel, c -> new Size(initialBytes, 0));
    }

    /** Applies {@code bytes} if the channel is still at {@code basedOn}; returns whether it won. */
    public boolean propose(String channel, long basedOn, int bytes) {
        Size current = get(channel);
        return current.version() == basedOn && sizes.replace(channel, current, new Size(bytes, basedOn + 1));
    }
}
