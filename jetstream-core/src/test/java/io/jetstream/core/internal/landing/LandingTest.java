package io.jetstream.core.internal.landing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.LandedRecordHandler;
import io.jetstream.core.api.LandedStreamStats;
import io.jetstream.core.api.Landing;
import io.jetstream.core.api.LandingCommitter;
import io.jetstream.core.api.LandingGuarantee;
import io.jetstream.core.api.LandingOptions;
import io.jetstream.core.api.LandingSender;
import io.jetstream.core.api.LandingSettings;
import io.jetstream.core.api.LandingSubscriber;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.api.Transport;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.harness.FreePorts;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.agrona.DirectBuffer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A landing with its senders, committers and subscribers on loopback, through the core's API. */
@Tag("journal")
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class LandingTest {
    private static final long TEN_SECONDS = TimeUnit.SECONDS.toNanos(10);

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        Collections.reverse(open);
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private <T extends AutoCloseable> T keep(T c) {
        open.add(c);
        return c;
    }

    static TransportSettings transport() {
        return transport(Map.of());
    }

    static TransportSettings transport(Map<String, Object> overrides) {
        Map<String, Object> raw = new HashMap<>();
        raw.put("jetstream.transport.bind-address", "127.0.0.1");
        raw.put("jetstream.transport.reconnect.min-backoff-ms", 20L);
        raw.put("jetstream.transport.reconnect.max-backoff-ms", 200L);
        raw.put("jetstream.transport.ring.enabled", false);
        raw.put("jetstream.transport.reliability", "acknowledged");
        raw.put("jetstream.transport.window-bytes", 256 * 1024);
        raw.put("jetstream.batch.mode", "fixed");
        raw.put("jetstream.batch.fixed.target-bytes", 65536);
        overrides.forEach((k, v) -> raw.put("jetstream." + k, v));
        return TransportSettings.from(JetStreamConfig.load(ConfigScope.STANDALONE, raw, TransportSettings.GROUPS));
    }

    private LandingSettings landingSettings(int port, Map<String, Object> overrides) {
        Map<String, Object> raw = new HashMap<>();
        raw.put("jetstream.landing.port", port);
        raw.put("jetstream.landing.directory", dir.resolve("landing").toString());
        raw.put("jetstream.landing.head-interval-ms", 50L);
        raw.put("jetstream.landing.metrics-log-interval-ms", 0L);
        overrides.forEach((k, v) -> raw.put("jetstream." + k, v));
        return LandingSettings.from(JetStreamConfig.load(ConfigScope.STANDALONE, raw, LandingOptions.GROUP));
    }

    static byte[] record(long i) {
        return ByteBuffer.allocate(16).putLong(i).putLong(i * 31).array();
    }

    /** What a subscriber received, by stream, in order. */
    static final class Received implements LandedRecordHandler {
        final List<Long> values = Collections.synchronizedList(new ArrayList<>());
        final List<Long> ordinals = Collections.synchronizedList(new ArrayList<>());
        final List<String> refusals = new CopyOnWriteArrayList<>();
        volatile long landed;
        volatile long released;
        volatile long bytesBehind = Long.MIN_VALUE;

        @Override
        public void onRecord(String stream, long ordinal, long sentMillis, DirectBuffer buffer, int offset, int length) {
            long v = buffer.getLong(offset, java.nio.ByteOrder.BIG_ENDIAN);
            if (buffer.getLong(offset + 8, java.nio.ByteOrder.BIG_ENDIAN) != v * 31 || length != 16) {
                throw new AssertionError("corrupt record at " + ordinal);
            }
            values.add(v);
            ordinals.add(ordinal);
        }

        @Override
        public void onHead(String stream, long landed, long released, long oldestUnreleasedMillis, long bytesBehind) {
            this.landed = landed;
            this.released = released;
            this.bytesBehind = bytesBehind;
        }

        @Override
        public void onRefused(String stream, String reason) {
            refusals.add(reason);
        }
    }

    static void await(String what, BooleanSupplier condition) {
        Awaitility.await(what).pollInSameThread().pollInterval(Duration.ofMillis(5)).atMost(Duration.ofSeconds(30))
                .until(condition::getAsBoolean);
    }

    static void offerAll(LandingSender sender, long from, long to) {
        for (long i = from; i < to; i++) {
            byte[] r = record(i);
            long deadline = System.nanoTime() + TEN_SECONDS;
            int result;
            while ((result = sender.offer(r, 0, r.length)) == OutboundStream.BACK_PRESSURED) {
                assertTrue(System.nanoTime() < deadline, "pushed back for 10 s at record " + i);
                Thread.onSpinWait();
            }
            assertEquals(OutboundStream.ACCEPTED, result);
        }
    }

    static List<Long> range(long from, long to) {
        List<Long> l = new ArrayList<>();
        for (long i = from; i < to; i++) {
            l.add(i);
        }
        return l;
    }

    @Test
    void atLeastOnceRecordsReachTheSubscriberInOrderAsTheyLand() throws Exception {
        Landing landing = keep(Landing.start(transport(), landingSettings(0, Map.of())));
        StreamRoutes to = StreamRoutes.direct(landing.localAddress());
        Transport site = keep(Transport.start(transport(), "sender"));
        LandingSender sender = keep(LandingSender.open(site, to, "orders/0", LandingGuarantee.AT_LEAST_ONCE, 7, 0, 0));
        Received got = new Received();
        Transport reader = keep(Transport.start(transport(), "reader"));
        List<Set<String>> seen = new CopyOnWriteArrayList<>();
        LandingSubscriber sub = keep(LandingSubscriber.open(reader, to, "reader-0", got, seen::add));

        offerAll(sender, 0, 5_000);
        assertTrue(sender.awaitLanded(TEN_SECONDS));
        await("the landing lists the stream", () -> sub.streams().contains("orders/0"));
        sub.subscribe("orders/0", 0);
        await("5000 records", () -> got.values.size() == 5_000);
        assertEquals(range(0, 5_000), got.values);
        assertEquals(range(0, 5_000), got.ordinals);
        await("a head with every record released", () -> got.landed == 5_000 && got.released == 5_000);
        LandedStreamStats stats = landing.streams().get(0);
        assertEquals(5_000, stats.landed());
        assertEquals(5_000, stats.released());
        assertTrue(seen.stream().anyMatch(s -> s.contains("orders/0")));
    }

    @Test
    void exactlyOnceReleasesOnlyCommittedEpochsAndDiscardsWhatAFailedAttemptSentAfterItsSnapshot() throws Exception {
        Landing landing = keep(Landing.start(transport(), landingSettings(0, Map.of())));
        StreamRoutes to = StreamRoutes.direct(landing.localAddress());
        Transport site = keep(Transport.start(transport(), "sender"));
        Received got = new Received();
        Transport reader = keep(Transport.start(transport(), "reader"));
        LandingSubscriber sub = keep(LandingSubscriber.open(reader, to, "reader-0", got, null));
        sub.subscribe("orders/0", 0);

        LandingSender a = LandingSender.open(site, to, "orders/0", LandingGuarantee.EXACTLY_ONCE, 0xA, 0, 0);
        offerAll(a, 0, 100);
        assertEquals(OutboundStream.ACCEPTED, a.mark(1));
        offerAll(a, 100, 150); // epoch 2: its checkpoint never completes
        assertTrue(a.awaitLanded(TEN_SECONDS));
        await("a head with 150 landed", () -> got.landed == 150);
        assertEquals(List.of(), got.values, "nothing is released before its commit");
        await("150 records of 16 bytes behind", () -> got.bytesBehind == 150 * 16);

        LandingCommitter committer = keep(LandingCommitter.open(site, to, "orders/0"));
        assertTrue(committer.commit("orders/0", 0xA, 1, TEN_SECONDS));
        await("epoch 1", () -> got.values.size() == 100);
        await("epoch 2's 50 records behind", () -> got.bytesBehind == 50 * 16);
        a.close(); // attempt A fails

        // Attempt B restores A's epoch 1: it sends 100..150 again, then more.
        LandingSender b = keep(LandingSender.open(site, to, "orders/0", LandingGuarantee.EXACTLY_ONCE, 0xB, 0xA, 1));
        offerAll(b, 100, 300);
        assertEquals(OutboundStream.ACCEPTED, b.mark(2));
        assertTrue(b.awaitLanded(TEN_SECONDS));
        assertTrue(committer.commit("orders/0", 0xB, 2, TEN_SECONDS));
        assertTrue(committer.commit("orders/0", 0xA, 1, TEN_SECONDS), "a commit retried after recovery changes nothing");
        await("300 records", () -> got.values.size() >= 300);
        assertEquals(range(0, 300), got.values);
        assertEquals(50, landing.streams().get(0).discarded());
        await("nothing behind (discarded records are passed, not pending)", () -> got.bytesBehind == 0 && got.landed == 350);
    }

    @Test
    void aRestartedLandingRecoversItsStreamsAndItsSubscriberResumesWithNothingLostOrRepeated() throws Exception {
        int port = FreePorts.unused();
        Landing first = Landing.start(transport(), landingSettings(port, Map.of()));
        StreamRoutes to = StreamRoutes.direct(new InetSocketAddress("127.0.0.1", port));
        Transport site = keep(Transport.start(transport(), "sender"));
        LandingSender sender = keep(LandingSender.open(site, to, "orders/0", LandingGuarantee.AT_LEAST_ONCE, 7, 0, 0));
        Received got = new Received();
        Transport reader = keep(Transport.start(transport(), "reader"));
        LandingSubscriber sub = keep(LandingSubscriber.open(reader, to, "reader-0", got, null));
        sub.subscribe("orders/0", 0);
        offerAll(sender, 0, 2_000);
        assertTrue(sender.awaitLanded(TEN_SECONDS));
        await("2000 records", () -> got.values.size() == 2_000);
        first.close();

        offerAll(sender, 2_000, 3_000); // held by the sender while the landing is down
        Landing second = keep(Landing.start(transport(), landingSettings(port, Map.of())));
        assertEquals(2_000, second.streams().get(0).landed(), "recovered from the journal");
        assertTrue(sender.awaitLanded(TEN_SECONDS));
        offerAll(sender, 3_000, 4_000);
        assertTrue(sender.awaitLanded(TEN_SECONDS));
        await("4000 records", () -> got.values.size() >= 4_000);
        assertEquals(range(0, 4_000), got.values);
        assertEquals(4_000, second.streams().get(0).landed());
        // The byte count recovered from the journal agrees with the one in its documents.
        await("nothing behind after the restart", () -> got.bytesBehind == 0 && got.landed == 4_000);
    }

    @Test
    void aBatchAsLargeAsAFrameLandsAndIsRead() throws Exception {
        Landing landing = keep(Landing.start(transport(), landingSettings(0, Map.of())));
        StreamRoutes to = StreamRoutes.direct(landing.localAddress());
        // One batch of nearly 8 MiB (transport.max-frame-bytes): its journal document is as large.
        Map<String, Object> big = Map.of("transport.window-bytes", 32 << 20, "batch.fixed.target-bytes", 8 << 20,
                "batch.max-event-delay-ms", 10_000L);
        Transport site = keep(Transport.start(transport(big), "sender"));
        LandingSender sender = keep(LandingSender.open(site, to, "orders/0", LandingGuarantee.AT_LEAST_ONCE, 7, 0, 0));
        java.util.concurrent.atomic.AtomicLong read = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong misread = new java.util.concurrent.atomic.AtomicLong();
        Transport reader = keep(Transport.start(transport(), "reader"));
        LandingSubscriber sub = keep(LandingSubscriber.open(reader, to, "reader-0", new LandedRecordHandler() {
            @Override
            public void onRecord(String stream, long ordinal, long sentMillis, DirectBuffer buffer, int offset, int length) {
                if (ordinal != read.get() || length != 1_000 || buffer.getLong(offset, java.nio.ByteOrder.BIG_ENDIAN) != ordinal) {
                    misread.incrementAndGet();
                }
                read.incrementAndGet();
            }

            @Override
            public void onHead(String stream, long landed, long released, long oldestUnreleasedMillis, long bytesBehind) {}

            @Override
            public void onRefused(String stream, String reason) {
                misread.incrementAndGet();
            }
        }, null));
        sub.subscribe("orders/0", 0);
        int n = 12_000; // 1,000-byte records: 12 MB, one batch of nearly 8 MiB and the rest
        byte[] r = new byte[1_000];
        for (int i = 0; i < n; ) {
            ByteBuffer.wrap(r).putLong(i);
            int result = sender.offer(r, 0, r.length);
            if (result == OutboundStream.ACCEPTED) {
                i++;
            } else {
                assertEquals(OutboundStream.BACK_PRESSURED, result);
                Thread.onSpinWait();
            }
        }
        assertTrue(sender.awaitLanded(TEN_SECONDS * 3));
        long batches = sender.landings().get(0).batchesSent();
        assertTrue(batches <= 3, "large batches: " + batches);
        await("every record", () -> read.get() == n);
        assertEquals(0, misread.get(), "records out of order, of the wrong size or content");
    }

    @Test
    void releasedRecordsAreDeletedAfterTheRetentionAndAnOlderPositionIsRefusedNamingIt() throws Exception {
        Landing landing = keep(Landing.start(transport(), landingSettings(0, Map.of("landing.generation-bytes", 1L << 20,
                "landing.retention-ms", 0L))));
        StreamRoutes to = StreamRoutes.direct(landing.localAddress());
        Transport site = keep(Transport.start(transport(), "sender"));
        LandingSender sender = keep(LandingSender.open(site, to, "orders/0", LandingGuarantee.AT_LEAST_ONCE, 7, 0, 0));
        Received got = new Received();
        Transport reader = keep(Transport.start(transport(), "reader"));
        LandingSubscriber sub = keep(LandingSubscriber.open(reader, to, "reader-0", got, null));
        sub.subscribe("orders/0", 0);
        int n = 120_000; // ~4 MiB of documents: several generations
        offerAll(sender, 0, n);
        assertTrue(sender.awaitLanded(TEN_SECONDS));
        await("every record", () -> got.values.size() == n);
        long before = landing.streams().get(0).journalBytes();
        sub.release("orders/0", n);
        await("released generations deleted", () -> landing.streams().get(0).journalBytes() < before / 2);

        Received late = new Received();
        LandingSubscriber again = keep(LandingSubscriber.open(reader, to, "reader-1", late, null));
        again.subscribe("orders/0", 0);
        await("the old position refused", () -> !late.refusals.isEmpty());
        assertTrue(late.refusals.get(0).contains("record 0 of orders/0 was deleted"), late.refusals.get(0));
        assertEquals(List.of(), late.values);
    }

    @Test
    void aFullLandedStreamPushesBackOnItsSenderUntilItsReaderReleases() throws Exception {
        Landing landing = keep(Landing.start(transport(), landingSettings(0, Map.of("landing.generation-bytes", 1L << 20,
                "landing.max-stream-bytes", 2L << 20, "landing.retention-ms", 0L))));
        StreamRoutes to = StreamRoutes.direct(landing.localAddress());
        Transport site = keep(Transport.start(transport(), "sender"));
        LandingSender sender = keep(LandingSender.open(site, to, "orders/0", LandingGuarantee.AT_LEAST_ONCE, 7, 0, 0));
        long offered = 0;
        long pushedBackSince = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            byte[] r = record(offered);
            if (sender.offer(r, 0, r.length) == OutboundStream.ACCEPTED) {
                offered++;
                pushedBackSince = 0;
            } else if (pushedBackSince == 0) {
                pushedBackSince = System.nanoTime();
            } else if (System.nanoTime() - pushedBackSince > TimeUnit.MILLISECONDS.toNanos(500)) {
                break; // held back for half a second: the landing said full
            }
        }
        assertTrue(pushedBackSince != 0, "the sender was never held back");
        long journal = landing.streams().get(0).journalBytes();
        assertTrue(journal <= (2L << 20) + 2 * 256 * 1024, "journal " + journal + " bytes: beyond the bound and a window");

        Received got = new Received();
        Transport reader = keep(Transport.start(transport(), "reader"));
        LandingSubscriber sub = keep(LandingSubscriber.open(reader, to, "reader-0", got, null));
        sub.subscribe("orders/0", 0);
        long landed = landing.streams().get(0).landed();
        await("what landed", () -> got.values.size() == landed);
        sub.release("orders/0", landed);
        long more = offered + 1_000;
        for (long i = offered; i < more; ) {
            byte[] r = record(i);
            if (sender.offer(r, 0, r.length) == OutboundStream.ACCEPTED) {
                i++;
            }
            assertTrue(System.nanoTime() - deadline < TimeUnit.SECONDS.toNanos(30), "still held back after the release");
        }
        assertTrue(sender.awaitLanded(TEN_SECONDS));
        await("every record", () -> got.values.size() == more);
        assertEquals(range(0, more), got.values);
    }
}
