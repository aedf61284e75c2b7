package io.jetstream.core.ring;

import org.agrona.DirectBuffer;

/**
 * Receives the records a {@link RingConsumer} polls, one call per tuple (a batch record yields one
 * call per tuple it carries). The buffer is the ring itself: read the bytes during the call, they
 * are reused afterwards.
 */
@FunctionalInterface
public interface RecordHandler {
    void onRecord(int target, DirectBuffer buffer, int offset, int length);
}
