package io.jetstream.flink.ring;

import static io.jetstream.flink.ring.RingMessageDescriptor.ringName;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.ring.RingConsumer;
import io.jetstream.core.ring.RingSettings;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultPartitionManager;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionIndexSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hand-over to the I/O thread: a reader notified many times is handed over once until the I/O
 * thread took it; more notifications than the array queue holds all arrive (spilled, not dropped);
 * a hand-over wakes an I/O thread blocked on its ring's wake-up socket.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class RingHandOverTest {
    @TempDir
    Path temp;

    private final RingHandOver handOver = new RingHandOver();

    private List<RingSubpartitionReader> readers(int count) {
        RingSettings settings = RingSettings.defaults(temp);
        RingPeers peers = new RingPeers(settings, new StaleRingReclaimer(temp));
        RingMetrics metrics = new RingMetrics(UnregisteredMetricsGroup.createOperatorMetricGroup());
        RingPartitionServer server = new RingPartitionServer(new ResultPartitionManager(), (id, event) -> false, peers,
                new RingMessageWriter(peers, metrics, settings.maxRecordLength()), handOver, metrics);
        RingPeer peer = new RingPeer(1, InetSocketAddress.createUnresolved("localhost", 1), null);
        List<RingSubpartitionReader> readers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            readers.add(new RingSubpartitionReader(server, peer, i, new ResultPartitionID(), new ResultSubpartitionIndexSet(0), 0));
        }
        return readers;
    }

    @Test
    void aReaderNotifiedRepeatedlyIsHandedOverOnceUntilTaken() {
        RingSubpartitionReader reader = readers(1).get(0);
        for (int i = 0; i < 10; i++) {
            reader.notifyDataAvailable(null);
        }
        List<RingSubpartitionReader> taken = new ArrayList<>();
        assertEquals(1, handOver.drain(r -> {
            r.notificationQueued.set(false);
            taken.add(r);
        }, h -> {}));
        assertEquals(List.of(reader), taken);
        reader.notifyPriorityEvent(0);
        assertEquals(1, handOver.drain(taken::add, h -> {}), "handed over again once taken");
        assertTrue(handOver.isEmpty());
    }

    @Test
    void moreNotificationsThanTheQueueHoldsAllArrive() {
        List<RingSubpartitionReader> readers = readers(5_000);
        readers.forEach(r -> r.notifyDataAvailable(null));
        Runnable command = () -> {};
        handOver.execute(command);
        List<RingSubpartitionReader> taken = new ArrayList<>();
        assertEquals(5_001, handOver.drain(taken::add, h -> {}), "every reader and the command");
        assertEquals(readers.size(), taken.size());
        assertEquals(readers.size(), taken.stream().distinct().count(), "each reader once");
        assertTrue(handOver.isEmpty());
    }

    @Test
    void aHandOverWakesTheIoThreadBlockedOnItsRing() throws Exception {
        RingSettings settings = RingSettings.defaults(temp).withCapacity(64 << 10, 16 << 10, 64 << 10);
        CompletableFuture<Thread> ioThread = new CompletableFuture<>();
        CompletableFuture<RingConsumer> attached = new CompletableFuture<>();
        CompletableFuture<Void> blocked = new CompletableFuture<>();
        Thread io = new Thread(() -> {
            try (RingConsumer ring = RingConsumer.create(settings, ringName(34_001))) {
                handOver.attach(Thread.currentThread(), ring);
                attached.complete(ring);
                // Blocks for at most ten minutes unless woken (the test's timeout ends it sooner).
                handOver.blockUnlessHandedOver((type, buffer, offset, length) -> {}, 16, TimeUnit.MINUTES.toMillis(10));
                blocked.complete(null);
            } catch (Throwable t) {
                attached.completeExceptionally(t);
                blocked.completeExceptionally(t);
            }
        }, "test-ring-io");
        io.setDaemon(true);
        io.start();
        attached.get(30, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!handOver.isBlocking() && !blocked.isDone()) {
            assertTrue(System.nanoTime() - deadline < 0, "the I/O thread never announced its block");
            Thread.yield();
        }
        handOver.execute(() -> {});
        blocked.get(60, TimeUnit.SECONDS);
        io.join(TimeUnit.SECONDS.toMillis(30));
        assertTrue(!io.isAlive(), "the I/O thread woke and ended");
    }
}
