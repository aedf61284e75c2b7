package io.jetstream.core.internal.transport.netty;

import static io.jetstream.core.internal.transport.netty.TransportTestSupport.await;
import static io.jetstream.core.internal.transport.netty.TransportTestSupport.record;
import static io.jetstream.core.internal.transport.netty.TransportTestSupport.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.TransportOptions.Ordering;
import io.jetstream.core.internal.transport.netty.TransportTestSupport.Collector;
import io.jetstream.core.model.FlushPolicy;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What every JetStream transport path must do, whatever carries the bytes: order, exactly-once in
 * acknowledged mode (also across a receiver restart), large records, many targets, back-pressure,
 * deadline flushing, multiple routes, bounded close. Subclasses choose the path ({@link #path()}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class TransportContractTest {
    private final List<AutoCloseable> open = new ArrayList<>();

    /** Options that select the path under test (TLS stores, ...). */
    abstract Map<String, Object> path();

    /** Checks that {@code sender}'s batches took the path under test. */
    abstract void assertPath(StreamSender sender);

    NettyTransport transport(String peer, Map<String, ?> options) {
        return transport(peer, options, System::nanoTime);
    }

    /** A transport whose batching, acknowledgement and latency timers read {@code clock}. */
    NettyTransport transport(String peer, Map<String, ?> options, java.util.function.LongSupplier clock) {
        Map<String, Object> all = new HashMap<>(path());
        all.putAll(options);
        NettyTransport t = new NettyTransport(settings(all), peer, io.jetstream.core.internal.transport.handshake.HostIdentity.THIS_HOST, clock);
        open.add(t);
        return t;
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    /** A collector whose deliveries wait for {@code stall} (at most 30 s). */
    static Collector stalledUntil(CountDownLatch stall) {
        Collector c = new Collector();
        c.beforeEachBatch = () -> {
            try {
                stall.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        return c;
    }

    /** A receiver whose every delivery waits for {@code stall}, and a ready sender to it. */
    record StalledPair(CountDownLatch stall, Collector delivered, StreamReceiver receiver, StreamSender sender) {}

    /** Both ends with {@code options}: the receiver stalled until {@link StalledPair#stall} counts down. */
    StalledPair stalledPair(Map<String, Object> options) throws InterruptedException {
        CountDownLatch stall = new CountDownLatch(1);
        Collector c = stalledUntil(stall);
        StreamReceiver r = transport("receiver", options).bind(0, c, t -> true, SequenceStore.inMemory());
        StreamSender s = transport("sender", options).openSender("s", at(r), ControlListener.NONE);
        await("route ready", 10, s::isReady);
        return new StalledPair(stall, c, r, s);
    }

    /** Offers 100-byte records until the stream refuses one (at most a million); returns how many it accepted. */
    static long offerUntilRefused(StreamSender s) {
        long accepted = 0;
        while (accepted < 1_000_000) {
            byte[] rec = record(accepted, 100);
            if (s.offer(0, rec, 0, rec.length) != OutboundStream.ACCEPTED) {
                break;
            }
            accepted++;
        }
        assertTrue(accepted < 1_000_000, "the stream never pushed back");
        return accepted;
    }

    /** A receiver that takes {@code nanosPerRecord} of CPU per record before handing it to {@code c}. */
    private StreamReceiver slowReceiver(Map<String, Object> options, Collector c, long nanosPerRecord)
            throws InterruptedException {
        return transport("receiver", options).bind(0, new io.jetstream.core.api.DeliveryHandler() {
            @Override
            public void deliver(io.jetstream.core.api.StreamKey stream, long sequence, DeliveredBatch records) {
                long until = System.nanoTime() + nanosPerRecord * records.count();
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                c.deliver(stream, sequence, records);
            }
        }, t -> true, SequenceStore.inMemory());
    }

    static InetSocketAddress at(StreamReceiver r) {
        return new InetSocketAddress("127.0.0.1", r.localAddress().getPort());
    }

    private static void send(StreamSender s, long from, long to, int size, int targets) throws Exception {
        for (long i = from; i < to; i++) {
            byte[] r = record(i, size < 0 ? (int) (8 + i % 300) : size);
            s.send((int) (i % targets), r, 0, r.length);
        }
        s.flush();
    }

    static void assertInOrder(Collector c, long n) {
        List<Long> got = c.indexes();
        assertEquals(n, got.size(), "records delivered");
        for (int i = 0; i < n; i++) {
            if (got.get(i) != i) {
                throw new AssertionError("record " + i + " delivered as " + got.get(i));
            }
        }
        assertEquals(0, c.corrupt, "records with corrupted bytes");
    }

    @Test
    void acknowledgedStreamDeliversEveryRecordOnceInOrder() throws Exception {
        Collector c = new Collector();
        StreamReceiver r = transport("receiver", Map.of()).bind(0, c, t -> t >= 0 && t < 10, SequenceStore.inMemory());
        StreamSender s = transport("sender", Map.of("transport.reliability", "acknowledged"))
                .openSender("s", at(r), ControlListener.NONE);
        await("route ready", 10, s::isReady);
        send(s, 0, 50_000, -1, 10);
        await("50,000 records", 30, () -> c.size() >= 50_000);
        assertInOrder(c, 50_000);
        for (TransportTestSupport.Collector.Delivered d : c.snapshot()) {
            assertEquals(d.index() % 10, d.target(), "target of record " + d.index());
            assertEquals(8 + d.index() % 300, d.length(), "length of record " + d.index());
        }
        await("all acknowledged", 10, () -> s.batchesInFlight() == 0);
        assertEquals(0, s.metrics().recordsDropped());
        assertPath(s);
    }

    @Test
    void largeRecordsUpToTheFrameLimit() throws Exception {
        int maxFrame = 1 << 20;
        Map<String, Object> o = Map.of("transport.max-frame-bytes", maxFrame, "transport.reliability", "acknowledged");
        Collector c = new Collector();
        StreamReceiver r = transport("receiver", o).bind(0, c, t -> true, SequenceStore.inMemory());
        StreamSender s = transport("sender", o).openSender("big", at(r), ControlListener.NONE);
        int largest = io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.maxRecordLength(maxFrame);
        send(s, 0, 20, largest, 3);
        await("20 records of 1 MiB", 30, () -> c.size() >= 20);
        assertInOrder(c, 20);
        byte[] tooLarge = new byte[largest + 1];
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.offer(0, tooLarge, 0, tooLarge.length));
        assertTrue(e.getMessage().contains("transport.max-frame-bytes"), e.getMessage());
    }

    @Test
    void manyTargets() throws Exception {
        Collector c = new Collector();
        StreamReceiver r = transport("receiver", Map.of()).bind(0, c, t -> t >= 0 && t < 5_000, SequenceStore.inMemory());
        StreamSender s = transport("sender", Map.of("transport.reliability", "acknowledged"))
                .openSender("s", at(r), ControlListener.NONE);
        await("route ready", 10, s::isReady);
        send(s, 0, 20_000, 24, 5_000);
        await("20,000 records", 30, () -> c.size() >= 20_000);
        assertInOrder(c, 20_000);
        Set<Integer> targets = new HashSet<>();
        c.snapshot().forEach(d -> targets.add(d.target()));
        assertEquals(5_000, targets.size());
    }

    @Test
    void aStalledReceiverPushesBackAndNothingIsLost() throws Exception {
        Map<String, Object> o = Map.of("transport.reliability", "acknowledged", "transport.memory-bytes", 64L << 10,
                "transport.window-bytes", 16 << 10, "transport.send-timeout-ms", 200L,
                "batch.mode", "fixed", "batch.fixed.target-bytes", 4096);
        StalledPair p = stalledPair(o);
        StreamSender s = p.sender();
        Collector c = p.delivered();
        long accepted = offerUntilRefused(s);
        assertTrue(s.isBackPressured());
        assertTrue(s.metrics().backPressured() > 0);
        byte[] more = record(accepted, 100);
        assertThrows(TimeoutException.class, () -> s.send(0, more, 0, more.length));
        p.stall().countDown();
        s.send(0, more, 0, more.length);
        s.flush();
        long total = accepted + 1;
        await(total + " records after the stall", 30, () -> c.size() >= total);
        assertInOrder(c, total);
    }

    @Test
    void closeWithUnacknowledgedDataIsBoundedByTheTimeout() throws Exception {
        Map<String, Object> o = Map.of("transport.reliability", "acknowledged", "transport.close-timeout-ms", 300L);
        CountDownLatch stall = new CountDownLatch(1);
        Collector c = stalledUntil(stall);
        StreamReceiver r = transport("receiver", Map.of()).bind(0, c, t -> true, SequenceStore.inMemory());
        StreamSender s = transport("sender", o).openSender("s", at(r), ControlListener.NONE);
        await("route ready", 10, s::isReady);
        send(s, 0, 1_000, 64, 1);
        long start = System.nanoTime();
        s.close();
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        stall.countDown();
        assertTrue(tookMs < 5_000, "close took " + tookMs + " ms with a 300 ms timeout");
        assertTrue(s.metrics().recordsDropped() > 0, "unacknowledged records are counted as dropped");
        assertEquals(OutboundStream.CLOSED, s.offer(0, new byte[8], 0, 8), "an offer after close is refused, not thrown");
    }

    @Test
    void anIdleStreamIsFlushedByItsDeadline() throws Exception {
        Map<String, Object> o = Map.of("batch.mode", "fixed", "batch.fixed.target-bytes", 1 << 20,
                "batch.max-event-delay-ms", 20L);
        Collector c = new Collector();
        StreamReceiver r = transport("receiver", o).bind(0, c, t -> true, SequenceStore.inMemory());
        StreamSender s = transport("sender", o).openSender("s", at(r), ControlListener.NONE);
        await("route ready", 10, s::isReady);
        byte[] one = record(0, 100);
        assertEquals(OutboundStream.ACCEPTED, s.offer(7, one, 0, one.length));
        await("the record, without another send or flush", 10, () -> c.size() == 1);
        assertEquals(1, s.flushPolicy().flushes(FlushPolicy.Reason.DEADLINE));
    }

    @Test
    void adaptiveBatchingDeliversAndDecides() throws Exception {
        Collector c = new Collector();
        StreamReceiver r = transport("receiver", Map.of()).bind(0, c, t -> true, SequenceStore.inMemory());
        StreamSender s = transport("sender", Map.of("transport.reliability", "acknowledged"))
                .openSender("s", at(r), ControlListener.NONE);
        await("route ready", 10, s::isReady);
        send(s, 0, 30_000, 224, 4);
        await("30,000 records", 30, () -> c.size() >= 30_000);
        assertInOrder(c, 30_000);
        assertTrue(s.controller().lastDecision() != null, "the oracle decided");
        assertTrue(s.metrics().batchesSealed() < 30_000, "records were batched: " + s.metrics());
    }

    @Test
    void anAdaptiveStreamKeepsProbingTheLinkBetweenItsBatches() throws Exception {
        Collector c = new Collector();
        StreamReceiver r = transport("receiver", Map.of()).bind(0, c, t -> true, SequenceStore.inMemory());
        StreamSender s = transport("sender", Map.of("transport.reliability", "acknowledged",
                "batch.probe.min-interval-ms", "20", "batch.probe.max-interval-ms", "40"))
                .openSender("s", at(r), ControlListener.NONE);
        await("route ready", 10, s::isReady);
        // About 2,000 records a second for a second and a half: once the link is fitted, a due probe
        // waits for the link to fall quiet after a batch, which the deadline flusher catches.
        int n = 3_000;
        for (int i = 0; i < n; i++) {
            byte[] rec = record(i, 224);
            s.send(i % 4, rec, 0, rec.length);
            java.util.concurrent.locks.LockSupport.parkNanos(500_000);
        }
        s.flush();
        await(n + " records", 30, () -> c.size() >= n);
        assertInOrder(c, n);
        assertTrue(s.controller().monitor().lastFittedLink() != null, "the link was fitted");
        assertTrue(s.metrics().probes() >= 3 + 5,
                "probes kept going out after the first ones (one due every 20-40 ms): " + s.metrics());
    }

    @Test
    void underOverloadTheAdaptiveOutboxHoldsWhatTheLinkDrainsWithinTheDelayBound() throws Exception {
        Map<String, Object> o = Map.of("transport.reliability", "acknowledged", "batch.max-event-delay-ms", 20L);
        Collector c = new Collector();
        // At most 10,000 records/s: well below what even a cold sender offers (a run whose sender offered
        // 39,000 records/s against a 50,000/s receiver never overloaded it, and the bound never came).
        StreamReceiver r = slowReceiver(o, c, 100_000);
        StreamSender s = transport("sender", o).openSender("s", at(r), ControlListener.NONE);
        await("route ready", 10, s::isReady);
        long sent = 0;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        // Overload until the bound is in force (it needs the drain measured under backlog), at most 10 s.
        while (System.nanoTime() < end && s.bufferLimitBytes() > 1L << 20) {
            byte[] rec = record(sent, 100);
            if (s.offer(0, rec, 0, rec.length) == OutboundStream.ACCEPTED) {
                sent++;
            } else {
                java.util.concurrent.locks.LockSupport.parkNanos(50_000);
            }
        }
        // The receiver drains at most 10,000 x 108 B/s = 1.08 MB/s: 20 ms of it is at most 22 KB (bound 256 KiB).
        assertTrue(s.bufferLimitBytes() <= 1L << 20, "outbox bound " + s.bufferLimitBytes() + " B of 64 MiB configured after "
                + sent + " records offered: " + s.metrics() + ", last decision " + s.controller().lastDecision());
        s.flush();
        long total = sent;
        await(total + " records", 30, () -> c.size() >= total);
        assertInOrder(c, total);
    }

    @Test
    void lateAcknowledgementsBoundTheOutboxBeforeTheWindowFills() throws Exception {
        // A slow receiver (100 µs a record) behind socket buffers large enough to take all 1 MB sent:
        // under half the 4 MiB window and half the outbox is ever in flight, so only the lateness of
        // the acknowledgements shows the backlog. It must be measured and the outbox bounded.
        Map<String, Object> o = Map.of("transport.reliability", "acknowledged", "batch.max-event-delay-ms", 20L);
        Collector c = new Collector();
        StreamReceiver r = slowReceiver(o, c, 100_000);
        StreamSender s = transport("sender", o).openSender("s", at(r), ControlListener.NONE);
        await("route ready", 10, s::isReady);
        long configured = s.bufferLimitBytes();
        int records = 10_000;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (int i = 0; i < records; i++) {
            byte[] rec = record(i, 100);
            while (s.offer(0, rec, 0, rec.length) != OutboundStream.ACCEPTED) { // refused only once the bound is in force
                assertTrue(System.nanoTime() < deadline, "offered " + i + " records in 30 s");
                java.util.concurrent.locks.LockSupport.parkNanos(50_000);
            }
        }
        s.flush();
        await("an outbox bound from the measured drain", 20, () -> s.bufferLimitBytes() < configured);
        await(records + " records", 30, () -> c.size() >= records);
        assertInOrder(c, records);
    }

    @Test
    void severalRoutesKeepStrictOrder() throws Exception {
        Map<String, Object> o = Map.of("transport.reliability", "acknowledged", "batch.max-routes", 4,
                "batch.mode", "fixed", "batch.fixed.target-bytes", 512);
        Collector c = new Collector();
        StreamReceiver r = transport("receiver", o).bind(0, c, t -> true, SequenceStore.inMemory());
        StreamSender s = transport("sender", o).openSender("s", at(r), ControlListener.NONE);
        await("route ready", 10, s::isReady);
        await("4 connections", 10, () -> r.metrics().connectionsAccepted() == 4);
        send(s, 0, 40_000, 64, 2);
        await("40,000 records", 30, () -> c.size() >= 40_000);
        assertInOrder(c, 40_000);
    }

    @Test
    void relaxedOrderingDeliversEachRecordOnce() throws Exception {
        Map<String, Object> o = Map.of("transport.reliability", "acknowledged", "batch.max-routes", 3,
                "transport.ordering", "relaxed", "batch.mode", "fixed", "batch.fixed.target-bytes", 512);
        Collector c = new Collector();
        StreamReceiver r = transport("receiver", o).bind(0, c, t -> true, SequenceStore.inMemory());
        StreamSender s = transport("sender", o).openSender("s", at(r), ControlListener.NONE);
        await("3 connections", 10, () -> r.metrics().connectionsAccepted() == 3 && s.isReady());
        send(s, 0, 20_000, 64, 2);
        r.setOrdering(Ordering.STRICT); // switchable at run time
        send(s, 20_000, 30_000, 64, 2);
        await("30,000 records", 30, () -> c.size() >= 30_000);
        List<Long> got = c.indexes();
        assertEquals(30_000, got.size());
        assertEquals(30_000, new HashSet<>(got).size(), "no duplicates");
        assertEquals(LongStream.range(0, 30_000).boxed().toList(), got.stream().sorted().toList());
    }

    @Test
    void receiverRestartInAcknowledgedModeLosesAndDuplicatesNothing() throws Exception {
        Map<String, Object> o = Map.of("transport.reliability", "acknowledged");
        SequenceStore store = SequenceStore.inMemory(); // survives the receiver, as a persistent store would
        Collector c = new Collector();
        NettyTransport receiving = transport("receiver", o);
        StreamReceiver r = receiving.bind(0, c, t -> true, store);
        int port = r.localAddress().getPort();
        StreamSender s = transport("sender", o).openSender("s", at(r), ControlListener.NONE);
        await("route ready", 10, s::isReady);
        send(s, 0, 10_000, 100, 1);
        r.close();
        send(s, 10_000, 20_000, 100, 1); // held while the receiver is away
        StreamReceiver again = receiving.bind(port, c, t -> true, store);
        await("20,000 records", 30, () -> c.size() >= 20_000);
        LockSupportSleep.millis(200); // anything replayed twice would arrive now
        assertInOrder(c, 20_000);
        assertEquals(0, s.metrics().recordsDropped());
        assertTrue(s.metrics().reconnects() >= 1);
        again.close();
    }

    @Test
    void receiverRestartInBestEffortModeCountsTheLosses() throws Exception {
        Collector c = new Collector();
        NettyTransport receiving = transport("receiver", Map.of());
        StreamReceiver r = receiving.bind(0, c, t -> true, SequenceStore.inMemory());
        int port = r.localAddress().getPort();
        StreamSender s = transport("sender", Map.of("batch.mode", "fixed", "batch.fixed.target-bytes", 1024))
                .openSender("s", at(r), ControlListener.NONE);
        await("route ready", 10, s::isReady);
        send(s, 0, 5_000, 100, 1);
        await("first 5,000", 10, () -> c.size() >= 5_000);
        r.close();
        await("the loss is seen", 10, () -> !s.isReady());
        send(s, 5_000, 10_000, 100, 1); // dropped: nobody listens
        StreamReceiver again = receiving.bind(port, c, t -> true, SequenceStore.inMemory());
        await("reconnected", 10, s::isReady);
        send(s, 10_000, 15_000, 100, 1);
        await("records after the restart", 10, () -> c.indexes().contains(14_999L));
        long delivered = c.size();
        long dropped = s.metrics().recordsDropped();
        assertTrue(dropped >= 5_000, "dropped " + dropped);
        assertTrue(delivered + dropped >= 15_000, delivered + " delivered + " + dropped + " dropped < 15,000 sent");
        assertEquals(delivered, new HashSet<>(c.indexes()).size(), "no duplicates");
        again.close();
    }

    @Test
    @org.junit.jupiter.api.Tag("journal")
    void anAcknowledgedStreamSpillsToItsJournalWhileTheReceiverIsAway(@org.junit.jupiter.api.io.TempDir java.nio.file.Path journal)
            throws Exception {
        Map<String, Object> o = Map.of("transport.reliability", "acknowledged", "transport.memory-bytes", 64L << 10,
                "transport.journal.dir", journal.toString(), "batch.mode", "fixed", "batch.fixed.target-bytes", 4096);
        Collector c = new Collector();
        NettyTransport receiving = transport("receiver", o);
        StreamReceiver probe = receiving.bind(0, c, t -> true, SequenceStore.inMemory());
        int port = probe.localAddress().getPort();
        probe.close(); // nobody listens while the sender writes
        StreamSender s = transport("sender", o).openSender("s", new InetSocketAddress("127.0.0.1", port), ControlListener.NONE);
        send(s, 0, 40_000, 100, 3); // ~4.3 MB: 64 KiB in memory, the rest in the journal
        assertTrue(s.metrics().batchesSpilled() > 900, "spilled: " + s.metrics());
        assertFalse(s.isBackPressured());
        StreamReceiver r = receiving.bind(port, c, t -> true, SequenceStore.inMemory());
        await("40,000 records", 30, () -> c.size() >= 40_000);
        assertInOrder(c, 40_000);
        await("all acknowledged", 10, () -> s.batchesInFlight() == 0);
        try (var files = java.nio.file.Files.walk(journal)) {
            assertEquals(0, files.filter(java.nio.file.Files::isRegularFile).count(), "a drained journal leaves no files");
        }
        r.close();
    }

    @Test
    void controlFramesReachSenders() throws Exception {
        Collector c = new Collector();
        StreamReceiver r = transport("receiver", Map.of()).bind(0, c, t -> true, SequenceStore.inMemory());
        r.setWelcomeControl(1, () -> new byte[] {42});
        List<String> got = new java.util.concurrent.CopyOnWriteArrayList<>();
        StreamSender s = transport("sender", Map.of()).openSender("s", at(r),
                (tag, buffer, offset, length) -> got.add(tag + ":" + buffer.getByte(offset)));
        await("welcome control", 10, () -> got.contains("1:42"));
        r.broadcast(2, new byte[] {7});
        await("broadcast control", 10, () -> got.contains("2:7"));
        assertFalse(s.isBackPressured());
    }

    /** Sleeps without InterruptedException noise. */
    static final class LockSupportSleep {
        static void millis(long ms) {
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ms));
        }
    }
}
