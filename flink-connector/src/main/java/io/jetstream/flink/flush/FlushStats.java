package io.jetstream.flink.flush;

/**
 * Counts of the flushes made for one reason: how many carried data, their bytes, and how long their
 * oldest record had waited. Plain fields for one writer thread ({@link #add}); {@link #addShared} for
 * a reason whose flushes come from several threads (Flink's own). Read by metric threads without
 * synchronisation: values may lag, never tear on a 64-bit JVM.
 */
final class FlushStats {
    private long flushes;
    private long bytes;
    private long waitNanos;
    private long maxWaitNanos;

    /** One flush of {@code flushedBytes} whose oldest record waited {@code waitedNanos}. Single writer. */
    void add(long flushedBytes, long waitedNanos) {
        flushes++;
        bytes += flushedBytes;
        waitNanos += waitedNanos;
        if (waitedNanos > maxWaitNanos) {
            maxWaitNanos = waitedNanos;
        }
    }

    /** As {@link #add}, for flushes from several threads. */
    synchronized void addShared(long flushedBytes, long waitedNanos) {
        add(flushedBytes, waitedNanos);
    }

    long flushes() {
        return flushes;
    }

    long bytes() {
        return bytes;
    }

    long waitNanos() {
        return waitNanos;
    }

    long maxWaitNanos() {
        return maxWaitNanos;
    }
}
