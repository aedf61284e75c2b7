package io.jetstream.core.api;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Where a receiver keeps, per stream, the highest sequence it delivered in order. A receiver that
 * restarts asks it where each stream stands and tells the sender, which replays only what follows:
 * exactly-once across receiver restarts holds when the application commits this number together
 * with what it did with the records (for example in the same write as its output). The default
 * ({@link #inMemory()}) survives reconnects, not a restart of the receiving process.
 *
 * <p>Implementations are called on the receiving I/O threads, one stream at a time.
 */
public interface SequenceStore {
    /** Highest sequence delivered for {@code stream}, or 0 when it is unknown (a new stream or epoch). */
    long lastDelivered(StreamKey stream);

    /** {@code sequence} and everything before it of {@code stream} were delivered. */
    void delivered(StreamKey stream, long sequence);

    /** Kept for the process's lifetime; one entry per (peer, stream), a new epoch replaces the old. */
    static SequenceStore inMemory() {
        return new SequenceStore() {
            private final ConcurrentHashMap<String, long[]> last = new ConcurrentHashMap<>();

            @Override
            public long lastDelivered(StreamKey stream) {
                long[] e = last.get(stream.peerId() + '/' + stream.streamId());
                return e != null && e[0] == stream.epoch() ? e[1] : 0;
            }

            @Override
            public void delivered(StreamKey stream, long sequence) {
                last.compute(stream.peerId() + '/' + stream.streamId(), (k, e) -> {
                    if (e == null || e[0] != stream.epoch()) {
                        return new long[] {stream.epoch(), sequence};
                    }
                    e[1] = Math.max(e[1], sequence);
                    return e;
                });
            }
        };
    }
}
