package io.jetstream.core.internal.landing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.Landing;
import io.jetstream.core.api.LandingCommitter;
import io.jetstream.core.api.LandingGuarantee;
import io.jetstream.core.api.LandingOptions;
import io.jetstream.core.api.LandingSender;
import io.jetstream.core.api.LandingSenderStats;
import io.jetstream.core.api.LandingSettings;
import io.jetstream.core.api.LandingSubscriber;
import io.jetstream.core.api.MulticastOptions.SlowDestination;
import io.jetstream.core.api.MulticastSettings;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.api.Transport;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.harness.FreePorts;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One landed stream sent to the landings of two sites through one multicast stream ({@link LandingSender#open(Transport,
 * Map, String, LandingGuarantee, long, long, long, MulticastSettings)}), on loopback, read at each landing by its own
 * subscriber.
 */
@Tag("journal")
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class LandingToSeveralSitesTest {
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

    private Landing landing(String site, int port, Map<String, Object> overrides) {
        Map<String, Object> raw = new HashMap<>();
        raw.put("jetstream.landing.port", port);
        raw.put("jetstream.landing.directory", dir.resolve("landing-" + site).toString());
        raw.put("jetstream.landing.head-interval-ms", 50L);
        raw.put("jetstream.landing.metrics-log-interval-ms", 0L);
        overrides.forEach((k, v) -> raw.put("jetstream." + k, v));
        return keep(Landing.start(LandingTest.transport(),
                LandingSettings.from(JetStreamConfig.load(ConfigScope.STANDALONE, raw, LandingOptions.GROUP))));
    }

    private static MulticastSettings holdForever() {
        MulticastSettings d = MulticastSettings.defaults();
        return d.with(SlowDestination.HOLD, d.maxLagBytes(), 0, d.failoverTimeoutNanos());
    }

    private static Map<String, StreamRoutes> sites(InetSocketAddress b, InetSocketAddress c) {
        Map<String, StreamRoutes> m = new LinkedHashMap<>();
        m.put("site-b", StreamRoutes.direct(b));
        m.put("site-c", StreamRoutes.direct(c));
        return m;
    }

    private record Reader(LandingTest.Received got, LandingSubscriber subscriber) {}

    private Reader subscribe(Landing landing, String name) throws InterruptedException {
        LandingTest.Received got = new LandingTest.Received();
        Transport reader = keep(Transport.start(LandingTest.transport(), name));
        LandingSubscriber sub = keep(LandingSubscriber.open(reader, StreamRoutes.direct(landing.localAddress()), name, got, null));
        sub.subscribe("orders/0", 0);
        return new Reader(got, sub);
    }

    private LandingTest.Received reader(Landing landing, String name) throws InterruptedException {
        return subscribe(landing, name).got();
    }

    @Test
    void exactlyOnceEachSiteReleasesCommittedEpochsAndDiscardsWhatAFailedAttemptSentAfterItsSnapshot() throws Exception {
        Landing b = landing("b", 0, Map.of());
        Landing c = landing("c", 0, Map.of());
        Map<String, StreamRoutes> to = sites(b.localAddress(), c.localAddress());
        Transport site = keep(Transport.start(LandingTest.transport(), "sender"));
        LandingTest.Received atB = reader(b, "reader-b");
        LandingTest.Received atC = reader(c, "reader-c");

        LandingSender first = LandingSender.open(site, to, "orders/0", LandingGuarantee.EXACTLY_ONCE, 0xA, 0, 0, holdForever());
        LandingTest.offerAll(first, 0, 100);
        assertEquals(OutboundStream.ACCEPTED, first.mark(1));
        LandingTest.offerAll(first, 100, 150); // epoch 2: its checkpoint never completes
        assertTrue(first.awaitLanded(TEN_SECONDS), "landed at both sites: " + first.landings());
        LandingTest.await("150 landed at both sites", () -> atB.landed == 150 && atC.landed == 150);
        assertEquals(List.of(), atB.values, "nothing is released before its commit");
        assertEquals(List.of(), atC.values, "nothing is released before its commit");

        LandingCommitter commitB = keep(LandingCommitter.open(site, StreamRoutes.direct(b.localAddress()), "orders/0"));
        LandingCommitter commitC = keep(LandingCommitter.open(site, StreamRoutes.direct(c.localAddress()), "orders/0"));
        assertTrue(commitB.commit("orders/0", 0xA, 1, TEN_SECONDS));
        LandingTest.await("epoch 1 at site b", () -> atB.values.size() == 100);
        assertEquals(List.of(), atC.values, "site c releases nothing before its own commit");
        assertTrue(commitC.commit("orders/0", 0xA, 1, TEN_SECONDS));
        LandingTest.await("epoch 1 at site c", () -> atC.values.size() == 100);
        first.close(); // attempt A fails

        // Attempt B restores A's epoch 1: it sends 100..150 again, then more, to both sites.
        LandingSender second = keep(LandingSender.open(site, to, "orders/0", LandingGuarantee.EXACTLY_ONCE, 0xB, 0xA, 1,
                holdForever()));
        LandingTest.offerAll(second, 100, 300);
        assertEquals(OutboundStream.ACCEPTED, second.mark(2));
        assertTrue(second.awaitLanded(TEN_SECONDS));
        assertTrue(commitB.commit("orders/0", 0xB, 2, TEN_SECONDS));
        assertTrue(commitC.commit("orders/0", 0xB, 2, TEN_SECONDS));
        LandingTest.await("300 records at both sites", () -> atB.values.size() >= 300 && atC.values.size() >= 300);
        assertEquals(LandingTest.range(0, 300), atB.values);
        assertEquals(LandingTest.range(0, 300), atC.values);
        for (Landing l : List.of(b, c)) {
            assertEquals(1, l.streams().size(), "one landed stream: " + l.streams());
            assertEquals("orders/0", l.streams().get(0).name());
            assertEquals(50, l.streams().get(0).discarded());
        }
        List<LandingSenderStats> stats = second.landings();
        assertEquals(List.of("site-b", "site-c"), stats.stream().map(LandingSenderStats::landing).toList());
        assertTrue(stats.stream().allMatch(s -> s.connected() && s.bytesNotLanded() == 0 && s.dropped().isEmpty()), stats.toString());
    }

    @Test
    void aSiteWhoseLandingStartsLateGetsEveryRecordAndHoldsTheSenderUntilThen() throws Exception {
        Landing b = landing("b", 0, Map.of());
        int lateHostPort = FreePorts.unused();
        Transport site = keep(Transport.start(LandingTest.transport(), "sender"));
        LandingSender sender = keep(LandingSender.open(site, sites(b.localAddress(), new InetSocketAddress("127.0.0.1",
                lateHostPort)), "orders/0", LandingGuarantee.AT_LEAST_ONCE, 7, 0, 0, holdForever()));
        LandingTest.offerAll(sender, 0, 2_000);
        assertFalse(sender.awaitLanded(TimeUnit.MILLISECONDS.toNanos(300)), "not landed while site c is down");
        LandingSenderStats siteC = sender.landings().get(1);
        assertEquals("site-c", siteC.landing());
        assertFalse(siteC.connected());
        assertTrue(siteC.bytesNotLanded() > 0, siteC.toString());
        assertTrue(sender.failure().isEmpty(), "a landing that is down holds the sender, it is not dropped");

        Landing c = landing("c", lateHostPort, Map.of());
        assertTrue(sender.awaitLanded(TEN_SECONDS * 2), "landed once site c's landing is up: " + sender.landings());
        LandingTest.Received atB = reader(b, "reader-b");
        LandingTest.Received atC = reader(c, "reader-c");
        LandingTest.await("every record at both sites", () -> atB.values.size() == 2_000 && atC.values.size() == 2_000);
        assertEquals(LandingTest.range(0, 2_000), atB.values);
        assertEquals(LandingTest.range(0, 2_000), atC.values);
    }

    @Test
    void aFullLandingAtOneSiteHoldsTheSenderUntilItsReaderReleases() throws Exception {
        Landing b = landing("b", 0, Map.of());
        Landing c = landing("c", 0, Map.of("landing.generation-bytes", 1L << 20, "landing.max-stream-bytes", 2L << 20,
                "landing.retention-ms", 0L));
        Transport site = keep(Transport.start(LandingTest.transport(), "sender"));
        LandingSender sender = keep(LandingSender.open(site, sites(b.localAddress(), c.localAddress()), "orders/0",
                LandingGuarantee.AT_LEAST_ONCE, 7, 0, 0, holdForever()));
        long offered = 0;
        long pushedBackSince = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            byte[] r = LandingTest.record(offered);
            if (sender.offer(r, 0, r.length) == OutboundStream.ACCEPTED) {
                offered++;
                pushedBackSince = 0;
            } else if (pushedBackSince == 0) {
                pushedBackSince = System.nanoTime();
            } else if (System.nanoTime() - pushedBackSince > TimeUnit.MILLISECONDS.toNanos(500)) {
                break; // held back for half a second: site c's landing said full
            }
        }
        assertTrue(pushedBackSince != 0, "the sender was never held back");
        long journal = c.streams().get(0).journalBytes();
        assertTrue(journal <= (2L << 20) + 2 * 256 * 1024, "site c's journal " + journal + " bytes: beyond the bound and a window");

        // Site C's reader reads and releases what it read, as a receiving job does at its checkpoints: the sender goes on.
        Reader atC = subscribe(c, "reader-c");
        java.util.concurrent.ScheduledExecutorService releaser = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        keep(releaser::shutdownNow);
        releaser.scheduleWithFixedDelay(() -> atC.subscriber().release("orders/0", atC.got().values.size()), 0, 20,
                TimeUnit.MILLISECONDS);
        long more = offered + 1_000;
        LandingTest.offerAll(sender, offered, more);
        assertTrue(sender.awaitLanded(TEN_SECONDS * 2), "landed at both sites: " + sender.landings());
        LandingTest.Received atB = reader(b, "reader-b");
        LandingTest.await("every record at site b", () -> atB.values.size() == more);
        LandingTest.await("every record at site c", () -> atC.got().values.size() == more);
        assertEquals(LandingTest.range(0, more), atB.values);
        assertEquals(LandingTest.range(0, more), atC.got().values);
    }

    @Test
    void leaveBehindIsRefusedNamingWhy() {
        Transport site = keep(Transport.start(LandingTest.transport(), "sender"));
        MulticastSettings d = MulticastSettings.defaults();
        MulticastSettings leaveBehind = d.with(SlowDestination.LEAVE_BEHIND, d.maxLagBytes(), 0, d.failoverTimeoutNanos());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LandingSender.open(site,
                sites(new InetSocketAddress("127.0.0.1", 1), new InetSocketAddress("127.0.0.1", 2)), "orders/0",
                LandingGuarantee.EXACTLY_ONCE, 7, 0, 0, leaveBehind));
        assertTrue(e.getMessage().contains("multicast.slow-destination must be hold"), e.getMessage());
    }
}
