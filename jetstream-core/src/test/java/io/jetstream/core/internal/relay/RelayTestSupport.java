package io.jetstream.core.internal.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.DeliveryHandler;
import io.jetstream.core.api.RelayOptions;
import io.jetstream.core.api.RelaySettings;
import io.jetstream.core.api.StreamKey;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.awaitility.Awaitility;

/** Settings, secrets and a checking collector for the relay tests (loopback only). */
final class RelayTestSupport {
    private RelayTestSupport() {}

    static Path secret(Path dir, String name, String content) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, content);
        return p;
    }

    /** Transport settings from {@code jetstream.}-relative keys, on loopback, fixed batching, quick reconnects. */
    static TransportSettings transport(Map<String, ?> overrides) {
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
        return TransportSettings.from(JetStreamConfig.load(ConfigScope.STORM, raw, TransportSettings.GROUPS));
    }

    /** Relay settings from {@code relay.}-relative keys, on loopback, any port. */
    static RelaySettings relay(Map<String, ?> overrides) {
        Map<String, Object> raw = new HashMap<>();
        raw.put("jetstream.relay.bind-address", "127.0.0.1");
        raw.put("jetstream.relay.port", 0);
        overrides.forEach((k, v) -> raw.put("jetstream." + k, v));
        return RelaySettings.from(JetStreamConfig.load(ConfigScope.STANDALONE, raw, RelayOptions.GROUP));
    }

    static byte[] record(long index, int size) {
        byte[] b = new byte[Math.max(8, size)];
        ByteBuffer.wrap(b).putLong(index);
        for (int i = 8; i < b.length; i++) {
            b[i] = (byte) (index + i);
        }
        return b;
    }

    static void await(String what, long seconds, BooleanSupplier condition, Supplier<String> state) {
        Awaitility.await(what).pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5))
                .atMost(Duration.ofSeconds(seconds)).untilAsserted(() -> assertTrue(condition.getAsBoolean(), state));
    }

    /** Record indexes in delivery order; counts payloads whose bytes are not what {@link #record} wrote. */
    static final class Collector implements DeliveryHandler {
        private final List<Long> indexes = new ArrayList<>();
        private int corrupt;
        volatile Runnable beforeEachBatch = () -> {};

        @Override
        public void deliver(StreamKey stream, long sequence, DeliveredBatch records) {
            beforeEachBatch.run();
            synchronized (this) {
                records.forEach((target, buffer, offset, length) -> {
                    long index = buffer.getLong(offset, ByteOrder.BIG_ENDIAN);
                    for (int i = 8; i < length; i++) {
                        if (buffer.getByte(offset + i) != (byte) (index + i)) {
                            corrupt++;
                            break;
                        }
                    }
                    indexes.add(index);
                });
            }
        }

        synchronized int size() {
            return indexes.size();
        }

        /** Every index in [0, n) exactly once, in order, none corrupted. */
        synchronized void assertExactlyInOrder(int n) {
            assertEquals(0, corrupt, "corrupted records delivered");
            List<Long> expected = new ArrayList<>(n);
            for (long i = 0; i < n; i++) {
                expected.add(i);
            }
            if (!indexes.equals(expected)) {
                long dups = indexes.size() - indexes.stream().distinct().count();
                throw new AssertionError("delivered " + indexes.size() + " records (" + dups + " duplicated), expected 0.." + (n - 1)
                        + " once each in order; first 50: " + indexes.subList(0, Math.min(50, indexes.size())));
            }
        }
    }
}
