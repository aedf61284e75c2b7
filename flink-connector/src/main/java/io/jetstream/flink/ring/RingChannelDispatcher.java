package io.jetstream.flink.ring;

import static io.jetstream.flink.ring.RingMessageDescriptor.*;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.runtime.io.network.buffer.Buffer;
import org.apache.flink.runtime.io.network.buffer.FreeingBufferRecycler;
import org.apache.flink.runtime.io.network.buffer.NetworkBuffer;
import org.apache.flink.runtime.io.network.netty.exception.RemoteTransportException;
import org.apache.flink.runtime.io.network.partition.consumer.RemoteInputChannel;
import org.apache.flink.util.InstantiationUtil;

/**
 * This TaskManager as a consumer over the ring — the client handler of Flink's Netty
 * ({@code CreditBasedPartitionRequestClientHandler}) reimplemented: greets a producer TaskManager,
 * sends its {@link RemoteInputChannel}s' partition requests, credits, resume, acknowledgements, buffer
 * sizes, segment ids, task events and cancellations, and feeds what arrives to the channels: data
 * copied into a buffer from {@code requestBuffer()} (that is the credit; a missing one is a protocol
 * error, as in Netty), events into unpooled buffers as Flink's Netty decoder does, then
 * {@code onBuffer}; empty buffers to {@code onEmptyBuffer}, backlogs to {@code onSenderBacklog}, errors
 * to {@code onError}, partition-not-found to {@code onFailedPartitionRequest}, and a redirect to the
 * channel's client, which moves it to Netty.
 *
 * <p>Threading: confined to the ring I/O thread; task threads reach it only through
 * {@link RingHandOver} (commands, and per buffer the credit queue). It never blocks; a data buffer
 * costs one copy and no allocation of its own.
 */
final class RingChannelDispatcher implements RingMessageDecoder.ConsumerMessages {
    private final RingPeers peers;
    private final RingMessageWriter writer;
    private final RingMetrics metrics;
    private final UnsafeBuffer segmentView = new UnsafeBuffer(0, 0);

    RingChannelDispatcher(RingPeers peers, RingMessageWriter writer, RingMetrics metrics) {
        this.peers = peers;
        this.writer = writer;
        this.metrics = metrics;
    }

    /**
     * The peer for {@code port}, attached to its ring and greeted ({@code HELLO}) when new; its
     * {@link RingPeer#established} completes on the answer.
     *
     * @throws RuntimeException (a {@code RingFileException}) naming the cause if its ring cannot be opened
     */
    RingPeer connect(int port, InetSocketAddress address) {
        RingPeer peer = peers.live(port);
        if (peer != null) {
            return peer;
        }
        peer = peers.attach(port, address);
        writer.sendControl(peer, HELLO, CONNECTION_HANDLE, 0, 0, 0, null);
        return peer;
    }

    /** Registers the channel and sends its partition request. */
    void sendRequest(RingChannelHandle handle, int initialCredit) {
        RingPeer peer = handle.peer;
        if (peer.lost) {
            handle.channel.onError(new RemoteTransportException("Lost the same-host ring connection to the TaskManager at '"
                    + peer.address + "' (" + peer.lostCause + ").", peer.address));
            return;
        }
        peer.channels.put(handle.handle, handle);
        metrics.channels.inc();
        writer.sendControl(peer, REQUEST, handle.handle, initialCredit, handle.indexSet.getStartIndex(),
                handle.indexSet.getEndIndex(), handle.partitionId.getBytes());
    }

    /** Sends a message about a registered channel (resume, acknowledgement, buffer size...). */
    void sendForChannel(RingChannelHandle handle, int type, int f1, int f2, byte[] tail) {
        if (handle.peer.channels.get(handle.handle) == handle) {
            writer.sendControl(handle.peer, type, handle.handle, f1, f2, 0, tail);
        }
    }

    /** Unregisters the channel and cancels its request at the producer. */
    void cancel(RingChannelHandle handle) {
        if (handle.peer.channels.remove(handle.handle) != null) {
            writer.sendControl(handle.peer, CANCEL, handle.handle, 0, 0, 0, null);
        }
    }

