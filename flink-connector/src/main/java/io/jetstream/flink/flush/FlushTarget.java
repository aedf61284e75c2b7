package io.jetstream.flink.flush;

import org.apache.flink.runtime.io.network.partition.ResultPartition;

/**
 * What flush control needs of a partition: flush one subpartition, and how many of its bytes are
 * written and not yet taken by the consumer. In production a Flink {@link ResultPartition}
 * ({@link #of}); in unit tests a queue in virtual time.
 *
 * <p>Thread-safety: both methods are called by the flusher thread and {@link #flush} also by the task
 * thread; Flink's pipelined partitions allow this (the subpartition's queue lock; an unlocked read).
 */
public interface FlushTarget {
    int numberOfSubpartitions();

    /** Makes what subpartition {@code i} holds available to its consumer. */
    void flush(int i);

    /** Bytes written to subpartition {@code i} and not yet taken by its consumer, flushed or not. */
    long bytesInQueue(int i);

    static FlushTarget of(ResultPartition partition) {
        return new FlushTarget() {
            @Override
            public int numberOfSubpartitions() {
                return partition.getNumberOfSubpartitions();
            }

            @Override
            public void flush(int i) {
                partition.flush(i);
            }

            @Override
            public long bytesInQueue(int i) {
                return partition.getBytesInQueueUnsafe(i);
            }

            @Override
            public String toString() {
                return partition.toString();
            }
        };
    }
}
