package io.jetstream.flink.ring;

import io.jetstream.core.ring.RingClosedException;

/**
 * Declares peers dead: at most once per {@code ring.liveness-check-interval-ms}, asks each peer's ring
 * whether its consumer closed or failed it, or whether its process is gone (core's
 * {@link io.jetstream.core.ring.RingProducer#checkConsumer}: pid and process start time), and loses
 * the peers for which it is so ({@link RingPeers#lose}, naming the cause). Time is passed in (the I/O
 * loop's clock, nanoseconds), so the check's schedule is tested in virtual time.
 *
 * <p>Threading: confined to the ring I/O thread. A check costs a syscall per peer, hence the throttle;
 * the loop calls {@link #checkIfDue} when idle and every 64 busy rounds, never per record.
 */
final class RingPeerLiveness {
    private final RingPeers peers;
    private final long intervalNanos;
    private long nextCheck;

    RingPeerLiveness(RingPeers peers, long intervalNanos) {
        this.peers = peers;
        this.intervalNanos = intervalNanos;
    }

    /** Checks every peer if the interval since the last check has passed at {@code nowNanos}. */
    void checkIfDue(long nowNanos) {
        if (nowNanos - nextCheck >= 0) {
            checkAll();
            nextCheck = nowNanos + intervalNanos;
        }
    }

    /** When the next check is due (the I/O thread blocks no longer than that). */
    long nextCheck() {
        return nextCheck;
    }

    private void checkAll() {
        for (int i = peers.size() - 1; i >= 0; i--) {
            RingPeer peer = peers.get(i);
            try {
                peer.out.checkConsumer();
            } catch (RingClosedException e) {
                peers.lose(peer, e.getMessage());
            }
        }
    }
}
