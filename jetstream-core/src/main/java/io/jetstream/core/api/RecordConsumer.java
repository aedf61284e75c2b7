package io.jetstream.core.api;

import org.agrona.DirectBuffer;

/** Receives the records of a delivered batch, one call per record, on the receiving I/O thread. */
@FunctionalInterface
public interface RecordConsumer {
    /**
     * @param target the record's target id (a task id in Storm)
     * @param buffer valid only during this call; copy what must outlive it
     */
    void accept(int target, DirectBuffer buffer, int offset, int length);
}
