package io.jetstream.flink.ring;

import static io.jetstream.flink.ring.RingMessageDescriptor.*;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.runtime.event.TaskEvent;
import org.apache.flink.runtime.io.network.TaskEventPublisher;
import org.apache.flink.runtime.io.network.api.serialization.EventSerializer;
import org.apache.flink.runtime.io.network.partition.PartitionNotFoundException;
import org.apache.flink.runtime.io.network.partition.ResultPartition;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultPartitionManager;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.io.network.partition.ResultSubpartition.BufferAndBacklog;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionIndexSet;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This TaskManager as a producer over the ring — the credit-based sender of Flink's Netty server
 * ({@code PartitionRequestServerHandler} and {@code PartitionRequestQueue}) reimplemented: answers
 * handshakes, creates subpartition views through the {@link ResultPartitionManager} for the peers'
 * partition requests (a partition not yet registered waits for it, one never registered is answered
 * partition-not-found, a blocking or hybrid one is redirected to Netty), keeps each view's credit in its
 * {@link RingSubpartitionReader}, and writes the buffers of the readers that may send into the peers'
 * rings ({@link #writeAll}, at most 64 buffers per peer per round). A view released with a cause sends
 * it to the channel.
 *
 * <p>Threading: the ring I/O thread, except {@link #registerPartition} (any thread: a concurrent map)
 * and the readers' hand-over from task threads ({@link RingHandOver}). Per buffer it allocates nothing
 * beyond what Flink's view returns; a buffer that finds the peer's ring full is queued.
 */
final class RingPartitionServer implements RingMessageDecoder.ProducerMessages {
    private static final Logger LOG = LoggerFactory.getLogger(RingPartitionServer.class);
    private static final int WRITE_BUDGET = 64;
    private static final int REMEMBERED_PARTITION_TYPES = 10_000;

    private final ResultPartitionManager partitionManager;
    private final TaskEventPublisher taskEventPublisher;
    private final RingPeers peers;
    private final RingMessageWriter writer;
    private final RingHandOver handOver;
    private final RingMetrics metrics;
    private final Map<ResultPartitionID, ResultPartitionType> partitionTypes = new ConcurrentHashMap<>();

    RingPartitionServer(ResultPartitionManager partitionManager, TaskEventPublisher taskEventPublisher, RingPeers peers,
            RingMessageWriter writer, RingHandOver handOver, RingMetrics metrics) {
        this.partitionManager = partitionManager;
        this.taskEventPublisher = taskEventPublisher;
        this.peers = peers;
        this.writer = writer;
        this.handOver = handOver;
        this.metrics = metrics;
    }

    /** Remembers the type of a partition this TaskManager produces (only pipelined ones go over the ring). Any thread. */
    void registerPartition(ResultPartitionID id, ResultPartitionType type) {
        if (partitionTypes.size() > REMEMBERED_PARTITION_TYPES) {
            partitionTypes.keySet().retainAll(partitionManager.getUnreleasedPartitions());
        }
        partitionTypes.put(id, type);
    }

    ResultPartitionManager partitionManager() {
        return partitionManager;
    }

    RingHandOver handOver() {
        return handOver;
    }

    // ---- messages from consumer TaskManagers ----

    @Override
    public void onHello(int fromPort) {
        try {
            RingPeer peer = peers.attach(fromPort, InetSocketAddress.createUnresolved("localhost", fromPort));
            peer.established.complete(null);
            writer.sendControl(peer, HELLO_ACK, CONNECTION_HANDLE, 0, 0, 0, null);
        } catch (RuntimeException e) {
            LOG.warn("Cannot answer the ring handshake of the TaskManager with data port {} (it will use Netty): {}",
                    fromPort, e.toString());
        }
    }

    @Override
    public void onRequest(RingPeer peer, int handle, int initialCredit, int first, int last, byte[] partitionBytes) {
        ResultPartitionID partitionId = new ResultPartitionID(partitionBytes);
        ResultSubpartitionIndexSet indexSet = new ResultSubpartitionIndexSet(first, last);
        RingSubpartitionReader previous = peer.readers.remove(handle);
        if (previous != null) {
            peer.available.remove(previous);
            previous.release();
        }
        ResultPartitionType type = partitionTypes.get(partitionId);
        if (type != null && !type.isPipelinedOrPipelinedBoundedResultPartition()) {
            writer.sendRedirect(peer, handle, type + " partitions stay on Netty");
            return;
        }
        RingSubpartitionReader reader = new RingSubpartitionReader(this, peer, handle, partitionId, indexSet, initialCredit);
        peer.readers.put(handle, reader);
        try {
            Optional<ResultSubpartitionView> view =
                    partitionManager.createSubpartitionViewOrRegisterListener(partitionId, indexSet, reader, reader);
            if (view.isEmpty()) {
                reader.listenerRegistered = true; // notifyPartitionCreated or its timeout follows
            } else if (type == null) {
                reader.view = view.get();
                peer.readers.remove(handle);
                reader.release();
                writer.sendRedirect(peer, handle, "partition " + partitionId + " was not created through this shuffle environment");
            } else {
                reader.view = view.get();
                metrics.servedChannels.inc();
                onReaderAvailable(reader);
            }
        } catch (PartitionNotFoundException e) {
            peer.readers.remove(handle);
            writer.sendControl(peer, NOT_FOUND, handle, 0, 0, 0, null);
        } catch (Throwable t) {
            peer.readers.remove(handle);
            reader.release();
            writer.sendError(peer, handle, t);
        }
    }

    @Override
    public void onCredit(RingPeer peer, int handle, int credit) {
        RingSubpartitionReader reader = peer.readers.get(handle);
        if (reader != null) {
            reader.addCredit(credit);
            onReaderAvailable(reader);
        }
    }

    @Override
    public void onResume(RingPeer peer, int handle) {
        RingSubpartitionReader reader = peer.readers.get(handle);
        if (reader != null && reader.view != null) {
            reader.resumeConsumption();
            onReaderAvailable(reader);
        }
    }

    @Override
    public void onAckAllRecords(RingPeer peer, int handle) {
        RingSubpartitionReader reader = peer.readers.get(handle);
        if (reader != null && reader.view != null) {
            reader.view.acknowledgeAllDataProcessed();
        }
    }

    @Override
    public void onBufferSize(RingPeer peer, int handle, int bufferSize) {
        // As in Netty: a size announced before the view exists is dropped.
        RingSubpartitionReader reader = peer.readers.get(handle);
        if (reader != null && reader.view != null) {
            reader.view.notifyNewBufferSize(bufferSize);
        }
    }

    @Override
    public void onSegment(RingPeer peer, int handle, int subpartitionId, int segmentId) {
        RingSubpartitionReader reader = peer.readers.get(handle);
        if (reader != null && reader.view != null) {
            reader.view.notifyRequiredSegmentId(subpartitionId, segmentId);
        }
    }

    @Override
    public void onCancel(RingPeer peer, int handle) {
        RingSubpartitionReader reader = peer.readers.remove(handle);
        if (reader != null) {
            peer.available.remove(reader);
            reader.release();
        }
    }

    @Override
    public void onTaskEvent(RingPeer peer, int handle, int partitionIdLength, byte[] tail) {
        try {
            ResultPartitionID partitionId = new ResultPartitionID(Arrays.copyOf(tail, partitionIdLength));
            TaskEvent event = (TaskEvent) EventSerializer.fromSerializedEvent(
                    ByteBuffer.wrap(tail, partitionIdLength, tail.length - partitionIdLength), getClass().getClassLoader());
            if (!taskEventPublisher.publish(partitionId, event)) {
                writer.sendError(peer, handle, new IllegalArgumentException("Task event receiver not found."));
            }
        } catch (Throwable t) {
            writer.sendError(peer, handle, t);
        }
    }

    // ---- the partition manager's answers to a request that waited (handed over to the I/O thread) ----

    void onPartitionCreated(RingSubpartitionReader reader, ResultPartition partition) {
        reader.listenerRegistered = false;
        if (reader.released || reader.peer.readers.get(reader.handle) != reader) {
            return;
        }
        RingPeer peer = reader.peer;
        if (!partition.getPartitionType().isPipelinedOrPipelinedBoundedResultPartition()) {
            peer.readers.remove(reader.handle);
            reader.release();
            writer.sendRedirect(peer, reader.handle, partition.getPartitionType() + " partitions stay on Netty");
            return;
        }
        try {
            reader.view = partition.createSubpartitionView(reader.indexSet, reader);
            metrics.servedChannels.inc();
            onReaderAvailable(reader);
        } catch (Throwable t) {
            peer.readers.remove(reader.handle);
            reader.release();
            writer.sendError(peer, reader.handle, t);
        }
    }

    void onPartitionRequestTimeout(RingSubpartitionReader reader) {
        reader.listenerRegistered = false;
        if (reader.released || reader.peer.readers.get(reader.handle) != reader) {
            return;
        }
        reader.peer.readers.remove(reader.handle);
        reader.released = true;
        writer.sendControl(reader.peer, NOT_FOUND, reader.handle, 0, 0, 0, null);
    }

    void logReleaseFailure(RingSubpartitionReader reader, Exception e) {
        LOG.warn("Releasing the view of {} failed", reader, e);
    }

    // ---- the credit-based write path ----

    /** Netty's enqueueAvailableReader: queue a reader that may send now, or announce its backlog. */
    void onReaderAvailable(RingSubpartitionReader reader) {
        reader.notificationQueued.set(false);
        if (reader.released || reader.view == null || reader.registeredAsAvailable || reader.peer.lost) {
            return;
        }
        ResultSubpartitionView.AvailabilityWithBacklog availability = reader.availability();
        if (!availability.isAvailable()) {
            int backlog = availability.getBacklog();
            if (backlog > 0 && reader.needsBacklogAnnouncement()) {
                writer.sendControl(reader.peer, BACKLOG, reader.handle, backlog, 0, 0, null);
            }
            return;
        }
        reader.registeredAsAvailable = true;
        reader.peer.available.add(reader);
    }

    /** Writes, for every peer, what waited for room and then the buffers its readers may send; returns how many. */
    int writeAll() {
        int work = 0;
        for (int i = peers.size() - 1; i >= 0; i--) {
            RingPeer peer = peers.get(i);
            if (!peer.outbound.isEmpty() || !peer.available.isEmpty()) {
                work += writePeer(peer);
            }
        }
        return work;
    }

    private int writePeer(RingPeer peer) {
        int written = 0;
        if (!writer.flushOutbound(peer)) {
            return 0;
        }
        while (written < WRITE_BUDGET && !peer.lost) {
            RingSubpartitionReader reader = peer.available.poll();
            if (reader == null) {
                break;
            }
            reader.registeredAsAvailable = false;
            if (reader.released) {
                continue;
            }
            BufferAndBacklog next;
            int subpartitionId;
            try {
                subpartitionId = reader.peekNextBufferSubpartitionId();
                next = reader.next();
            } catch (Throwable t) {
                peer.readers.remove(reader.handle);
                reader.release();
                writer.sendError(peer, reader.handle, t);
                continue;
            }
            if (next == null) {
                if (reader.view.isReleased()) {
                    Throwable cause = reader.view.getFailureCause();
                    peer.readers.remove(reader.handle);
                    reader.release();
                    if (cause != null) {
                        writer.sendError(peer, reader.handle, cause);
                    }
                }
                continue;
            }
            if (reader.moreAvailable(next)) {
                reader.registeredAsAvailable = true;
                peer.available.add(reader);
            }
            written++;
            if (!writer.writeOrQueueBuffer(peer, reader, next, subpartitionId)) {
                break;
            }
        }
        return written;
    }
}
