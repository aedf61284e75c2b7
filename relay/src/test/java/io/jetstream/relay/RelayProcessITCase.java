package io.jetstream.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.DeliveryHandler;
import io.jetstream.core.api.InboundEndpoint;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.StreamKey;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.api.Transport;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
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
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jetstream-relay.jar} as its own JVM: a stream through it and directly, its {@code /metrics}
 * read while it carries the stream, then the relay killed with SIGKILL mid-stream: the acknowledged
 * stream delivers every record once, in order.
 */
@Timeout(120)
class RelayProcessITCase {
    @TempDir
    Path dir;

    @Test
    void aStreamThroughTheRelayProcessLosesAndDuplicatesNothingWhenTheRelayIsKilled() throws Exception {
        Path jar = Path.of(System.getProperty("jetstream.relay.jar", "target/jetstream-relay.jar"));
        assertTrue(Files.isReadable(jar), jar + " is built in package, before this test");
        Path streamSecret = Files.writeString(dir.resolve("stream.secret"), "the stream's own secret, end to end");
        Path relaySecret = Files.writeString(dir.resolve("relay.secret"), "the relays' secret of this site");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process relay = new ProcessBuilder(java, "-jar", jar.toString(),
                "--set", "jetstream.relay.auth.secret-file=" + relaySecret,
                "--set", "jetstream.relay.bind-address=127.0.0.1",
                "--set", "jetstream.relay.port=0",
                "--set", "jetstream.relay.metrics-port=0",
                "--set", "jetstream.relay.metrics-log-interval-ms=1000")
                .redirectError(dir.resolve("relay.log").toFile()).start();
        try (Transport receiving = Transport.start(settings(Map.of("transport.auth.secret-file", streamSecret.toString())), "rx");
                Transport sending = Transport.start(settings(Map.of("transport.auth.secret-file", streamSecret.toString(),
                        "transport.relay.auth.secret-file", relaySecret.toString())), "tx")) {
            BufferedReader out = new BufferedReader(new InputStreamReader(relay.getInputStream(), StandardCharsets.UTF_8));
            String ready = out.readLine();
            while (ready != null && !ready.startsWith("READY ")) {
                ready = out.readLine();
            }
            assertTrue(ready != null && ready.startsWith("READY "), "the relay started: " + ready + "; its log: "
                    + Files.readString(dir.resolve("relay.log")));
            String[] ports = ready.split(" ");
            InetSocketAddress relayAddress = new InetSocketAddress("127.0.0.1", Integer.parseInt(ports[1]));
            int metricsPort = Integer.parseInt(ports[2]);

            Collector c = new Collector();
            InboundEndpoint endpoint = receiving.bind(0, c, t -> true, SequenceStore.inMemory());
            OutboundStream s = sending.openSender("s", StreamRoutes.via(new InetSocketAddress("127.0.0.1",
                    endpoint.localAddress().getPort()), List.of(relayAddress), StreamRoutes.RelayChoice.IN_ORDER), ControlListener.NONE);
            Awaitility.await("both routes ready").atMost(Duration.ofSeconds(30)).until(() -> s.metrics().routesInUse() == 2);
            int n = 20_000;
            JsonNode metrics = null;
            for (int i = 0; i < n; i++) {
                if (i == 5_000) {
                    Awaitility.await("the relay route acknowledged").atMost(Duration.ofSeconds(30))
                            .until(() -> s.metrics().bytesAcknowledged(1) > 0);
                    metrics = readMetrics(metricsPort);
                    relay.destroyForcibly(); // SIGKILL
                }
                offer(s, i);
                if (i % 8 == 7) {
                    s.flush();
                }
            }
            s.flush();
            Awaitility.await("all delivered").atMost(Duration.ofSeconds(60)).until(() -> c.size() >= n);
            s.close();
            c.assertExactlyInOrder(n);
            assertEquals(1, metrics.get("streams").size(), "one route through the relay: " + metrics);
            JsonNode route = metrics.get("streams").get(0);
            assertEquals("tx/s", route.get("label").asText(), metrics.toString());
            assertTrue(route.get("bytesIn").asLong() > 0 && route.get("bytesOut").asLong() > 0, metrics.toString());
            assertEquals(0, metrics.get("authenticationFailures").asLong(), metrics.toString());
        } finally {
            relay.destroyForcibly();
            relay.waitFor();
        }
    }

    private static JsonNode readMetrics(int port) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return new ObjectMapper().readTree(r.body());
    }

    private static void offer(OutboundStream s, long index) throws InterruptedException {
        byte[] record = new byte[200];
        ByteBuffer.wrap(record).putLong(index);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            int result = s.offer(7, record, 0, record.length);
            if (result == OutboundStream.ACCEPTED) {
                return;
            }
            assertTrue(result == OutboundStream.BACK_PRESSURED || result == OutboundStream.NOT_CONNECTED,
                    "offer of record " + index + " returned " + result);
            assertTrue(System.nanoTime() < deadline, "record " + index + " pushed back for 30 s");
            Thread.sleep(1);
        }
    }

    private static TransportSettings settings(Map<String, String> overrides) {
        Map<String, Object> raw = new HashMap<>();
        raw.put("jetstream.transport.bind-address", "127.0.0.1");
        raw.put("jetstream.transport.reconnect.min-backoff-ms", 20L);
        raw.put("jetstream.transport.reconnect.max-backoff-ms", 200L);
        raw.put("jetstream.transport.close-timeout-ms", 10_000L);
        raw.put("jetstream.transport.ring.enabled", false);
        raw.put("jetstream.transport.reliability", "acknowledged");
        raw.put("jetstream.batch.mode", "fixed");
        raw.put("jetstream.batch.fixed.target-bytes", 2048);
        overrides.forEach((k, v) -> raw.put("jetstream." + k, v));
        return TransportSettings.from(JetStreamConfig.load(ConfigScope.STANDALONE, raw, TransportSettings.GROUPS));
    }

    /** Record indexes in delivery order. */
    private static final class Collector implements DeliveryHandler {
        private final List<Long> indexes = new ArrayList<>();

        @Override
        public synchronized void deliver(StreamKey stream, long sequence, DeliveredBatch records) {
            records.forEach((target, buffer, offset, length) -> indexes.add(buffer.getLong(offset, ByteOrder.BIG_ENDIAN)));
        }

        synchronized int size() {
            return indexes.size();
        }

        synchronized void assertExactlyInOrder(int n) {
            for (int i = 0; i < indexes.size(); i++) {
                if (indexes.get(i) != i) {
                    throw new AssertionError("record " + i + " delivered as " + indexes.get(i) + " (" + indexes.size()
                            + " delivered, expected " + n + " once each in order)");
                }
            }
            assertEquals(n, indexes.size(), "records delivered");
        }
    }
}
