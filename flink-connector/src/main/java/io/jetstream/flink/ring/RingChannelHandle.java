package io.jetstream.flink.ring;

import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.runtime.io.network.PartitionRequestClient;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionIndexSet;
import org.apache.flink.runtime.io.network.partition.consumer.RemoteInputChannel;

/**
 * The consumer side of one {@link RemoteInputChannel} whose producer is a TaskManager on this host:
 * the handle that names it in ring messages, the request it made, and — when the producer told it to
 * ({@code REDIRECT}) — the Netty client it was moved to.
 *
 * <p>Threading: created by the thread that requests the subpartition; {@link #creditQueued} and
 * {@link #netty} are read and written by any thread; the rest is written once before the handle is
 * published through the ring service's queue.
 */
final class RingChannelHandle {
    final int handle;
    final RemoteInputChannel channel;
    final RingPeer peer;
    final RingPartitionRequestClient client;
    volatile ResultPartitionID partitionId;
    volatile ResultSubpartitionIndexSet indexSet;

    /** Set while the handle waits in the service's credit queue. */
    final AtomicBoolean creditQueued = new AtomicBoolean();

    /** Non-null once the channel moved to Netty: every later call goes there. */
    volatile PartitionRequestClient netty;

    RingChannelHandle(int handle, RemoteInputChannel channel, RingPartitionRequestClient client) {
        this.handle = handle;
        this.channel = channel;
        this.client = client;
        this.peer = client.peer;
    }

    @Override
    public String toString() {
        return "RingChannelHandle{" + handle + ", " + channel + '}';
    }
}
