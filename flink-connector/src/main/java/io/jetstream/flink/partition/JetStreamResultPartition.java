package io.jetstream.flink.partition;

import io.jetstream.flink.flush.PartitionFlushControl;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.checkpoint.channel.ChannelStateWriter;
import org.apache.flink.runtime.checkpoint.channel.ResultSubpartitionInfo;
import org.apache.flink.runtime.event.AbstractEvent;
import org.apache.flink.runtime.io.network.api.StopMode;
import org.apache.flink.runtime.io.network.buffer.BufferBuilder;
import org.apache.flink.runtime.io.network.buffer.BufferConsumer;
import org.apache.flink.runtime.io.network.buffer.BufferPool;
import org.apache.flink.runtime.io.network.partition.BufferAvailabilityListener;
import org.apache.flink.runtime.io.network.partition.ChannelStateHolder;
import org.apache.flink.runtime.io.network.partition.CheckpointedResultPartition;
import org.apache.flink.runtime.io.network.partition.ResultPartition;
import org.apache.flink.runtime.io.network.partition.ResultPartitionManager;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.metrics.ResultPartitionBytesCounter;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionIndexSet;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionView;
import org.apache.flink.runtime.metrics.groups.TaskIOMetricGroup;

/**
 * JetStream's result partition: a decorator of the partition Flink's shuffle created.
 *
 * <p>It extends {@link ResultPartition} rather than only implementing the writer interface because
 * Flink's {@code RecordWriter.isSubpartitionDerivable()} tests {@code instanceof ResultPartition}:
 * a writer that is not one makes batch jobs (adaptive batch scheduler, undefined consumer count)
 * send watermarks without their subpartition index. None of the inherited state is used; every
 * method, including the ones {@link ResultPartition} implements itself, goes to the delegate, which
 * is also the object registered with the {@code ResultPartitionManager} and served to consumers.
 *
 * <p>The runtime discovers capabilities with {@code instanceof}: {@link ChannelStateHolder} (the
 * task hands it the unaligned-checkpoint writer) and {@link CheckpointedResultPartition} (recovery
 * of output state). {@link #wrap} returns the subclass that claims exactly the capabilities of the
 * delegate, never more (claiming {@code CheckpointedResultPartition} over a sort-merge partition
 * would fail later with a {@code ClassCastException}).
 *
 * <p>Flush control: over a pipelined delegate, a {@link PartitionFlushControl} decides when each
 * subpartition flushes (see there). Every flush Flink makes itself ({@link #flush}, {@link #flushAll},
 * the flush an event implies) still goes to the delegate first; the control is only told.
 *
 * <p>Thread-safety: as the delegate. {@code emitRecord}/{@code broadcastRecord} are called by the
 * task thread only; the counters are Flink's non-thread-safe {@code SimpleCounter}s shared by the
 * writers of one task.
 */
public class JetStreamResultPartition extends ResultPartition {
    protected final ResultPartition delegate;
    private final Counter recordsOut;
    private final Counter bytesOut;
    /** JetStream's flush decisions for a pipelined delegate; null: Flink's flushing only. */
    private final PartitionFlushControl flushControl;

    JetStreamResultPartition(ResultPartition delegate, Counter recordsOut, Counter bytesOut,
            PartitionFlushControl flushControl) {
        super(
                delegate.getOwningTaskName(),
                delegate.getPartitionIndex(),
                delegate.getPartitionId(),
                delegate.getPartitionType(),
                delegate.getNumberOfSubpartitions(),
                delegate.getNumTargetKeyGroups(),
                delegate.getPartitionManager(),
                null,
                () -> {
                    throw new IllegalStateException("a decorator has no buffer pool of its own");
                });
        this.delegate = delegate;
        this.recordsOut = recordsOut;
        this.bytesOut = bytesOut;
        this.flushControl = flushControl;
    }

    /** Wraps {@code delegate} in the decorator that has exactly its capabilities. */
    public static JetStreamResultPartition wrap(ResultPartition delegate, Counter recordsOut, Counter bytesOut) {
        return wrap(delegate, recordsOut, bytesOut, null);
    }

    /**
     * As {@link #wrap(ResultPartition, Counter, Counter)}, with JetStream's flush decisions
     * ({@code flushControl}, built over the same delegate) or none (null).
     */
    public static JetStreamResultPartition wrap(ResultPartition delegate, Counter recordsOut, Counter bytesOut,
            PartitionFlushControl flushControl) {
        boolean stateHolder = delegate instanceof ChannelStateHolder;
        boolean checkpointed = delegate instanceof CheckpointedResultPartition;
        if (stateHolder && checkpointed) {
            return new Checkpointed(delegate, recordsOut, bytesOut, flushControl);
        }
        if (stateHolder) {
            return new StateHolding(delegate, recordsOut, bytesOut, flushControl);
        }
        if (checkpointed) {
            return new RecoverableOnly(delegate, recordsOut, bytesOut, flushControl);
        }
        return new JetStreamResultPartition(delegate, recordsOut, bytesOut, flushControl);
    }

