package io.jetstream.flink.gate;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.checkpoint.channel.ChannelStateWriter;
import org.apache.flink.runtime.checkpoint.channel.InputChannelInfo;
import org.apache.flink.runtime.event.TaskEvent;
import org.apache.flink.runtime.io.network.api.CheckpointBarrier;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.io.network.partition.consumer.BufferOrEvent;
import org.apache.flink.runtime.io.network.partition.consumer.IndexedInputGate;
import org.apache.flink.runtime.io.network.partition.consumer.InputChannel;

/**
 * JetStream's input gate: a decorator of the gate Flink's shuffle created that forwards every
 * method, including the ones {@link IndexedInputGate} implements by default (so that the
 * delegate's own overrides of checkpoint handling and availability stay in force), and counts the
 * buffers and bytes the task consumes.
 *
 * <p>Thread-safety: as the delegate. {@code pollNext}/{@code getNext} run on the task thread; the
 * counters are Flink's non-thread-safe {@code SimpleCounter}s, shared by the gates of one task.
 */
public final class JetStreamInputGate extends IndexedInputGate {
    private final IndexedInputGate delegate;
    private final Counter buffersIn;
    private final Counter bytesIn;
    /** Null: no per-path counts. */
    private final ChannelPathCounters paths;
    /** Task thread: the channel object each path below was looked up for, by channel index. */
    private InputChannel[] pathChannels = new InputChannel[0];
    private byte[] pathOfChannel = new byte[0];

    public JetStreamInputGate(IndexedInputGate delegate, Counter buffersIn, Counter bytesIn) {
        this(delegate, buffersIn, bytesIn, null);
    }

    public JetStreamInputGate(IndexedInputGate delegate, Counter buffersIn, Counter bytesIn, ChannelPathCounters paths) {
        this.delegate = delegate;
        this.buffersIn = buffersIn;
        this.bytesIn = bytesIn;
        this.paths = paths;
    }

    /** The decorated gate. */
    public IndexedInputGate delegate() {
        return delegate;
    }

    // ----- data path -------------------------------------------------------------------------

    @Override
    public Optional<BufferOrEvent> getNext() throws IOException, InterruptedException {
        Optional<BufferOrEvent> next = delegate.getNext();
        next.ifPresent(this::count);
        return next;
    }

    @Override
    public Optional<BufferOrEvent> pollNext() throws IOException, InterruptedException {
        Optional<BufferOrEvent> next = delegate.pollNext();
        next.ifPresent(this::count);
        return next;
    }

    private void count(BufferOrEvent bufferOrEvent) {
        if (bufferOrEvent.isBuffer()) {
            buffersIn.inc();
            bytesIn.inc(bufferOrEvent.getSize());
            if (paths != null) {
                countPath(bufferOrEvent.getChannelInfo().getInputChannelIdx(), bufferOrEvent.getSize());
            }
        }
    }

    private void countPath(int channelIndex, int size) {
        if (channelIndex >= pathChannels.length) {
            int length = Math.max(channelIndex + 1, delegate.getNumberOfInputChannels());
            pathChannels = java.util.Arrays.copyOf(pathChannels, length);
            pathOfChannel = java.util.Arrays.copyOf(pathOfChannel, length);
        }
        InputChannel channel = delegate.getChannel(channelIndex);
        if (pathChannels[channelIndex] != channel) {
            pathChannels[channelIndex] = channel;
            pathOfChannel[channelIndex] = paths.pathOf(channel);
        }
        byte path = pathOfChannel[channelIndex];
        if (path == ChannelPathCounters.RING) {
            paths.ringBuffers().inc();
            paths.ringBytes().inc(size);
        } else if (path == ChannelPathCounters.NETTY) {
            paths.nettyBuffers().inc();
            paths.nettyBytes().inc(size);
        }
    }

    // ----- availability ----------------------------------------------------------------------

    @Override
    public CompletableFuture<?> getAvailableFuture() {
        return delegate.getAvailableFuture();
    }

