package io.jetstream.flink.ring;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.apache.flink.runtime.event.TaskEvent;
import org.apache.flink.runtime.io.network.ConnectionID;
import org.apache.flink.runtime.io.network.ConnectionManager;
import org.apache.flink.runtime.io.network.PartitionRequestClient;
import org.apache.flink.runtime.io.network.api.serialization.EventSerializer;
import org.apache.flink.runtime.io.network.netty.exception.LocalTransportException;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionIndexSet;
import org.apache.flink.runtime.io.network.partition.consumer.RemoteInputChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link PartitionRequestClient} of the input channels whose producer is one TaskManager on this
 * host: every call becomes a message into that TaskManager's ring, sent by the ring service's I/O
 * thread ({@link RingChannelDispatcher}). A channel the producer moves to Netty ({@code REDIRECT}: a blocking or hybrid partition) is
 * requested again through Flink's own Netty client, and its later calls go there.
 *
 * <p>Threading: called by task threads and by Flink's buffer-recycling paths, concurrently; it only
 * enqueues ({@link RingService#creditAvailable} without allocation, the rest as commands).
 */
final class RingPartitionRequestClient implements PartitionRequestClient {
    private static final Logger LOG = LoggerFactory.getLogger(RingPartitionRequestClient.class);

    final RingPeer peer;
    private final RingService service;
    private final RingChannelDispatcher dispatcher;
    private final ConnectionID connectionId;
    private final ConnectionManager netty;
    private final Executor ioExecutor;
    private final Map<RemoteInputChannel, RingChannelHandle> handles = new ConcurrentHashMap<>();

    RingPartitionRequestClient(RingService service, RingPeer peer, ConnectionID connectionId, ConnectionManager netty,
            Executor ioExecutor) {
        this.service = service;
        this.dispatcher = service.dispatcher();
        this.peer = peer;
        this.connectionId = connectionId;
        this.netty = netty;
        this.ioExecutor = ioExecutor;
    }

    boolean isLost() {
        return peer.lost;
    }

    @Override
    public void requestSubpartition(ResultPartitionID partitionId, ResultSubpartitionIndexSet indexSet,
            RemoteInputChannel channel, int delayMs) throws IOException {
        RingChannelHandle handle = handles.computeIfAbsent(channel, c -> new RingChannelHandle(service.newHandle(), c, this));
        service.channelRequested(handle);
        if (handle.netty != null) {
            handle.netty.requestSubpartition(partitionId, indexSet, channel, delayMs);
            return;
        }
        if (peer.lost) {
            throw new LocalTransportException("The same-host ring connection to '" + peer.address + "' was lost: "
                    + peer.lostCause, peer.address);
        }
        handle.partitionId = partitionId;
        handle.indexSet = indexSet;
        int initialCredit = channel.getInitialCredit();
        if (delayMs == 0) {
            service.execute(() -> dispatcher.sendRequest(handle, initialCredit));
        } else {
            service.schedule(delayMs, () -> dispatcher.sendRequest(handle, initialCredit));
        }
    }

    @Override
    public void notifyCreditAvailable(RemoteInputChannel channel) {
        RingChannelHandle handle = handles.get(channel);
        if (handle != null) {
            service.creditAvailable(handle);
        }
    }

    @Override
    public void notifyNewBufferSize(RemoteInputChannel channel, int bufferSize) {
        RingChannelHandle handle = handles.get(channel);
        if (handle == null) {
            return;
        }
        if (handle.netty != null) {
            handle.netty.notifyNewBufferSize(channel, bufferSize);
        } else {
            service.execute(() -> dispatcher.sendForChannel(handle, RingMessageDescriptor.BUFFER_SIZE, bufferSize, 0, null));
        }
    }

    @Override
    public void notifyRequiredSegmentId(RemoteInputChannel channel, int subpartitionId, int segmentId) {
        RingChannelHandle handle = handles.get(channel);
        if (handle == null) {
            return;
        }
        if (handle.netty != null) {
            handle.netty.notifyRequiredSegmentId(channel, subpartitionId, segmentId);
        } else {
            service.execute(() -> dispatcher.sendForChannel(handle, RingMessageDescriptor.SEGMENT, subpartitionId, segmentId, null));
        }
    }

    @Override
    public void resumeConsumption(RemoteInputChannel channel) {
        RingChannelHandle handle = handles.get(channel);
        if (handle == null) {
            return;
        }
        if (handle.netty != null) {
            handle.netty.resumeConsumption(channel);
        } else {
            service.execute(() -> dispatcher.sendForChannel(handle, RingMessageDescriptor.RESUME, 0, 0, null));
        }
    }

    @Override
    public void acknowledgeAllRecordsProcessed(RemoteInputChannel channel) {
        RingChannelHandle handle = handles.get(channel);
        if (handle == null) {
            return;
        }
        if (handle.netty != null) {
            handle.netty.acknowledgeAllRecordsProcessed(channel);
        } else {
            service.execute(() -> dispatcher.sendForChannel(handle, RingMessageDescriptor.ACK_ALL_RECORDS, 0, 0, null));
        }
    }

    @Override
    public void sendTaskEvent(ResultPartitionID partitionId, TaskEvent event, RemoteInputChannel channel) throws IOException {
        RingChannelHandle handle = handles.get(channel);
        if (handle != null && handle.netty != null) {
            handle.netty.sendTaskEvent(partitionId, event, channel);
            return;
        }
        if (handle == null || peer.lost) {
            throw new LocalTransportException("No ring channel for " + channel + " to '" + peer.address + "'", peer.address);
        }
        byte[] id = partitionId.getBytes();
        ByteBuffer serialized = EventSerializer.toSerializedEvent(event);
        byte[] tail = new byte[id.length + serialized.remaining()];
        System.arraycopy(id, 0, tail, 0, id.length);
        serialized.get(tail, id.length, serialized.remaining());
        service.execute(() -> dispatcher.sendForChannel(handle, RingMessageDescriptor.TASK_EVENT, id.length, 0, tail));
    }

    @Override
    public void close(RemoteInputChannel channel) throws IOException {
        RingChannelHandle handle = handles.remove(channel);
        service.channelClosed(channel);
        if (handle == null) {
            return;
        }
        if (handle.netty != null) {
            handle.netty.close(channel);
        } else {
            service.execute(() -> dispatcher.cancel(handle));
        }
    }

    /**
     * The producer moved {@code handle}'s channel to Netty: request it there, on Flink's I/O executor
     * (connecting may block). Called on the ring I/O thread.
     */
    void moveToNetty(RingChannelHandle handle, String reason) {
        LOG.info("Channel {} of partition {} moves from the ring to Netty: {}", handle.channel, handle.partitionId, reason);
        ioExecutor.execute(() -> {
            try {
                PartitionRequestClient client = netty.createPartitionRequestClient(connectionId);
                handle.netty = client;
                if (handles.get(handle.channel) == handle) {
                    client.requestSubpartition(handle.partitionId, handle.indexSet, handle.channel, 0);
                }
            } catch (Throwable t) {
                handle.channel.onError(t);
            }
        });
    }

    @Override
    public String toString() {
        return "RingPartitionRequestClient{" + connectionId + ", " + peer + '}';
    }
}
