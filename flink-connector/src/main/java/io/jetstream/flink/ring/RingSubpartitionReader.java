package io.jetstream.flink.ring;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.runtime.io.network.NetworkSequenceViewReader;
import org.apache.flink.runtime.io.network.buffer.Buffer;
import org.apache.flink.runtime.io.network.partition.BufferAvailabilityListener;
import org.apache.flink.runtime.io.network.partition.PartitionRequestListener;
import org.apache.flink.runtime.io.network.partition.ResultPartition;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultSubpartition.BufferAndBacklog;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionIndexSet;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionView;
import org.apache.flink.runtime.io.network.partition.consumer.InputChannelID;

/**
 * The producer side of one remote input channel served over the ring: a subpartition view plus the
 * consumer's credit, with the rules of Flink's credit-based Netty reader (reimplemented, not reused):
 *
 * <ul>
 *   <li>only data buffers consume credit; without credit the view is available only if its next item
 *       is an event (so events, and priority events the view puts first, are never held back by credit);
 *   <li>after an aligned barrier the view itself returns nothing until {@link #resumeConsumption()},
 *       which also zeroes the credit when the initial credit was 0 (the consumer's floating buffers are
 *       gone then);
 *   <li>with initial credit 0 and no credit, a non-empty backlog is announced ({@link #needsBacklogAnnouncement()}).
 * </ul>
 *
 * <p>Threading: everything but the listener callbacks runs on the ring I/O thread ({@link RingPartitionServer}).
 * {@link #notifyDataAvailable} / {@link #notifyPriorityEvent} arrive on the producing task's thread
 * (or a flusher thread) and only hand the reader to the I/O thread (a flag de-duplicates, no
 * allocation). {@link #notifyPartitionCreated} / {@link #notifyPartitionCreatedTimeout} arrive on a
 * Flink thread and are handed over the same way.
 */
final class RingSubpartitionReader implements BufferAvailabilityListener, PartitionRequestListener {
    final RingPeer peer;
    final int handle;
    final ResultPartitionID partitionId;
    final ResultSubpartitionIndexSet indexSet;
    private final int initialCredit;
    /** The one subpartition this reader serves, or -1 when it serves several (the view then says). */
    private final int singleSubpartition;
    private final RingPartitionServer server;
    private final RingHandOver handOver;
    private final InputChannelID listenerId = new InputChannelID();
    private final long createdAt = System.currentTimeMillis();

    /** Set when the reader is in the I/O thread's notification queue ({@link RingHandOver}; any thread). */
    final AtomicBoolean notificationQueued = new AtomicBoolean();

    // I/O thread state
    ResultSubpartitionView view;
    boolean listenerRegistered;
    boolean registeredAsAvailable;
    boolean released;
    private int credit;

    RingSubpartitionReader(RingPartitionServer server, RingPeer peer, int handle, ResultPartitionID partitionId,
            ResultSubpartitionIndexSet indexSet, int initialCredit) {
        if (initialCredit < 0) {
            throw new IllegalArgumentException("initial credit must not be negative: " + initialCredit);
        }
        this.server = server;
        this.handOver = server.handOver();
        this.peer = peer;
        this.handle = handle;
        this.partitionId = partitionId;
        this.indexSet = indexSet;
        this.initialCredit = initialCredit;
        this.credit = initialCredit;
        this.singleSubpartition = indexSet.getStartIndex() == indexSet.getEndIndex() ? indexSet.getStartIndex() : -1;
    }

    /** The subpartition of the next buffer (single-subpartition views do not know it themselves). */
    int peekNextBufferSubpartitionId() throws IOException {
        return singleSubpartition >= 0 ? singleSubpartition : view.peekNextBufferSubpartitionId();
    }

    void addCredit(int delta) {
        credit += delta;
    }

    void resumeConsumption() {
        if (initialCredit == 0) {
            credit = 0;
        }
        view.resumeConsumption();
    }

    int credit() {
        return credit;
    }

    boolean needsBacklogAnnouncement() {
        return initialCredit == 0 && credit == 0;
    }

    ResultSubpartitionView.AvailabilityWithBacklog availability() {
        return view.getAvailabilityAndBacklog(credit > 0);
    }

    /**
     * The next buffer of the view, its credit taken; null when the view has nothing (or is released).
     *
     * @throws IllegalStateException if a data buffer came without credit (a bug in the credit rules)
     */
    BufferAndBacklog next() throws IOException {
        BufferAndBacklog next = view.getNextBuffer();
        if (next != null && next.buffer().isBuffer() && --credit < 0) {
            next.buffer().recycleBuffer();
            throw new IllegalStateException("data buffer without credit for channel " + handle + " of " + partitionId);
        }
        return next;
    }

    /** Whether, after {@code next}, the view has something it may send now (an event, or data with credit). */
    boolean moreAvailable(BufferAndBacklog next) {
        Buffer.DataType nextType = next.getNextDataType();
        return nextType != Buffer.DataType.NONE && (credit > 0 || nextType.isEvent());
    }

    /** Releases the view or the pending listener. I/O thread; idempotent. */
    void release() {
        if (released) {
            return;
        }
        released = true;
        if (listenerRegistered) {
            server.partitionManager().releasePartitionRequestListener(this);
        }
        if (view != null) {
            try {
                view.releaseAllResources();
            } catch (IOException | RuntimeException e) {
                server.logReleaseFailure(this, e);
            }
        }
    }

    // ---- callbacks from Flink threads: hand over only ----

    @Override
    public void notifyDataAvailable(ResultSubpartitionView view) {
        handOver.readerAvailable(this);
    }

    @Override
    public void notifyPriorityEvent(int prioritySequenceNumber) {
        handOver.readerAvailable(this);
    }

    @Override
    public void notifyPartitionCreated(ResultPartition partition) {
        handOver.execute(() -> server.onPartitionCreated(this, partition));
    }

    @Override
    public void notifyPartitionCreatedTimeout() {
        handOver.execute(() -> server.onPartitionRequestTimeout(this));
    }

    @Override
    public void releaseListener() {
        // The ResultPartitionManager drops us itself; the view (if any) is released by release().
    }

    @Override
    public long getCreateTimestamp() {
        return createdAt;
    }

    @Override
    public ResultPartitionID getResultPartitionId() {
        return partitionId;
    }

    /** Only Flink's Netty queue reads this; the ring has no {@link NetworkSequenceViewReader}. */
    @Override
    public NetworkSequenceViewReader getViewReader() {
        return null;
    }

    @Override
    public InputChannelID getReceiverId() {
        return listenerId;
    }

    @Override
    public String toString() {
        return "RingSubpartitionReader{peer=" + peer.port + ", handle=" + handle + ", partition=" + partitionId
                + ", subpartitions=" + indexSet + ", credit=" + credit + '}';
    }
}