    @Override
    public boolean isAvailable() {
        return delegate.isAvailable();
    }

    @Override
    public boolean isApproximatelyAvailable() {
        return delegate.isApproximatelyAvailable();
    }

    @Override
    public CompletableFuture<?> getPriorityEventAvailableFuture() {
        return delegate.getPriorityEventAvailableFuture();
    }

    // ----- checkpointing ---------------------------------------------------------------------

    @Override
    public void setChannelStateWriter(ChannelStateWriter channelStateWriter) {
        delegate.setChannelStateWriter(channelStateWriter);
    }

    @Override
    public void checkpointStarted(CheckpointBarrier barrier) throws CheckpointException {
        delegate.checkpointStarted(barrier);
    }

    @Override
    public void checkpointStopped(long cancelledCheckpointId) {
        delegate.checkpointStopped(cancelledCheckpointId);
    }

    @Override
    public void blockConsumption(InputChannelInfo channelInfo) {
        delegate.blockConsumption(channelInfo);
    }

    @Override
    public void convertToPriorityEvent(int channelIndex, int sequenceNumber) throws IOException {
        delegate.convertToPriorityEvent(channelIndex, sequenceNumber);
    }

    @Override
    public CompletableFuture<Void> getStateConsumedFuture() {
        return delegate.getStateConsumedFuture();
    }

    @Override
    public CompletableFuture<Void> getBufferFilteringCompleteFuture() {
        return delegate.getBufferFilteringCompleteFuture();
    }

    @Override
    public void finishReadRecoveredState() throws IOException {
        delegate.finishReadRecoveredState();
    }

    @Override
    public void setCheckpointingDuringRecoveryEnabled(boolean enabled) {
        delegate.setCheckpointingDuringRecoveryEnabled(enabled);
    }

    @Override
    public boolean isCheckpointingDuringRecoveryEnabled() {
        return delegate.isCheckpointingDuringRecoveryEnabled();
    }

    // ----- channels and control ----------------------------------------------------------------

    @Override
    public int getGateIndex() {
        return delegate.getGateIndex();
    }

    @Override
    public int getInputGateIndex() {
        return delegate.getInputGateIndex();
    }

    @Override
    public List<InputChannelInfo> getUnfinishedChannels() {
        return delegate.getUnfinishedChannels();
    }

    @Override
    public List<InputChannelInfo> getChannelInfos() {
        return delegate.getChannelInfos();
    }

    @Override
    public ResultPartitionType getConsumedPartitionType() {
        return delegate.getConsumedPartitionType();
    }

    @Override
    public void triggerDebloating() {
        delegate.triggerDebloating();
    }

    @Override
    public int getNumberOfInputChannels() {
        return delegate.getNumberOfInputChannels();
    }

    @Override
    public InputChannel getChannel(int channelIndex) {
        return delegate.getChannel(channelIndex);
    }

    @Override
    public boolean isFinished() {
        return delegate.isFinished();
    }

    @Override
    public EndOfDataStatus hasReceivedEndOfData() {
        return delegate.hasReceivedEndOfData();
    }

    @Override
    public void sendTaskEvent(TaskEvent event) throws IOException {
        delegate.sendTaskEvent(event);
    }

    @Override
    public void resumeGateConsumption() throws IOException {
        delegate.resumeGateConsumption();
    }

    @Override
    public void resumeConsumption(InputChannelInfo channelInfo) throws IOException {
        delegate.resumeConsumption(channelInfo);
    }

    @Override
    public void acknowledgeAllRecordsProcessed(InputChannelInfo channelInfo) throws IOException {
        delegate.acknowledgeAllRecordsProcessed(channelInfo);
    }

    // ----- life cycle ------------------------------------------------------------------------

    @Override
    public void setup() throws IOException {
        delegate.setup();
    }

    @Override
    public void requestPartitions() throws IOException {
        delegate.requestPartitions();
    }

    @Override
    public void close() throws Exception {
        delegate.close();
    }

    @Override
    public String toString() {
        return "JetStreamInputGate[" + delegate + ']';
    }
}
