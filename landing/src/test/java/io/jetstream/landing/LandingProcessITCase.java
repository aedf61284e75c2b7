package io.jetstream.landing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jetstream.core.api.LandedRecordHandler;
import io.jetstream.core.api.LandingCommitter;
import io.jetstream.core.api.LandingGuarantee;
import io.jetstream.core.api.LandingSender;
import io.jetstream.core.api.LandingSubscriber;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.api.Transport;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.harness.FreePorts;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.agrona.DirectBuffer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jetstream-landing.jar} as its own JVM started with no JVM flag (the jar's manifest grants
 * the journal's module access): an exactly-once stream lands, is committed and read; the landing is
 * killed with SIGKILL mid-stream and started again on the same directory: every committed record
 * reaches the reader once, in order. A sender with the wrong secret is refused.
 */
@Timeout(150)
class LandingProcessITCase {
    private static final long TEN_SECONDS = TimeUnit.SECONDS.toNanos(10);

    @TempDir
    Path dir;

    private Process start(int port, Path secret) throws Exception {
        Path jar = Path.of(System.getProperty("jetstream.landing.jar", "target/jetstream-landing.jar"));
        assertTrue(Files.isReadable(jar), jar + " is built in package, before this test");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, "-jar", jar.toString(),
                "--set", "jetstream.transport.auth.secret-file=" + secret,
                "--set", "jetstream.transport.bind-address=127.0.0.1",
                "--set", "jetstream.landing.port=" + port,
                "--set", "jetstream.landing.directory=" + dir.resolve("landing"),
                "--set", "jetstream.landing.metrics-port=0",
                "--set", "jetstream.landing.head-interval-ms=50")
                .redirectError(ProcessBuilder.Redirect.appendTo(dir.resolve("landing.log").toFile())).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String ready = out.readLine();
        while (ready != null && !ready.startsWith("READY ")) {
            ready = out.readLine();
        }
        assertTrue(ready != null, "the landing did not start; its log: " + Files.readString(dir.resolve("landing.log")));
        metricsPort = Integer.parseInt(ready.split(" ")[2]);
        return p;
    }

    private int metricsPort;

    @Test
    void exactlyOnceAcrossALandingKilledAndRestarted() throws Exception {
        Path secret = Files.writeString(dir.resolve("secret"), "the two sites' shared secret");
        int port = FreePorts.unused();
        StreamRoutes to = StreamRoutes.direct(new InetSocketAddress("127.0.0.1", port));
        Process landing = start(port, secret);
        Received got = new Received();
        try (Transport site = Transport.start(settings(secret), "site-a");
                Transport reader = Transport.start(settings(secret), "site-b");
                LandingSender sender = LandingSender.open(site, to, "orders/0", LandingGuarantee.EXACTLY_ONCE, 0xA, 0, 0);
                LandingCommitter committer = LandingCommitter.open(site, to, "orders/0");
                LandingSubscriber sub = LandingSubscriber.open(reader, to, "reader-0", got, null)) {
            sub.subscribe("orders/0", 0);
            long epoch = 0;
            for (int i = 0; i < 30_000; i++) {
                offer(sender, i);
                if (i % 1_000 == 999) {
                    epoch++;
                    assertEquals(OutboundStream.ACCEPTED, sender.mark(epoch));
                    assertTrue(sender.awaitLanded(TimeUnit.SECONDS.toNanos(30)), "epoch " + epoch + " landed");
                    long e = epoch;
                    Awaitility.await("commit of epoch " + e).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                            .until(() -> committer.commit("orders/0", 0xA, e, TEN_SECONDS / 10));
                }
                if (i == 15_000) {
                    JsonNode metrics = readMetrics(metricsPort);
                    JsonNode stream = metrics.get("streams").get(0);
                    assertEquals("orders/0", stream.get("name").asText(), metrics.toString());
                    assertEquals("EXACTLY_ONCE", stream.get("guarantee").asText(), metrics.toString());
                    assertTrue(stream.get("landed").asLong() >= 15_000, metrics.toString());
                    landing.destroyForcibly(); // SIGKILL
                    landing.waitFor();
                    landing = start(port, secret);
                }
            }
            Awaitility.await("30000 records read").atMost(Duration.ofSeconds(60)).until(() -> got.size() >= 30_000);
            got.assertExactlyInOrder(30_000);
        } finally {
            landing.destroy();
            assertTrue(landing.waitFor(20, TimeUnit.SECONDS), "SIGTERM closes the landing");
        }
    }

    @Test
    void aSenderWithTheWrongSecretIsRefused() throws Exception {
        Path secret = Files.writeString(dir.resolve("secret"), "the two sites' shared secret");
        Path wrong = Files.writeString(dir.resolve("wrong"), "another site's secret, not ours");
        int port = FreePorts.unused();
        Process landing = start(port, secret);
        try (Transport site = Transport.start(settings(wrong), "site-a");
                LandingSender sender = LandingSender.open(site, StreamRoutes.direct(new InetSocketAddress("127.0.0.1", port)),
                        "orders/0", LandingGuarantee.AT_LEAST_ONCE, 0xA, 0, 0)) {
            assertFalse(sender.awaitLanded(TimeUnit.SECONDS.toNanos(3)), "nothing lands without the secret");
            assertFalse(sender.landings().get(0).connected());
            Awaitility.await("the landing logs the refusal").atMost(Duration.ofSeconds(10))
                    .until(() -> Files.readString(dir.resolve("landing.log")).contains("authentication failed"));
            String refusal = sender.landings().get(0).lastRefusal();
            assertTrue(refusal.contains("authentication failed"), "the sender knows why: " + refusal);
        } finally {
            landing.destroy();
            landing.waitFor(20, TimeUnit.SECONDS);
        }
    }

    private static void offer(LandingSender s, long index) throws InterruptedException {
        byte[] record = ByteBuffer.allocate(64).putLong(index).array();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            int result = s.offer(record, 0, record.length);
            if (result == OutboundStream.ACCEPTED) {
                return;
            }
            assertEquals(OutboundStream.BACK_PRESSURED, result, "offer of record " + index);
            assertTrue(System.nanoTime() < deadline, "record " + index + " pushed back for 60 s");
            Thread.sleep(1);
        }
    }

    private static JsonNode readMetrics(int port) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return new ObjectMapper().readTree(r.body());
    }

    private static TransportSettings settings(Path secret) {
        Map<String, Object> raw = new HashMap<>();
        raw.put("jetstream.transport.bind-address", "127.0.0.1");
        raw.put("jetstream.transport.reconnect.min-backoff-ms", 20L);
        raw.put("jetstream.transport.reconnect.max-backoff-ms", 200L);
        raw.put("jetstream.transport.ring.enabled", false);
        raw.put("jetstream.transport.reliability", "acknowledged");
        raw.put("jetstream.transport.auth.secret-file", secret.toString());
        return TransportSettings.from(JetStreamConfig.load(ConfigScope.STANDALONE, raw, TransportSettings.GROUPS));
    }

    /** Record indexes in the order the reader got them. */
    private static final class Received implements LandedRecordHandler {
        private final List<Long> indexes = new ArrayList<>();

        @Override
        public synchronized void onRecord(String stream, long ordinal, long sentMillis, DirectBuffer buffer, int offset, int length) {
            indexes.add(buffer.getLong(offset, ByteOrder.BIG_ENDIAN));
        }

        @Override
        public void onHead(String stream, long landed, long released, long oldestUnreleasedMillis, long bytesBehind) {}

        @Override
        public void onRefused(String stream, String reason) {
            throw new AssertionError("refused: " + reason);
        }

        synchronized int size() {
            return indexes.size();
        }

        synchronized void assertExactlyInOrder(int n) {
            for (int i = 0; i < indexes.size(); i++) {
                if (indexes.get(i) != i) {
                    throw new AssertionError("record " + i + " read as " + indexes.get(i) + " (" + indexes.size()
                            + " read, expected " + n + " once each in order)");
                }
            }
            assertEquals(n, indexes.size(), "records read");
        }
    }
}