    /** The decorated partition. */
    public ResultPartition delegate() {
        return delegate;
    }

    // ----- data path -------------------------------------------------------------------------

    @Override
    public void emitRecord(ByteBuffer record, int targetSubpartition) throws IOException {
        int bytes = record.remaining();
        delegate.emitRecord(record, targetSubpartition);
        recordsOut.inc();
        bytesOut.inc(bytes);
        if (flushControl != null) {
            flushControl.onRecord(targetSubpartition, bytes);
        }
    }

    @Override
    public void broadcastRecord(ByteBuffer record) throws IOException {
        int bytes = record.remaining();
        delegate.broadcastRecord(record);
        recordsOut.inc();
        bytesOut.inc(bytes);
        if (flushControl != null) {
            flushControl.onBroadcastRecord(bytes);
        }
    }

    @Override
    public void broadcastEvent(AbstractEvent event, boolean isPriorityEvent) throws IOException {
        delegate.broadcastEvent(event, isPriorityEvent);
        if (flushControl != null) {
            flushControl.onEvent();
        }
    }

    @Override
    public void flushAll() {
        delegate.flushAll();
        if (flushControl != null) {
            flushControl.onFlinkFlushAll();
        }
    }

    @Override
    public void flush(int subpartitionIndex) {
        delegate.flush(subpartitionIndex);
        if (flushControl != null) {
            flushControl.onFlinkFlush(subpartitionIndex);
        }
    }

    @Override
    public CompletableFuture<?> getAvailableFuture() {
        CompletableFuture<?> available = delegate.getAvailableFuture();
        if (flushControl != null && !available.isDone()) {
            flushControl.onUnavailable();
        }
        return available;
    }

    @Override
    public boolean isAvailable() {
        boolean available = delegate.isAvailable();
        if (flushControl != null && !available) {
            flushControl.onUnavailable();
        }
        return available;
    }

    @Override
    public boolean isApproximatelyAvailable() {
        boolean available = delegate.isApproximatelyAvailable();
        if (flushControl != null && !available) {
            flushControl.onUnavailable();
        }
        return available;
    }

    @Override
    public long getBytesInQueueUnsafe(int targetSubpartition) {
        return delegate.getBytesInQueueUnsafe(targetSubpartition);
    }

    @Override
    public int getBuffersCountUnsafe(int targetSubpartition) {
        return delegate.getBuffersCountUnsafe(targetSubpartition);
    }

    @Override
    public int getNumberOfQueuedBuffers() {
        return delegate.getNumberOfQueuedBuffers();
    }

    @Override
    public long getSizeOfQueuedBuffersUnsafe() {
        return delegate.getSizeOfQueuedBuffersUnsafe();
    }

    @Override
    public int getNumberOfQueuedBuffers(int targetSubpartition) {
        return delegate.getNumberOfQueuedBuffers(targetSubpartition);
    }

    // ----- checkpoints and end of data ---------------------------------------------------------

    @Override
    public void alignedBarrierTimeout(long checkpointId) throws IOException {
        delegate.alignedBarrierTimeout(checkpointId);
    }

    @Override
    public void abortCheckpoint(long checkpointId, CheckpointException cause) {
        delegate.abortCheckpoint(checkpointId, cause);
    }

    @Override
    public void notifyEndOfData(StopMode mode) throws IOException {
        delegate.notifyEndOfData(mode);
    }

    @Override
    public CompletableFuture<Void> getAllDataProcessedFuture() {
        return delegate.getAllDataProcessedFuture();
    }

    @Override
    public void onSubpartitionAllDataProcessed(int subpartition) {
        delegate.onSubpartitionAllDataProcessed(subpartition);
    }

    // ----- consumers -----------------------------------------------------------------------------

    @Override
    public ResultSubpartitionView createSubpartitionView(
            ResultSubpartitionIndexSet indexSet, BufferAvailabilityListener availabilityListener)
            throws IOException {
        return delegate.createSubpartitionView(indexSet, availabilityListener);
    }

    @Override
    protected ResultSubpartitionView createSubpartitionView(
            int index, BufferAvailabilityListener availabilityListener) throws IOException {
        return delegate.createSubpartitionView(new ResultSubpartitionIndexSet(index), availabilityListener);
    }

    // ----- attributes --------------------------------------------------------------------------

    @Override
    public String getOwningTaskName() {
        return delegate.getOwningTaskName();
    }

    @Override
    public ResultPartitionID getPartitionId() {
        return delegate.getPartitionId();
    }

    @Override
    public int getPartitionIndex() {
        return delegate.getPartitionIndex();
    }

    @Override
    public int getNumberOfSubpartitions() {
        return delegate.getNumberOfSubpartitions();
    }

    @Override
    public int getNumTargetKeyGroups() {
        return delegate.getNumTargetKeyGroups();
    }

    @Override
    public ResultPartitionType getPartitionType() {
        return delegate.getPartitionType();
    }

    @Override
    public ResultPartitionManager getPartitionManager() {
        return delegate.getPartitionManager();
    }

