package io.jetstream.core.api;

import org.agrona.DirectBuffer;

/**
 * Receives what a landing pushes to a {@link LandingSubscriber}, on the subscriber's receiving I/O
 * thread (one landed stream's calls never run concurrently; different streams' may). A slow handler
 * pushes back on the landing: the landing's push of that stream waits for room.
 */
public interface LandedRecordHandler {
    /**
     * One released record of {@code stream}.
     *
     * @param ordinal the record's position in the landed stream (0, 1, ...: a reader resumes after it)
     * @param sentMillis wall-clock time the sender offered it
     * @param buffer valid only during this call
     */
    void onRecord(String stream, long ordinal, long sentMillis, DirectBuffer buffer, int offset, int length);

    /**
     * Where the landed stream stands at the landing (sent about once a second while subscribed, and
     * whenever the subscription catches up).
     *
     * @param landed records landed so far (the next record's ordinal)
     * @param released of those, records released to readers (or discarded) so far
     * @param oldestUnreleasedMillis arrival time of the oldest record not yet released, 0 if none
     * @param bytesBehind payload bytes of the records landed after the last one the landing pushed to this
     *     subscriber (released or not), -1 while the landing has not read the subscriber's position yet
     */
    void onHead(String stream, long landed, long released, long oldestUnreleasedMillis, long bytesBehind);

    /** The landing refused the subscription to {@code stream} ({@code reason} says why: a position already deleted, say). */
    void onRefused(String stream, String reason);
}
