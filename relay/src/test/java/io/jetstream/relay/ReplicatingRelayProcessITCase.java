package io.jetstream.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.InboundEndpoint;
import io.jetstream.core.api.MulticastDestination;
import io.jetstream.core.api.MulticastDestinationStats;
import io.jetstream.core.api.MulticastDestinationStats.State;
import io.jetstream.core.api.MulticastReceiver;
import io.jetstream.core.api.MulticastSettings;
import io.jetstream.core.api.MulticastStream;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.api.Transport;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jetstream-relay.jar} as a destination site's replicating node, in its own JVM: a multicast stream
 * reaches the site's two receivers through it; the node is killed with SIGKILL mid-stream; the sender sends
 * to the receivers directly from the oldest record the node had not confirmed, and each receiver delivers
 * every record once, in order.
 */
@Timeout(120)
class ReplicatingRelayProcessITCase {
    @TempDir
    Path dir;

    @Test
    void aReplicatingRelayKilledMidStreamLosesAndDuplicatesNothing() throws Exception {
        Path jar = Path.of(System.getProperty("jetstream.relay.jar", "target/jetstream-relay.jar"));
        assertTrue(Files.isReadable(jar), jar + " is built in package, before this test");
        Path relaySecret = Files.writeString(dir.resolve("relay.secret"), "the relays' secret of this site");
        try (Transport receiving = Transport.start(settings(), "site-b-receivers");
                Transport sending = Transport.start(settings(), "site-a")) {
            Receiver b1 = new Receiver(receiving);
            Receiver b2 = new Receiver(receiving);
            String destinations = "127.0.0.1:" + b1.endpoint.localAddress().getPort() + ",127.0.0.1:"
                    + b2.endpoint.localAddress().getPort();
            String java = ProcessHandle.current().info().command().orElse("java");
            Process relay = new ProcessBuilder(java, "-jar", jar.toString(),
                    "--set", "jetstream.relay.auth.secret-file=" + relaySecret,
                    "--set", "jetstream.relay.bind-address=127.0.0.1",
                    "--set", "jetstream.relay.port=0",
                    "--set", "jetstream.replicator.port=0",
                    "--set", "jetstream.replicator.destinations=" + destinations,
                    "--set", "jetstream.transport.bind-address=127.0.0.1",
                    "--set", "jetstream.transport.ring.enabled=false",
                    "--set", "jetstream.transport.reliability=acknowledged")
                    .redirectError(dir.resolve("relay.log").toFile()).start();
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(relay.getInputStream(), StandardCharsets.UTF_8));
                String ready = out.readLine();
                while (ready != null && !ready.startsWith("READY ")) {
                    ready = out.readLine();
                }
                assertTrue(ready != null, "the relay started; its log: " + Files.readString(dir.resolve("relay.log")));
                int replicatorPort = Integer.parseInt(ready.split(" ")[3]);
                MulticastStream m = sending.openMulticast("feed", List.of(MulticastDestination.replicated("site-b", 0,
                        StreamRoutes.direct(new InetSocketAddress("127.0.0.1", replicatorPort)),
                        List.of(StreamRoutes.direct(b1.endpoint.localAddress()), StreamRoutes.direct(b2.endpoint.localAddress())))),
                        MulticastSettings.defaults().with(MulticastSettings.defaults().slowDestination(), 64L << 20, 0,
                                TimeUnit.MILLISECONDS.toNanos(2_000)));
                int n = 20_000;
                for (int i = 0; i < n; i++) {
                    if (i == n / 4) {
                        Awaitility.await("site B has records through the node").atMost(Duration.ofSeconds(30))
                                .until(() -> fromNode(b1) && fromNode(b2));
                        assertEquals(State.REPLICATED, m.destinations().get(0).state(), m.destinations().toString());
                        relay.destroyForcibly(); // SIGKILL
                    }
                    offer(m, i);
                }
                Awaitility.await("every record at both receivers").atMost(Duration.ofSeconds(60))
                        .until(() -> b1.size() >= n && b2.size() >= n);
                b1.assertExactlyInOrder(n);
                b2.assertExactlyInOrder(n);
                MulticastDestinationStats site = m.destinations().get(0);
                assertEquals(State.FAILED_OVER, site.state(), m.destinations().toString());
                assertEquals(Set.of(State.DIRECT), Set.copyOf(m.destinations().subList(1, 3).stream()
                        .map(MulticastDestinationStats::state).toList()), m.destinations().toString());
                assertTrue(b1.peers.size() == 2 && b2.peers.size() == 2, "heard from the node, then from the sender: "
                        + b1.peers + " " + b2.peers);
                m.close();
            } finally {
                relay.destroyForcibly();
                relay.waitFor();
            }
        }
    }

    private static boolean fromNode(Receiver r) {
        return r.size() > 0 && r.peers.stream().anyMatch(p -> p.startsWith("replicator@"));
    }

    private static void offer(MulticastStream m, long index) throws InterruptedException {
        byte[] record = new byte[200];
        ByteBuffer.wrap(record).putLong(index);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        int result;
        while ((result = m.offer(7, record, 0, record.length)) == OutboundStream.BACK_PRESSURED) {
            assertTrue(System.nanoTime() < deadline, "record " + index + " pushed back for 30 s");
            Thread.onSpinWait();
        }
        assertEquals(OutboundStream.ACCEPTED, result, "record " + index);
    }

    private static TransportSettings settings() {
        Map<String, Object> raw = new HashMap<>();
        raw.put("jetstream.transport.bind-address", "127.0.0.1");
        raw.put("jetstream.transport.reconnect.min-backoff-ms", 20L);
        raw.put("jetstream.transport.reconnect.max-backoff-ms", 200L);
        raw.put("jetstream.transport.ring.enabled", false);
        raw.put("jetstream.transport.reliability", "acknowledged");
        raw.put("jetstream.batch.mode", "fixed");
        raw.put("jetstream.batch.fixed.target-bytes", 2048);
        return TransportSettings.from(JetStreamConfig.load(ConfigScope.STANDALONE, raw, TransportSettings.GROUPS));
    }

    /** A receiver that delivers through a {@link MulticastReceiver} and records indexes and sending peers. */
    private static final class Receiver {
        private final List<Long> indexes = new ArrayList<>();
        final Set<String> peers = ConcurrentHashMap.newKeySet();
        final InboundEndpoint endpoint;

        Receiver(Transport t) throws InterruptedException {
            MulticastReceiver filter = new MulticastReceiver((target, buffer, offset, length) -> {
                synchronized (this) {
                    indexes.add(buffer.getLong(offset, ByteOrder.BIG_ENDIAN));
                }
            });
            endpoint = t.bind(0, (stream, sequence, records) -> {
                peers.add(stream.peerId());
                filter.deliver(stream, sequence, records);
            }, target -> true, SequenceStore.inMemory());
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
