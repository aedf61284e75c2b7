package io.jetstream.core.api;

/**
 * Receives the batches of every stream a receiver accepts, in the stream's configured order, on
 * the receiving I/O thread (several streams may be delivered concurrently on different threads;
 * one stream's batches never are). A batch is acknowledged to its sender when this returns: a slow
 * handler holds the sender's window and pushes back on it.
 */
@FunctionalInterface
public interface DeliveryHandler {
    /**
     * @param records the batch; valid only during this call
     */
    void deliver(StreamKey stream, long sequence, DeliveredBatch records);

    /** The records of one delivered batch. */
    interface DeliveredBatch {
        int count();

        /** Calls {@code consumer} once per record, in the order they were sent. Once per batch. */
        void forEach(RecordConsumer consumer);
    }
}
