package io.jetstream.flink.ring;

import static io.jetstream.flink.ring.RingMessageDescriptor.ringName;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.ring.RingConsumer;
import io.jetstream.core.ring.RingSettings;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The liveness check in virtual time: a peer whose ring went bad is declared dead at the first check
 * due after that — not before the interval since the last check has passed — with the ring's own
 * cause; a live peer never is. Peers are attached to real rings in a temporary directory.
 */
class RingPeerLivenessTest {
    private static final long INTERVAL = 1_000;

    @TempDir
    Path temp;

    private RingSettings settings;
    private RingPeers peers;
    private RingPeerLiveness liveness;
    private RingConsumer deadRing;
    private RingConsumer liveRing;
    private RingPeer doomed;
    private RingPeer healthy;

    @BeforeEach
    void attachPeers() {
        settings = RingSettings.defaults(temp).withCapacity(64 << 10, 16 << 10, 64 << 10);
        peers = new RingPeers(settings, new StaleRingReclaimer(temp));
        liveness = new RingPeerLiveness(peers, INTERVAL);
        deadRing = RingConsumer.create(settings, ringName(1));
        liveRing = RingConsumer.create(settings, ringName(2));
        doomed = peers.attach(1, InetSocketAddress.createUnresolved("localhost", 1));
        healthy = peers.attach(2, InetSocketAddress.createUnresolved("localhost", 2));
    }

    @AfterEach
    void close() {
        peers.releaseAll();
        deadRing.close();
        liveRing.close();
    }

    @Test
    void aPeerWhoseRingFailedIsDeclaredDeadAtTheNextDueCheckNotBefore() {
        liveness.checkIfDue(0);
        assertFalse(doomed.lost || healthy.lost, "both alive at the first check");
        assertEquals(INTERVAL, liveness.nextCheck());

        deadRing.fail("disk on fire");
        liveness.checkIfDue(INTERVAL - 1);
        assertFalse(doomed.lost, "not checked before the interval passed");

        liveness.checkIfDue(INTERVAL);
        assertTrue(doomed.lost, "declared dead once the check is due");
        assertTrue(doomed.lostCause.contains("its consumer failed: disk on fire"), doomed.lostCause);
        assertFalse(healthy.lost, "a live peer stays");
        assertEquals(2 * INTERVAL, liveness.nextCheck());
        assertEquals(1, peers.size(), "the dead peer is detached");
    }

    @Test
    void aPeerWhoseConsumerClosedItsRingIsDeclaredDeadWithThatCause() {
        liveness.checkIfDue(0);
        deadRing.close();
        liveness.checkIfDue(INTERVAL + 5);
        assertTrue(doomed.lost && doomed.lostCause.contains("closed by its consumer"), String.valueOf(doomed.lostCause));
        assertFalse(healthy.lost);
    }

    @Test
    void theScheduleFollowsTheClockAcrossItsWrapAround() {
        long start = Long.MAX_VALUE - INTERVAL / 2;
        liveness.checkIfDue(start);
        deadRing.fail("gone");
        liveness.checkIfDue(start + INTERVAL - 1); // wraps to a negative value
        assertFalse(doomed.lost, "not yet due across the wrap");
        liveness.checkIfDue(start + INTERVAL);
        assertTrue(doomed.lost, "due across the wrap");
    }
}
