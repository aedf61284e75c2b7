package io.jetstream.core.internal.multicast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.InboundEndpoint;
import io.jetstream.core.api.MulticastOptions;
import io.jetstream.core.api.MulticastReceiver;
import io.jetstream.core.api.MulticastSettings;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.Transport;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.agrona.concurrent.UnsafeBuffer;
import org.awaitility.Awaitility;

/** Settings, a record layout and a checking receiver for the multicast tests (loopback only). */
public final class MulticastTestSupport {
    private MulticastTestSupport() {}

    /** Transport settings from {@code jetstream.}-relative keys: loopback, acknowledged, fixed small batches, quick reconnects. */
    public static TransportSettings transport(Map<String, ?> overrides) {
        Map<String, Object> raw = new HashMap<>();
        raw.put("jetstream.transport.bind-address", "127.0.0.1");
        raw.put("jetstream.transport.reconnect.min-backoff-ms", 20L);
        raw.put("jetstream.transport.reconnect.max-backoff-ms", 200L);
        raw.put("jetstream.transport.close-timeout-ms", 10_000L);
        raw.put("jetstream.transport.ring.enabled", false);
        raw.put("jetstream.transport.reliability", "acknowledged");
        raw.put("jetstream.batch.mode", "fixed");
        raw.put("jetstream.batch.fixed.target-bytes", 4096);
        overrides.forEach((k, v) -> raw.put("jetstream." + k, v));
        return TransportSettings.from(JetStreamConfig.load(ConfigScope.STORM, raw, TransportSettings.GROUPS));
    }

    /** Multicast settings from {@code multicast.}-relative keys. */
    public static MulticastSettings multicast(Map<String, ?> overrides) {
        Map<String, Object> raw = new HashMap<>();
        overrides.forEach((k, v) -> raw.put("jetstream." + k, v));
        return MulticastSettings.from(JetStreamConfig.load(ConfigScope.STANDALONE, raw, MulticastOptions.GROUP));
    }

    /** A record of {@code size} bytes carrying {@code index} first, then bytes derived from it. */
    public static byte[] record(long index, int size) {
        byte[] b = new byte[Math.max(8, size)];
        UnsafeBuffer u = new UnsafeBuffer(b);
        u.putLong(0, index, ByteOrder.BIG_ENDIAN);
        for (int i = 8; i < b.length; i++) {
            b[i] = (byte) (index + i);
        }
        return b;
    }

    public static void await(String what, long seconds, BooleanSupplier condition, Supplier<String> state) {
        Awaitility.await(what).pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5))
                .atMost(Duration.ofSeconds(seconds)).untilAsserted(() -> assertTrue(condition.getAsBoolean(), state));
    }

    /** A bound receiver behind a {@link MulticastReceiver} that records the indexes it delivers; it can be held. */
    public static final class Destination implements AutoCloseable {
        private final List<Long> indexes = new ArrayList<>();
        private int corrupt;
        private volatile CountDownLatch gate;
        final MulticastReceiver receiver;
        /** The sending peers whose streams delivered here. */
        final java.util.Set<String> peers = java.util.concurrent.ConcurrentHashMap.newKeySet();
        final InboundEndpoint endpoint;

        public Destination(Transport transport) throws InterruptedException {
            receiver = new MulticastReceiver((target, buffer, offset, length) -> {
                long index = buffer.getLong(offset, ByteOrder.BIG_ENDIAN);
                synchronized (this) {
                    for (int i = 8; i < length; i++) {
                        if (buffer.getByte(offset + i) != (byte) (index + i)) {
                            corrupt++;
                            break;
                        }
                    }
                    indexes.add(index);
                }
            });
            endpoint = transport.bind(0, (stream, sequence, records) -> {
                CountDownLatch g = gate;
                if (g != null) {
                    try {
                        g.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                peers.add(stream.peerId());
                receiver.deliver(stream, sequence, records);
            }, t -> true, SequenceStore.inMemory());
        }

        /** Deliveries wait until {@link #release}. */
        public void hold() {
            gate = new CountDownLatch(1);
        }

        public void release() {
            CountDownLatch g = gate;
            gate = null;
            if (g != null) {
                g.countDown();
            }
        }

        public synchronized int size() {
            return indexes.size();
        }

        public synchronized long last() {
            return indexes.isEmpty() ? -1 : indexes.get(indexes.size() - 1);
        }

        /** Every index in [from, to) exactly once, in order, none corrupted. */
        public synchronized void assertExactly(long from, long to) {
            assertEquals(0, corrupt, "corrupted records delivered");
            List<Long> expected = new ArrayList<>();
            for (long i = from; i < to; i++) {
                expected.add(i);
            }
            if (!indexes.equals(expected)) {
                long dups = indexes.size() - indexes.stream().distinct().count();
                throw new AssertionError("delivered " + indexes.size() + " records (" + dups + " duplicated), expected " + from
                        + ".." + (to - 1) + " once each in order; first 20: " + indexes.subList(0, Math.min(20, indexes.size())));
            }
        }

        @Override
        public void close() {
            release();
            endpoint.close();
        }
    }
}
