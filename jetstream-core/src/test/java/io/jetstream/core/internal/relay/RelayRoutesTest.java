package io.jetstream.core.internal.relay;

import static io.jetstream.core.internal.relay.RelayTestSupport.await;
import static io.jetstream.core.internal.relay.RelayTestSupport.record;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.api.StreamRoutes.RelayChoice;
import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.core.internal.transport.netty.NettyTransport;
import io.jetstream.core.internal.transport.netty.StreamReceiver;
import io.jetstream.core.internal.transport.netty.StreamSender;
import io.jetstream.core.internal.transport.protocol.ProtocolDescriptor;
import io.netty.buffer.ByteBuf;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Streams through relays on loopback: the relay handshake, forwarding, and every way a relay can fail a route. */
@Timeout(120)
class RelayRoutesTest {
    @TempDir
    Path dir;

    private Path streamSecret;
    private Path relaySecret;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void secrets() throws Exception {
        streamSecret = RelayTestSupport.secret(dir, "stream.secret", "the stream's own secret, end to end");
        relaySecret = RelayTestSupport.secret(dir, "relay.secret", "the relays' secret of this site");
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private <T extends AutoCloseable> T keep(T c) {
        open.add(c);
        return c;
    }

    private Map<String, Object> senderKeys(Map<String, Object> more) {
        Map<String, Object> m = new java.util.HashMap<>(Map.of("transport.auth.secret-file", streamSecret.toString(),
                "transport.relay.auth.secret-file", relaySecret.toString()));
        m.putAll(more);
        return m;
    }

    private RelayServer relay(FrameInterceptor interceptor, Map<String, Object> more) {
        Map<String, Object> m = new java.util.HashMap<>(Map.of("relay.auth.secret-file", relaySecret.toString()));
        m.putAll(more);
        return keep(RelayServer.start(RelayTestSupport.relay(m), interceptor));
    }

    private StreamReceiver receiver(RelayTestSupport.Collector c, int port) throws Exception {
        NettyTransport t = keep(new NettyTransport(RelayTestSupport.transport(Map.of("transport.auth.secret-file",
                streamSecret.toString())), "receiver"));
        return t.bind(port, c, x -> true, SequenceStore.inMemory());
    }

    private StreamSender sender(InetSocketAddress receiver, List<InetSocketAddress> relays, Map<String, Object> more) {
        NettyTransport t = keep(new NettyTransport(RelayTestSupport.transport(senderKeys(more)), "sender"));
        return t.openSender("s", StreamRoutes.via(receiver, relays, RelayChoice.IN_ORDER), ControlListener.NONE);
    }

    /** Sends records 0..n-1 (blocking on back-pressure), flushing every 8; {@code at} runs before record i. */
    private static void send(StreamSender s, int n, IntConsumer at) throws Exception {
        for (int i = 0; i < n; i++) {
            at.accept(i);
            byte[] r = record(i, 200);
            s.send(7, r, 0, r.length);
            if (i % 8 == 7) {
                s.flush();
            }
        }
        s.flush();
    }

    private static InetSocketAddress loopback(InetSocketAddress a) {
        return new InetSocketAddress("127.0.0.1", a.getPort());
    }

    @Test
    void everyRecordArrivesOnceInOrderOverTheDirectRouteAndThreeRelays() throws Exception {
        RelayTestSupport.Collector c = new RelayTestSupport.Collector();
        StreamReceiver r = receiver(c, 0);
        List<InetSocketAddress> relays = List.of(relay(FrameInterceptor.NONE, Map.of()).localAddress(),
                relay(FrameInterceptor.NONE, Map.of()).localAddress(), relay(FrameInterceptor.NONE, Map.of()).localAddress());
        StreamSender s = sender(loopback(r.localAddress()), relays, Map.of());
        await("all four routes ready", 20, () -> s.metrics().routesInUse() == 4, () -> s.metrics().toString());
        int n = 4_000;
        send(s, n, i -> {});
        await("all delivered", 30, () -> c.size() >= n, () -> c.size() + " of " + n);
        s.close();
        c.assertExactlyInOrder(n);
        for (int route = 0; route < 4; route++) {
            assertTrue(s.metrics().bytesAcknowledged(route) > 0, "route " + route + " carried batches: " + s.metrics());
        }
    }

    @Test
    void aRelayWithAnotherSecretRefusesTheRouteAndTheStreamGoesOnDirect() throws Exception {
        Path other = RelayTestSupport.secret(dir, "other.secret", "another site's relay secret!!");
        RelayTestSupport.Collector c = new RelayTestSupport.Collector();
        StreamReceiver r = receiver(c, 0);
        RelayServer wrong = relay(FrameInterceptor.NONE, Map.of("relay.auth.secret-file", other.toString()));
        StreamSender s = sender(loopback(r.localAddress()), List.of(wrong.localAddress()), Map.of());
        int n = 1_000;
        send(s, n, i -> {});
        await("all delivered", 30, () -> c.size() >= n, () -> c.size() + " of " + n);
        await("the refusal counted", 10, () -> wrong.authenticationFailures() > 0 && s.metrics().relayFailures() > 0,
                () -> s.metrics().toString());
        s.close();
        c.assertExactlyInOrder(n);
        assertEquals(0, s.metrics().bytesAcknowledged(1), "the refused relay carried nothing");
        assertTrue(wrong.streams().isEmpty(), "the relay forwards nothing");
    }

    @Test
    void aRelayThatCannotReachTheReceiverSaysSoAndTheRouteIsRetriedUntilItCan() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            port = free.getLocalPort();
        }
        RelayServer relay = relay(FrameInterceptor.NONE, Map.of("relay.connect-timeout-ms", 1_000L));
        StreamSender s = sender(new InetSocketAddress("127.0.0.1", port), List.of(relay.localAddress()), Map.of());
        await("the relay cannot reach the receiver", 20, () -> relay.unreachableDestinations() > 0 && s.metrics().relayFailures() > 0,
                () -> s.metrics().toString());
        RelayTestSupport.Collector c = new RelayTestSupport.Collector();
        receiver(c, port);
        await("the relay route reconnects once the receiver is up", 20, () -> s.metrics().routesInUse() == 2,
                () -> s.metrics().toString());
        int n = 1_000;
        send(s, n, i -> {});
        await("all delivered", 30, () -> c.size() >= n, () -> c.size() + " of " + n);
        assertTrue(s.metrics().bytesAcknowledged(1) > 0, "the relay route carried batches: " + s.metrics());
        s.close();
        c.assertExactlyInOrder(n);
    }

    @Test
    void aRelayClosedMidStreamLosesAndDuplicatesNothingAndIsUsedAgainOnceRestarted() throws Exception {
        RelayTestSupport.Collector c = new RelayTestSupport.Collector();
        c.beforeEachBatch = () -> sleepQuietly(1); // keep batches in flight
        StreamReceiver r = receiver(c, 0);
        RelayServer first = relay(FrameInterceptor.NONE, Map.of());
        int relayPort = first.localAddress().getPort();
        StreamSender s = sender(loopback(r.localAddress()), List.of(first.localAddress()), Map.of());
        await("both routes ready", 20, () -> s.metrics().routesInUse() == 2, () -> s.metrics().toString());
        int n = 6_000;
        RelayServer[] second = new RelayServer[1];
        send(s, n, i -> {
            if (i == 2_000) {
                first.close();
            } else if (i == 3_000) {
                second[0] = relay(FrameInterceptor.NONE, Map.of("relay.port", relayPort));
            }
        });
        await("all delivered", 30, () -> c.size() >= n, () -> c.size() + " of " + n);
        await("the restarted relay carries the route", 20, () -> !second[0].streams().isEmpty(), () -> s.metrics().toString());
        long before = s.metrics().bytesAcknowledged(1);
        send(s, 0, i -> {});
        s.close();
        c.assertExactlyInOrder(n);
        assertTrue(before > 0, "the relay route carried batches");
    }

    @Test
    void aDestinationRestartedMidStreamReceivesEverythingOnceThroughTheRelayAndDirect() throws Exception {
        RelayTestSupport.Collector c = new RelayTestSupport.Collector();
        c.beforeEachBatch = () -> sleepQuietly(1); // keep batches in flight
        SequenceStore store = SequenceStore.inMemory(); // survives the receiver, as a persistent store would
        NettyTransport receiving = keep(new NettyTransport(RelayTestSupport.transport(Map.of("transport.auth.secret-file",
                streamSecret.toString(), "transport.reliability", "acknowledged")), "receiver"));
        StreamReceiver first = receiving.bind(0, c, x -> true, store);
        int port = first.localAddress().getPort();
        RelayServer relay = relay(FrameInterceptor.NONE, Map.of());
        StreamSender s = sender(loopback(first.localAddress()), List.of(relay.localAddress()), Map.of());
        await("both routes ready", 20, () -> s.metrics().routesInUse() == 2, () -> s.metrics().toString());
        int n = 6_000;
        StreamReceiver[] again = new StreamReceiver[1];
        send(s, n, i -> {
            try {
                if (i == 2_000) {
                    first.close();
                } else if (i == 2_500) {
                    again[0] = receiving.bind(port, c, x -> true, store);
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await("all delivered", 30, () -> c.size() >= n, () -> c.size() + " of " + n);
        await("the relay route reconnects to the restarted destination", 20, () -> s.metrics().routesInUse() == 2,
                () -> s.metrics().toString());
        s.close();
        c.assertExactlyInOrder(n);
        assertTrue(s.metrics().reconnects() >= 2, "both routes reconnected: " + s.metrics());
        again[0].close();
    }

    @Test
    void aHungRelayIsClosedAfterTheRouteStallTimeoutAndNothingIsLostOrDuplicated() throws Exception {
        AtomicBoolean hung = new AtomicBoolean();
        FrameInterceptor hangs = new FrameInterceptor() {
            @Override
            public ByteBuf toDestination(ByteBuf frame) {
                if (hung.get()) {
                    frame.release(); // alive, connected, forwarding nothing: what a SIGSTOPped relay looks like
                    return null;
                }
                return frame;
            }

            @Override
            public ByteBuf toSender(ByteBuf frame) {
                return toDestination(frame);
            }
        };
        RelayTestSupport.Collector c = new RelayTestSupport.Collector();
        StreamReceiver r = receiver(c, 0);
        RelayServer relay = relay(hangs, Map.of());
        StreamSender s = sender(loopback(r.localAddress()), List.of(relay.localAddress()),
                Map.of("transport.route-stall-timeout-ms", 300L));
        await("both routes ready", 20, () -> s.metrics().routesInUse() == 2, () -> s.metrics().toString());
        int n = 3_000;
        send(s, n, i -> {
            if (i == 1_000) {
                hung.set(true);
            }
        });
        await("all delivered", 30, () -> c.size() >= n, () -> c.size() + " of " + n);
        await("the stall detected", 10, () -> s.metrics().routeStalls() > 0, () -> s.metrics().toString());
        s.close();
        c.assertExactlyInOrder(n);
    }

    @Test
    void aBatchCorruptedByARelayIsCountedAtTheReceiverAndResent() throws Exception {
        AtomicBoolean corruptOne = new AtomicBoolean(true);
        FrameInterceptor corrupts = new FrameInterceptor() {
            @Override
            public ByteBuf toDestination(ByteBuf frame) {
                int at = frame.readerIndex();
                if (frame.getByte(at + ProtocolDescriptor.LENGTH_FIELD) == ProtocolDescriptor.BATCH
                        && frame.readableBytes() > ProtocolDescriptor.BATCH_FRAME_OVERHEAD + 20 && corruptOne.getAndSet(false)) {
                    int payload = at + ProtocolDescriptor.BATCH_FRAME_OVERHEAD + ProtocolDescriptor.RECORD_HEADER_LENGTH + 10;
                    frame.setByte(payload, frame.getByte(payload) ^ 0x5A);
                }
                return frame;
            }
        };
        RelayTestSupport.Collector c = new RelayTestSupport.Collector();
        StreamReceiver r = receiver(c, 0);
        RelayServer relay = relay(corrupts, Map.of());
        StreamSender s = sender(loopback(r.localAddress()), List.of(relay.localAddress()), Map.of());
        await("both routes ready", 20, () -> s.metrics().routesInUse() == 2, () -> s.metrics().toString());
        int n = 2_000;
        send(s, n, i -> {});
        await("all delivered", 30, () -> c.size() >= n, () -> c.size() + " of " + n);
        s.close();
        c.assertExactlyInOrder(n);
        assertEquals(false, corruptOne.get(), "a batch went through the relay");
        assertEquals(1, r.metrics().checksumFailures(), r.metrics().toString());
    }

    @Test
    void aSlowReceiverFillsTheRelayOnlyUpToItsBoundAndPushesBackOnTheSender() throws Exception {
        long bound = 64 << 10;
        AtomicBoolean slow = new AtomicBoolean(true);
        RelayTestSupport.Collector c = new RelayTestSupport.Collector();
        c.beforeEachBatch = () -> {
            while (slow.get()) {
                sleepQuietly(5);
            }
        };
        StreamReceiver r = receiver(c, 0);
        RelayServer relay = relay(FrameInterceptor.NONE, Map.of("relay.stream-memory-bytes", bound));
        // A window far larger than the relay's bound: only the relay's own back-pressure can hold the relay route.
        StreamSender s = sender(loopback(r.localAddress()), List.of(relay.localAddress()),
                Map.of("transport.window-bytes", 64 << 20, "transport.memory-bytes", 96L << 20,
                        "transport.route-stall-timeout-ms", 0L));
        await("both routes ready", 20, () -> s.metrics().routesInUse() == 2, () -> s.metrics().toString());
        long maxQueued = 0;
        boolean pushedBack = false;
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        int sent = 0;
        byte[] payload = record(0, 16 << 10);
        while (!pushedBack && System.nanoTime() < deadline) {
            int result = s.offer(7, record(sent, payload.length), 0, payload.length);
            if (result == StreamSender.ACCEPTED) {
                sent++;
            } else {
                sleepQuietly(1);
            }
            for (var st : relay.streams()) {
                maxQueued = Math.max(maxQueued, st.queuedBytes());
                // the relay stopped reading: its sender-side socket fills and TCP pushes back on the sender
                pushedBack |= st.queuedBytes() > 0 && s.isBackPressured();
            }
        }
        slow.set(false);
        assertTrue(pushedBack, "the sender was pushed back while the relay held data; max queued " + maxQueued);
        int frame = 64 << 10; // larger than any BATCH here (one 16 KiB record each)
        assertTrue(maxQueued <= bound + frame + (64 << 10), "the relay queued " + maxQueued + " B; bound " + bound
                + " + one frame + one read");
        s.flush();
        int n = sent;
        await("all delivered", 60, () -> c.size() >= n, () -> c.size() + " of " + n);
        s.close();
        c.assertExactlyInOrder(n);
    }

    @Test
    void anAcknowledgementForgedByARelayIsDetectedAndNothingIsLost() throws Exception {
        AtomicBoolean forgeOne = new AtomicBoolean(false);
        FrameInterceptor forges = new FrameInterceptor() {
            @Override
            public ByteBuf toSender(ByteBuf frame) {
                int at = frame.readerIndex();
                if (frame.getByte(at + ProtocolDescriptor.LENGTH_FIELD) == ProtocolDescriptor.ACK && forgeOne.getAndSet(false)) {
                    int watermark = at + ProtocolDescriptor.LENGTH_FIELD + 1;
                    frame.setLong(watermark, frame.getLong(watermark) + 50); // "the receiver has 50 batches more"
                }
                return frame;
            }
        };
        RelayTestSupport.Collector c = new RelayTestSupport.Collector();
        c.beforeEachBatch = () -> sleepQuietly(1);
        StreamReceiver r = receiver(c, 0);
        RelayServer relay = relay(forges, Map.of());
        StreamSender s = sender(loopback(r.localAddress()), List.of(relay.localAddress()), Map.of());
        await("both routes ready", 20, () -> s.metrics().routesInUse() == 2, () -> s.metrics().toString());
        int n = 3_000;
        send(s, n, i -> {
            if (i == 500) {
                forgeOne.set(true);
            }
        });
        await("all delivered", 30, () -> c.size() >= n, () -> c.size() + " of " + n);
        await("the forgery detected", 10, () -> s.metrics().relayFailures() > 0, () -> s.metrics().toString());
        s.close();
        assertEquals(false, forgeOne.get(), "an acknowledgement went through the relay after the hook was armed");
        c.assertExactlyInOrder(n);
    }

    @Test
    void misconfigurationsAreRefusedAtStart() throws Exception {
        InvalidConfigurationException noSecret = assertThrows(InvalidConfigurationException.class,
                () -> RelayTestSupport.relay(Map.of()));
        assertTrue(noSecret.getMessage().contains("jetstream.relay.auth.secret-file"), noSecret.getMessage());
        Path shortSecret = RelayTestSupport.secret(dir, "short.secret", "too short");
        InvalidConfigurationException tooShort = assertThrows(InvalidConfigurationException.class,
                () -> RelayTestSupport.relay(Map.of("relay.auth.secret-file", shortSecret.toString())));
        assertTrue(tooShort.getMessage().contains("at least 16"), tooShort.getMessage());
        InvalidConfigurationException tlsNoStores = assertThrows(InvalidConfigurationException.class,
                () -> RelayTestSupport.relay(Map.of("relay.auth.secret-file", relaySecret.toString(), "relay.tls.enabled", true)));
        assertTrue(tlsNoStores.getMessage().contains("jetstream.relay.tls.key-store"), tlsNoStores.getMessage());
        InvalidConfigurationException same = assertThrows(InvalidConfigurationException.class,
                () -> RelayTestSupport.transport(Map.of("transport.auth.secret-file", streamSecret.toString(),
                        "transport.relay.auth.secret-file", RelayTestSupport.secret(dir, "copy.secret",
                                "the stream's own secret, end to end").toString())));
        assertTrue(same.getMessage().contains("transport.relay.auth.secret-file"), same.getMessage());
        NettyTransport noRelaySecret = keep(new NettyTransport(RelayTestSupport.transport(Map.of()), "sender"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> noRelaySecret.openSender("s",
                StreamRoutes.via(new InetSocketAddress("127.0.0.1", 9), List.of(new InetSocketAddress("127.0.0.1", 10)),
                        RelayChoice.IN_ORDER), ControlListener.NONE));
        assertTrue(e.getMessage().contains("transport.relay.auth.secret-file"), e.getMessage());
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

}
