package io.jetstream.core.api;

import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.LongArrayQueue;

/**
 * The receiving side of a {@link MulticastStream}: a {@link DeliveryHandler} that reads each record's
 * header (the stream's epoch and the record's position), passes the payload of every record it has not
 * delivered yet to {@code consumer}, and drops the rest. A destination can be reached by two paths in
 * turn (a replicating node, then the sender itself after the node was lost); each record still reaches
 * the consumer once, in order. Bind it for the receiver's multicast streams only: a record without a
 * header closes its connection ({@link IllegalArgumentException}).
 *
 * <p>Thread-safe: streams delivered on several I/O threads are serialised per batch. Remembers the last
 * {@value #EPOCHS_KEPT} epochs (incarnations of sending streams).
 */
public final class MulticastReceiver implements DeliveryHandler {
    /** Epochs whose positions it keeps. */
    public static final int EPOCHS_KEPT = 1_024;

    private final RecordConsumer consumer;
    private final Long2LongHashMap lastPositions = new Long2LongHashMap(0);
    private final LongArrayQueue epochOrder = new LongArrayQueue(EPOCHS_KEPT, -1);
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong gaps = new AtomicLong();
    private final RecordConsumer filter = this::filter;
    private long localDelivered;
    private long localDuplicates;
    private long localGaps;

    public MulticastReceiver(RecordConsumer consumer) {
        this.consumer = consumer;
    }

    @Override
    public synchronized void deliver(StreamKey stream, long sequence, DeliveredBatch records) {
        localDelivered = 0;
        localDuplicates = 0;
        localGaps = 0;
        records.forEach(filter);
        gaps.addAndGet(localGaps);
        delivered.addAndGet(localDelivered);
        duplicates.addAndGet(localDuplicates);
    }

    private void filter(int target, DirectBuffer buffer, int offset, int length) {
        if (length < MulticastStream.HEADER_BYTES) {
            throw new IllegalArgumentException("a record of " + length + " B has no multicast header ("
                    + MulticastStream.HEADER_BYTES + " B): is a plain stream bound to a multicast receiver?");
        }
        long epoch = buffer.getLong(offset, ByteOrder.LITTLE_ENDIAN);
        long position = buffer.getLong(offset + Long.BYTES, ByteOrder.LITTLE_ENDIAN);
        long last = lastPositions.get(epoch);
        if (position <= last) {
            localDuplicates++;
            return;
        }
        if (last == 0 && !lastPositions.containsKey(epoch)) {
            if (epochOrder.size() == EPOCHS_KEPT) {
                lastPositions.remove(epochOrder.pollLong());
            }
            epochOrder.addLong(epoch);
        }
        if (last != 0 && position != last + 1) {
            localGaps += position - last - 1;
        }
        lastPositions.put(epoch, position);
        localDelivered++;
        consumer.accept(target, buffer, offset + MulticastStream.HEADER_BYTES, length - MulticastStream.HEADER_BYTES);
    }

    /** Records passed to the consumer. */
    public long delivered() {
        return delivered.get();
    }

    /** Records dropped as already delivered. */
    public long duplicatesDropped() {
        return duplicates.get();
    }

    /**
     * Records missing between two delivered ones of an incarnation (a destination dropped by its sender's
     * slow-destination policy and joined again, or a best-effort stream that lost records).
     */
    public long recordsMissing() {
        return gaps.get();
    }

    /** The last position delivered of the stream incarnation {@code epoch} (0: none). */
    public synchronized long lastPosition(long epoch) {
        return lastPositions.get(epoch);
    }
}
