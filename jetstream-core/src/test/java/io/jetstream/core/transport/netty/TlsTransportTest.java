package io.jetstream.core.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
    }
}