    @Override
    public BufferPool getBufferPool() {
        return delegate.getBufferPool();
    }

    @Override
    public void setMaxOverdraftBuffersPerGate(int maxOverdraftBuffersPerGate) {
        delegate.setMaxOverdraftBuffersPerGate(maxOverdraftBuffersPerGate);
    }

    @Override
    public void isNumberOfPartitionConsumerUndefined(boolean undefined) {
        delegate.isNumberOfPartitionConsumerUndefined(undefined);
    }

    @Override
    public boolean isNumberOfPartitionConsumerUndefined() {
        return delegate.isNumberOfPartitionConsumerUndefined();
    }

    @Override
    public ResultPartitionBytesCounter getResultPartitionBytes() {
        return delegate.getResultPartitionBytes();
    }

    @Override
    public void setMetricGroup(TaskIOMetricGroup metrics) {
        delegate.setMetricGroup(metrics);
    }

    @Override
    public Throwable getFailureCause() {
        return delegate.getFailureCause();
    }

    // ----- life cycle ------------------------------------------------------------------------

    @Override
    public void setup() throws IOException {
        delegate.setup();
    }

    @Override
    protected void setupInternal() {
        throw new IllegalStateException("setup() is forwarded to the delegate");
    }

    @Override
    public void finish() throws IOException {
        delegate.finish(); // ends every subpartition with an event, which flushes what is pending
        stopFlushControl();
    }

    @Override
    public boolean isFinished() {
        return delegate.isFinished();
    }

    @Override
    public void release(Throwable cause) {
        stopFlushControl();
        delegate.release(cause);
    }

    @Override
    protected void releaseInternal() {
        throw new IllegalStateException("release() is forwarded to the delegate");
    }

    @Override
    public boolean isReleased() {
        return delegate.isReleased();
    }

    @Override
    public void fail(Throwable throwable) {
        stopFlushControl();
        delegate.fail(throwable);
    }

    @Override
    public void close() {
        stopFlushControl();
        delegate.close();
    }

    private void stopFlushControl() {
        if (flushControl != null) {
            flushControl.close();
        }
    }

    /** JetStream's flush decisions for this partition, or null when Flink's flushing alone applies. */
    public PartitionFlushControl flushControl() {
        return flushControl;
    }

    @Override
    public String toString() {
        return "JetStream" + delegate;
    }

    // ----- capability variants -----------------------------------------------------------------

    private static void setChannelStateWriter(ResultPartition delegate, ChannelStateWriter writer) {
        ((ChannelStateHolder) delegate).setChannelStateWriter(writer);
    }

    private static CheckpointedResultPartition checkpointed(ResultPartition delegate) {
        return (CheckpointedResultPartition) delegate;
    }

    /** A delegate that holds channel state but cannot recover output state. */
    static final class StateHolding extends JetStreamResultPartition implements ChannelStateHolder {
        StateHolding(ResultPartition delegate, Counter recordsOut, Counter bytesOut, PartitionFlushControl flushControl) {
            super(delegate, recordsOut, bytesOut, flushControl);
        }

        @Override
        public void setChannelStateWriter(ChannelStateWriter channelStateWriter) {
            JetStreamResultPartition.setChannelStateWriter(delegate, channelStateWriter);
        }
    }

    /** A delegate that recovers output state; {@link Checkpointed} adds the channel state writer. */
    static class RecoverableOnly extends JetStreamResultPartition implements CheckpointedResultPartition {
        RecoverableOnly(ResultPartition delegate, Counter recordsOut, Counter bytesOut, PartitionFlushControl flushControl) {
            super(delegate, recordsOut, bytesOut, flushControl);
        }

        @Override
        public ResultSubpartitionInfo getCheckpointedSubpartitionInfo(int subpartitionIndex) {
            return checkpointed(delegate).getCheckpointedSubpartitionInfo(subpartitionIndex);
        }

        @Override
        public void finishReadRecoveredState(boolean notifyAndBlockOnCompletion) throws IOException {
            checkpointed(delegate).finishReadRecoveredState(notifyAndBlockOnCompletion);
        }

        @Override
        public BufferBuilder requestBufferBuilderBlocking() throws IOException, InterruptedException {
            return checkpointed(delegate).requestBufferBuilderBlocking();
        }

        @Override
        public void addRecovered(int subpartitionIndex, BufferConsumer bufferConsumer) throws IOException {
            checkpointed(delegate).addRecovered(subpartitionIndex, bufferConsumer);
        }
    }

    /** A pipelined delegate: both capabilities, as Flink's {@code PipelinedResultPartition}. */
    static final class Checkpointed extends RecoverableOnly implements ChannelStateHolder {
        Checkpointed(ResultPartition delegate, Counter recordsOut, Counter bytesOut, PartitionFlushControl flushControl) {
            super(delegate, recordsOut, bytesOut, flushControl);
        }

        @Override
        public void setChannelStateWriter(ChannelStateWriter channelStateWriter) {
            JetStreamResultPartition.setChannelStateWriter(delegate, channelStateWriter);
        }
    }
}
