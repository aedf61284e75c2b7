package io.jetstream.core.internal.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** The contract over TLS (JDK provider), with a key pair made by the JDK's keytool for this run. */
class TlsTransportTest extends TransportContractTest {
    @TempDir
    static Path stores;

    @BeforeAll
    static void makeStores() throws Exception {
        String kt = TransportTestSupport.keytool().toString();
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

    @Override
    Map<String, Object> path() {
        return Map.of("transport.tls.enabled", true, "transport.ring.enabled", false,
                "transport.tls.key-store", stores.resolve("server.p12").toString(),
                "transport.tls.key-store-password", "changeit",
                "transport.tls.trust-store", stores.resolve("trust.p12").toString(),
                "transport.tls.trust-store-password", "changeit");
    }

    @Override
    void assertPath(StreamSender sender) {
        assertEquals(0, sender.ringBatches(), "batches over the ring");
        for (String session : sender.tlsSessions()) {
            assertTrue(session.startsWith("TLSv1."), "every route negotiated TLS: " + session);
        }
    }

    @org.junit.jupiter.api.Test
    void tlsIsNegotiatedOnBothEnds() throws Exception {
        TransportTestSupport.Collector c = new TransportTestSupport.Collector();
        StreamReceiver r = transport("receiver", Map.of()).bind(0, c, t -> true, io.jetstream.core.api.SequenceStore.inMemory());
        StreamSender s = transport("sender", Map.of()).openSender("s",
                new java.net.InetSocketAddress("127.0.0.1", r.localAddress().getPort()), io.jetstream.core.api.ControlListener.NONE);
        TransportTestSupport.await("ready", 10, s::isReady);
        String sent = s.tlsSessions()[0];
        TransportTestSupport.await("the receiver's session", 10, () -> !r.tlsSessions().isEmpty());
        String received = r.tlsSessions().get(0);
        assertTrue(sent.matches("TLSv1\\.[23] TLS_\\w+"), "sender side: " + sent);
        assertEquals(sent, received, "both ends agree on protocol and cipher suite");
    }

    @org.junit.jupiter.api.Test
    void aSenderWithTlsButNoTrustStoreRefusesToStartRatherThanSendPlaintext() {
        Map<String, Object> noTrust = new java.util.HashMap<>(path());
        noTrust.remove("transport.tls.trust-store");
        noTrust.remove("transport.tls.trust-store-password");
        NettyTransport t = new NettyTransport(TransportTestSupport.settings(noTrust), "sender");
        try {
            IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                    () -> t.openSender("s", new java.net.InetSocketAddress("127.0.0.1", 9), io.jetstream.core.api.ControlListener.NONE));
            assertTrue(e.getMessage().contains("transport.tls.trust-store") && e.getMessage().contains("plaintext"), e.getMessage());
        } finally {
            t.close();
        }
    }

    @org.junit.jupiter.api.Test
    void aReceiverWhoseCertificateIsNotTrustedGetsNothing() throws Exception {
        String kt = TransportTestSupport.keytool().toString();
        run(kt, "-genkeypair", "-alias", "rogue", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2", "-keystore", stores.resolve("rogue.p12").toString(),
                "-storetype", "PKCS12", "-storepass", "changeit", "-keypass", "changeit");
        Map<String, Object> rogue = Map.of("transport.tls.key-store", stores.resolve("rogue.p12").toString());
        TransportTestSupport.Collector c = new TransportTestSupport.Collector();
        StreamReceiver r = transport("rogue", rogue).bind(0, c, t -> true, io.jetstream.core.api.SequenceStore.inMemory());
        StreamSender s = transport("sender", Map.of("transport.reliability", "acknowledged")).openSender("s",
                new java.net.InetSocketAddress("127.0.0.1", r.localAddress().getPort()), io.jetstream.core.api.ControlListener.NONE);
        byte[] rec = TransportTestSupport.record(0, 64);
        s.offer(0, rec, 0, rec.length);
        s.flush();
        TransportTestSupport.await("TLS handshakes refused", 10, () -> s.metrics().connectFailures() >= 2);
        assertFalse(s.isReady(), "never ready with an untrusted receiver");
        assertEquals(0, c.size(), "the untrusted receiver got nothing");
        assertEquals(0, r.metrics().batchesReceived());
    }
}
