package io.jetstream.storm.transport.contract;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.LongFunction;
import org.apache.storm.messaging.TaskMessage;

/**
 * What a worker hands to {@code send()}: an iterator over one bundle of messages, here one that
 * knows how far it was consumed. {@code send()} must consume it completely, whatever the state of
 * the connection.
 *
 * <p>Consumed by one thread (the sender's); {@link #consumed()} may be read by any.
 */
final class TrackedIterator implements Iterator<TaskMessage> {
    private final int size;
    private final LongFunction<TaskMessage> message;
    private final long firstSequence;
    private volatile int next;

    /** {@code size} messages made by {@code message} from sequence numbers {@code firstSequence}, … */
    TrackedIterator(int size, long firstSequence, LongFunction<TaskMessage> message) {
        this.size = size;
        this.firstSequence = firstSequence;
        this.message = message;
    }

    @Override
    public boolean hasNext() {
        return next < size;
    }

    @Override
    public TaskMessage next() {
        if (next >= size) {
            throw new NoSuchElementException();
        }
        TaskMessage m = message.apply(firstSequence + next);
        next++;
        return m;
    }

    int consumed() {
        return next;
    }

    int size() {
        return size;
    }

    boolean fullyConsumed() {
        return next == size;
    }
}
