package io.jetstream.core.api;

import io.jetstream.core.internal.landing.LandingSubscription;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A reader of landed streams (a Flink source reader's, or its enumerator's connection): it learns
 * which streams a landing holds, subscribes to some of them from a position, and receives their
 * released records through its {@link LandedRecordHandler}; it tells the landing up to where its
 * application has made reading durable ({@link #release}) so that the landing may delete what lies
 * before.
 *
 * <p>Subscriptions survive reconnects and a restart of the landing: the subscriber subscribes again
 * from the position after the last record it received.
 *
 * <p>Threading contract: thread-safe; callbacks run on the transport's I/O threads.
 */
public interface LandingSubscriber extends AutoCloseable {
    /**
     * Connects to the landing at {@code landing} as {@code name} (unique per landing at a time).
     *
     * @param handler receives records; {@code null} for a subscriber that only watches {@link #streams()}
     * @param streamsChanged called with the landing's streams whenever that set changes
     */
    static LandingSubscriber open(Transport transport, StreamRoutes landing, String name, LandedRecordHandler handler,
            Consumer<Set<String>> streamsChanged) throws InterruptedException {
        return LandingSubscription.open(transport, landing, name, handler, streamsChanged);
    }

    /** Pushes {@code stream}'s released records from ordinal {@code from} on (replacing an earlier subscription to it). */
    void subscribe(String stream, long from);

    /** Stops pushing {@code stream}. */
    void unsubscribe(String stream);

    /** The records of {@code stream} before {@code ordinal} will not be read again: the landing may delete them. */
    void release(String stream, long ordinal);

    /** The landed streams the landing holds (as last told). */
    Set<String> streams();

    /** Whether the subscriber is connected to the landing now. */
    boolean isConnected();

    @Override
    void close();
}
