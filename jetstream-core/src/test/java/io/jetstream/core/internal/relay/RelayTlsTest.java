package io.jetstream.core.internal.relay;

import static io.jetstream.core.internal.relay.RelayTestSupport.await;
import static io.jetstream.core.internal.relay.RelayTestSupport.record;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.internal.transport.netty.NettyTransport;
import io.jetstream.core.internal.transport.netty.StreamReceiver;
import io.jetstream.core.internal.transport.netty.StreamSender;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A stream through a relay with TLS on both legs: sender → relay (the relay's certificate), relay → receiver (the receiver's). */
@Timeout(120)
class RelayTlsTest {
    @TempDir
    static Path stores;

    @BeforeAll
    static void makeStores() throws Exception {
        String kt = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(kt, "-genkeypair", "-alias", "jetstream", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2", "-keystore", stores.resolve("server.p12").toString(),
                "-storetype", "PKCS12", "-storepass", "changeit", "-keypass", "changeit");
        run(kt, "-exportcert", "-alias", "jetstream", "-keystore", stores.resolve("server.p12").toString(), "-storepass",
                "changeit", "-file", stores.resolve("server.cer").toString());
        run(kt, "-importcert", "-noprompt", "-alias", "jetstream", "-file", stores.resolve("server.cer").toString(),
                "-keystore", stores.resolve("trust.p12").toString(), "-storetype", "PKCS12", "-storepass", "changeit");
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), "keytool failed: " + out);
    }

    @Test
    void aStreamCrossesARelayWithTlsOnBothLegs() throws Exception {
        Path streamSecret = RelayTestSupport.secret(stores, "stream.secret", "the stream's own secret, end to end");
        Path relaySecret = RelayTestSupport.secret(stores, "relay.secret", "the relays' secret of this site");
        Map<String, Object> tls = Map.of("transport.tls.enabled", true,
                "transport.tls.key-store", stores.resolve("server.p12").toString(), "transport.tls.key-store-password", "changeit",
                "transport.tls.trust-store", stores.resolve("trust.p12").toString(), "transport.tls.trust-store-password", "changeit");
        Map<String, Object> rx = new HashMap<>(tls);
        rx.put("transport.auth.secret-file", streamSecret.toString());
        Map<String, Object> tx = new HashMap<>(rx);
        tx.put("transport.relay.auth.secret-file", relaySecret.toString());
        RelayTestSupport.Collector c = new RelayTestSupport.Collector();
        try (NettyTransport receiving = new NettyTransport(RelayTestSupport.transport(rx), "receiver");
                NettyTransport sending = new NettyTransport(RelayTestSupport.transport(tx), "sender");
                RelayServer relay = RelayServer.start(RelayTestSupport.relay(Map.of("relay.auth.secret-file", relaySecret.toString(),
                        "relay.tls.enabled", true,
                        "relay.tls.key-store", stores.resolve("server.p12").toString(), "relay.tls.key-store-password", "changeit",
                        "relay.tls.trust-store", stores.resolve("trust.p12").toString(), "relay.tls.trust-store-password", "changeit")),
                        FrameInterceptor.NONE)) {
            StreamReceiver r = receiving.bind(0, c, t -> true, SequenceStore.inMemory());
            StreamSender s = sending.openSender("s", StreamRoutes.via(new InetSocketAddress("127.0.0.1", r.localAddress().getPort()),
                    List.of(relay.localAddress()), StreamRoutes.RelayChoice.IN_ORDER), ControlListener.NONE);
            await("both routes ready", 20, () -> s.metrics().routesInUse() == 2, () -> s.metrics().toString());
            for (String session : s.tlsSessions()) {
                assertTrue(session.startsWith("TLSv1."), "the sender's leg of every route negotiated TLS: " + session);
            }
            int n = 2_000;
            for (int i = 0; i < n; i++) {
                byte[] rec = record(i, 200);
                s.send(7, rec, 0, rec.length);
            }
            s.flush();
            await("all delivered", 30, () -> c.size() >= n, () -> c.size() + " of " + n);
            await("the relay route acknowledged", 10, () -> s.metrics().bytesAcknowledged(1) > 0, () -> s.metrics().toString());
            assertTrue(r.tlsSessions().stream().allMatch(t -> t.startsWith("TLSv1.")), "the receiver's legs: " + r.tlsSessions());
            s.close();
            c.assertExactlyInOrder(n);
        }
    }
}
