package io.jetstream.flink.ring;

import static io.jetstream.flink.ring.RingMessageDescriptor.ringName;

import io.jetstream.core.ring.RingProducer;
import io.jetstream.core.ring.RingSettings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.agrona.collections.Int2ObjectHashMap;
import org.apache.flink.runtime.io.network.netty.exception.RemoteTransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TaskManagers on this host this one talks to over the ring, by data port: attaching to a peer's
 * ring, and losing a peer — its channels fail as on a lost TCP connection, the views it read are
 * released, what waited for room in its ring is recycled, and stale ring files are reclaimed.
 *
 * <p>Threading: confined to the ring I/O thread. {@link #attach} opens the peer's ring file (file
 * system calls and a mapping); nothing here blocks otherwise.
 */
final class RingPeers {
    private static final Logger LOG = LoggerFactory.getLogger(RingPeers.class);

    private final RingSettings settings;
    private final StaleRingReclaimer reclaimer;
    private final Int2ObjectHashMap<RingPeer> byPort = new Int2ObjectHashMap<>();
    /** The same peers, for iteration without an iterator (the I/O loop walks them every round). */
    private final List<RingPeer> list = new ArrayList<>();

    RingPeers(RingSettings settings, StaleRingReclaimer reclaimer) {
        this.settings = settings;
        this.reclaimer = reclaimer;
    }

    /** The peer whose data port is {@code port}, or null if there is none or it was lost. */
    RingPeer live(int port) {
        RingPeer peer = byPort.get(port);
        return peer == null || peer.lost ? null : peer;
    }

    /**
     * The live peer for {@code port}, attached to its ring ({@code flink-tm-<port>}) when new.
     *
     * @throws RuntimeException (a {@code RingFileException}) naming the cause if its ring cannot be opened
     */
    RingPeer attach(int port, InetSocketAddress address) {
        RingPeer peer = live(port);
        if (peer != null) {
            return peer;
        }
        RingProducer out = RingProducer.attach(settings, ringName(port));
        peer = new RingPeer(port, address, out);
        byPort.put(port, peer);
        list.add(peer);
        return peer;
    }

    int size() {
        return list.size();
    }

    RingPeer get(int index) {
        return list.get(index);
    }

    /** Whether a message or a reader waits to be written to any peer. */
    boolean hasPendingOutbound() {
        for (int i = 0; i < list.size(); i++) {
            RingPeer peer = list.get(i);
            if (!peer.outbound.isEmpty() || !peer.available.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** Fails everything that used {@code peer}, as Netty does when a connection is lost. Idempotent. */
    void lose(RingPeer peer, String cause) {
        if (peer.lost) {
            return;
        }
        peer.lostCause = cause;
        peer.lost = true;
        LOG.warn("Lost the ring connection to the TaskManager at {} (port {}): {}", peer.address, peer.port, cause);
        peer.established.completeExceptionally(new IOException(cause));
        for (RingChannelHandle handle : new ArrayList<>(peer.channels.values())) {
            handle.channel.onError(new RemoteTransportException(
                    "Lost the same-host ring connection to the TaskManager at '" + peer.address + "' (" + cause
                            + "). This might indicate that the remote task manager was lost.", peer.address));
        }
        peer.channels.clear();
        release(peer);
        // A peer whose process died left its ring file behind: remove it (and any other dead consumer's).
        reclaimer.reclaim();
    }

    /** Loses every peer with {@code cause} (this TaskManager's ring service failed). */
    void loseAll(String cause) {
        for (RingPeer peer : new ArrayList<>(list)) {
            lose(peer, cause);
        }
    }

    /** Releases every peer (the ring service closes): views released, their rings detached. */
    void releaseAll() {
        for (RingPeer peer : new ArrayList<>(list)) {
            release(peer);
        }
    }

    /** Releases the views served to {@code peer}, recycles what waited for its ring, detaches from it. */
    private void release(RingPeer peer) {
        peer.lost = true;
        if (peer.lostCause == null) {
            peer.lostCause = "this TaskManager's ring service closed";
        }
        peer.established.completeExceptionally(new IOException(peer.lostCause));
        for (RingSubpartitionReader reader : new ArrayList<>(peer.readers.values())) {
            reader.release();
        }
        peer.readers.clear();
        peer.available.clear();
        for (Object pending : peer.outbound) {
            if (pending instanceof RingPeer.PendingBuffer buffer) {
                buffer.next().buffer().recycleBuffer();
            }
        }
        peer.outbound.clear();
        if (byPort.get(peer.port) == peer) {
            byPort.remove(peer.port);
        }
        list.remove(peer);
        peer.out.close();
    }
}
