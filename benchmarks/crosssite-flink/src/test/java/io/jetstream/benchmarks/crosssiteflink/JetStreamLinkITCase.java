package io.jetstream.benchmarks.crosssiteflink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * JetStream's link on loopback with the benchmark's own pieces, every one a process of its own: the
 * landing ({@code jetstream-landing.jar}, started with no JVM flag), the receiving and the sending
 * Flink job (CrossSiteJobMain, a MiniCluster each, parallelism 2, started together: the source reads what
 * landed before it subscribed). 20,000 events of 64 bytes exactly once: every one arrives once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JetStreamLinkITCase {
    private static final int EVENTS = 20_000;

    @TempDir
    static Path work;

    private Process landing;
    private int port;
    private Path secret;

    @BeforeAll
    void startLanding() throws Exception {
        System.setProperty(JavaProcesses.EXTRA_FLAGS_PROPERTY, "-XX:TieredStopAtLevel=1");
        Path jar = Path.of(System.getProperty("jetstream.landing.jar", "../../landing/target/jetstream-landing.jar"));
        assertTrue(Files.isRegularFile(jar), jar + " is built (package) before this module");
        secret = Files.writeString(work.resolve("secret"), "the two sites' shared secret");
        port = freePort();
        Path log = work.resolve("landing.log");
        landing = ProcessLauncher.local().start(List.of(JavaProcesses.java(), "-Xmx256m", "-jar", jar.toString(),
                "--set", "jetstream.transport.bind-address=127.0.0.1",
                "--set", "jetstream.transport.auth.secret-file=" + secret,
                "--set", "jetstream.landing.port=" + port,
                "--set", "jetstream.landing.directory=" + work.resolve("landing-data")), log);
        JavaProcesses.awaitLine(landing, log, "READY", 60);
    }

    @AfterAll
    void stopLanding() throws Exception {
        System.clearProperty(JavaProcesses.EXTRA_FLAGS_PROPERTY);
        if (landing != null) {
            JavaProcesses.stop(landing);
        }
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void exactlyOnceDeliversEveryEventOnce() throws Exception {
        List<String> common = List.of("--via", JetStreamLink.NAME, "--guarantee", Guarantee.EXACTLY_ONCE.label(), "--parallelism", "2",
                "--checkpoint-interval-ms", "1000", "--link", JetStreamLink.LANDING + "=127.0.0.1:" + port,
                "--link", JetStreamLink.STREAM + "=eo", "--link", "jetstream.transport.auth.secret-file=" + secret,
                "--link", "jetstream.transport.bind-address=127.0.0.1");
        List<String> send = new ArrayList<>(common);
        send.addAll(List.of("--rate", "10000", "--records", Integer.toString(EVENTS), "--record-bytes", "64"));
        List<String> receive = new ArrayList<>(common);
        receive.addAll(List.of("--expect-records", Integer.toString(EVENTS), "--settle-s", "1", "--idle-s", "60", "--duration-s", "180"));
        JobPair.Result r = JobPair.run(Placement.loopback(), Placement.loopback(), send, receive, work.resolve("eo"), "eo", 200, false);
        assertEquals(EVENTS, r.sender().path("records").asLong(), "the sending job generated");
        assertEquals(0, r.missing(), () -> "missing; see " + r.receiverLog());
        assertEquals(EVENTS, r.distinct(), () -> "distinct; see " + r.receiverLog());
        assertEquals(0, r.duplicated(), () -> "duplicated; see " + r.receiverLog());
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