    /** Announces the channel's unannounced credit (handed over per recycled buffer; no allocation). */
    void onCreditAvailable(RingChannelHandle handle) {
        handle.creditQueued.set(false);
        if (handle.netty != null) {
            handle.netty.notifyCreditAvailable(handle.channel);
            return;
        }
        if (handle.peer.channels.get(handle.handle) != handle || handle.channel.isReleased()) {
            return;
        }
        int credit = handle.channel.getAndResetUnannouncedCredit();
        if (credit > 0) {
            writer.sendControl(handle.peer, CREDIT, handle.handle, credit, 0, 0, null);
        }
    }

    // ---- messages from producer TaskManagers ----

    @Override
    public void onHelloAck(RingPeer peer) {
        peer.established.complete(null);
    }

    @Override
    public void onBuffer(RingPeer peer, int handle, int sequenceNumber, int backlog, int subpartitionId,
            Buffer.DataType dataType, boolean compressed, DirectBuffer ring, int dataOffset, int size) {
        RingChannelHandle channelHandle = peer.channels.get(handle);
        if (channelHandle == null) {
            return; // cancelled: the producer drops the view on our CANCEL
        }
        RemoteInputChannel channel = channelHandle.channel;
        Buffer buffer = null;
        try {
            if (dataType.isBuffer()) {
                if (size == 0) {
                    channel.onEmptyBuffer(sequenceNumber, backlog);
                    return;
                }
                buffer = channel.requestBuffer();
                if (buffer == null) {
                    if (channel.isReleased()) {
                        cancel(channelHandle);
                        return;
                    }
                    throw new IllegalStateException("No buffer available in credit-based input channel.");
                }
                if (size > buffer.getMaxCapacity()) {
                    throw new IOException("Corrupt ring record from the TaskManager at " + peer.address + ": a buffer of "
                            + size + " bytes for a network buffer of " + buffer.getMaxCapacity());
                }
                buffer.setDataType(dataType);
            } else {
                buffer = new NetworkBuffer(MemorySegmentFactory.allocateUnpooledSegment(size),
                        FreeingBufferRecycler.INSTANCE, dataType, 0);
            }
            RingMessageWriter.wrap(segmentView, buffer.getMemorySegment());
            ring.getBytes(dataOffset, segmentView, buffer.getMemorySegmentOffset(), size);
            buffer.setSize(size);
            buffer.setCompressed(compressed);
            Buffer delivered = buffer;
            buffer = null; // onBuffer owns it now, and recycles it on failure
            channel.onBuffer(delivered, sequenceNumber, backlog, subpartitionId);
            metrics.buffersIn.inc();
            metrics.bytesIn.inc(size);
        } catch (Throwable t) {
            if (buffer != null) {
                buffer.recycleBuffer();
            }
            channel.onError(t);
        }
    }

    @Override
    public void onBacklog(RingPeer peer, int handle, int backlog) {
        RingChannelHandle channel = peer.channels.get(handle);
        if (channel != null) {
            try {
                channel.channel.onSenderBacklog(backlog);
            } catch (Throwable t) {
                channel.channel.onError(t);
            }
        }
    }

    @Override
    public void onNotFound(RingPeer peer, int handle) {
        RingChannelHandle channel = peer.channels.get(handle);
        if (channel != null) {
            channel.channel.onFailedPartitionRequest();
        }
    }

    @Override
    public void onError(RingPeer peer, int handle, byte[] serializedCause) {
        Throwable cause;
        try {
            cause = InstantiationUtil.deserializeObject(serializedCause, getClass().getClassLoader());
        } catch (Throwable t) {
            cause = new IOException("undecodable error from the producer TaskManager: " + t, t);
        }
        RemoteTransportException error = new RemoteTransportException(
                "Error at remote task manager '" + peer.address + "'.", peer.address, cause);
        if (handle == CONNECTION_HANDLE) {
            for (RingChannelHandle channel : new ArrayList<>(peer.channels.values())) {
                channel.channel.onError(error);
            }
            return;
        }
        RingChannelHandle channel = peer.channels.get(handle);
        if (channel != null) {
            channel.channel.onError(error);
        }
    }

    @Override
    public void onRedirect(RingPeer peer, int handle, String reason) {
        RingChannelHandle channel = peer.channels.remove(handle);
        if (channel != null) {
            metrics.redirects.inc();
            channel.client.moveToNetty(channel, reason);
        }
    }
}
