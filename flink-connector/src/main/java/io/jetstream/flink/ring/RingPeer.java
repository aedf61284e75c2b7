package io.jetstream.flink.ring;

import io.jetstream.core.ring.RingProducer;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import org.agrona.collections.Int2ObjectHashMap;
import org.apache.flink.runtime.io.network.partition.ResultSubpartition.BufferAndBacklog;

/**
 * Another TaskManager on this host, as this TaskManager's ring service sees it: the producer attached
 * to its ring (everything we send it), the channels we consume from it and the subpartition readers
 * we serve to it, and what waits for room in its ring.
 *
 * <p>Threading: confined to the ring service's I/O thread, except {@link #established} (completed
 * there, awaited by a connecting task thread) and {@link #lost} (read by any thread).
 */
final class RingPeer {
    final int port;
    final InetSocketAddress address;
    final RingProducer out;
    final CompletableFuture<Void> established = new CompletableFuture<>();
    volatile boolean lost;
    volatile String lostCause;

    /** Consumer side: our input channels fed by this peer, by handle. */
    final Int2ObjectHashMap<RingChannelHandle> channels = new Int2ObjectHashMap<>();
    /** Producer side: readers serving this peer's channels, by the peer's handle. */
    final Int2ObjectHashMap<RingSubpartitionReader> readers = new Int2ObjectHashMap<>();
    /** Producer side: readers with something they may send now (Netty's available-reader queue). */
    final ArrayDeque<RingSubpartitionReader> available = new ArrayDeque<>();
    /** Messages that found the peer's ring full, in order ({@link PendingControl} or {@link PendingBuffer}). */
    final ArrayDeque<Object> outbound = new ArrayDeque<>();

    RingPeer(int port, InetSocketAddress address, RingProducer out) {
        this.port = port;
        this.address = address;
        this.out = out;
    }

    /** A control message that found the ring full. */
    record PendingControl(int type, int handle, int field1, int field2, int field3, byte[] tail) {}

    /** A buffer taken from a view (credit spent) that found the ring full; it is sent before anything else. */
    record PendingBuffer(RingSubpartitionReader reader, BufferAndBacklog next, int subpartitionId) {}

    @Override
    public String toString() {
        return "RingPeer{port=" + port + ", address=" + address + (lost ? ", lost: " + lostCause : "") + '}';
    }
}
