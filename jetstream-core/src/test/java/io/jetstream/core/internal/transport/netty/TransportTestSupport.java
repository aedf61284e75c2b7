package io.jetstream.core.internal.transport.netty;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.BatchOptions;
import io.jetstream.core.api.DeliveryHandler;
import io.jetstream.core.api.StreamKey;
import io.jetstream.core.api.TransportOptions;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;

/** Helpers of the transport tests: settings from Storm-style keys, records that carry their index. */
final class TransportTestSupport {
    private TransportTestSupport() {}

    /** Settings from {@code jetstream.}-relative keys (e.g. "transport.reliability"), bound to loopback. */
    static TransportSettings settings(Map<String, ?> overrides) {
        Map<String, Object> raw = new HashMap<>();
        raw.put("jetstream.transport.bind-address", "127.0.0.1");
        raw.put("jetstream.transport.reconnect.min-backoff-ms", 20L);
        raw.put("jetstream.transport.reconnect.max-backoff-ms", 200L);
        raw.put("jetstream.transport.close-timeout-ms", 5_000L);
        overrides.forEach((k, v) -> raw.put("jetstream." + k, v));
        return TransportSettings.from(JetStreamConfig.load(ConfigScope.STORM, raw, TransportSettings.GROUPS));
    }

    /** A record of {@code size} bytes (at least 8) starting with {@code index}. */
    static byte[] record(long index, int size) {
        byte[] b = new byte[Math.max(8, size)];
        ByteBuffer.wrap(b).putLong(index);
        for (int i = 8; i < b.length; i++) {
            b[i] = (byte) (index + i);
        }
        return b;
    }

    static void await(String what, long timeoutSeconds, BooleanSupplier condition, java.util.function.Supplier<String> state) {
        Awaitility.await(what).pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2))
                .atMost(Duration.ofSeconds(timeoutSeconds)).untilAsserted(() -> assertTrue(condition.getAsBoolean(), state));
    }

    static void await(String what, long timeoutSeconds, BooleanSupplier condition) {
        await(what, timeoutSeconds, condition, () -> "condition still false");
    }

    /** Records delivered, as (stream, target, index), checking each payload's bytes. */
    static final class Collector implements DeliveryHandler {
        record Delivered(StreamKey stream, long sequence, int target, long index, int length) {}

        private final List<Delivered> delivered = new ArrayList<>();
        volatile Runnable beforeEachBatch = () -> {};
        volatile int corrupt;

        @Override
        public void deliver(StreamKey stream, long sequence, DeliveredBatch records) {
            beforeEachBatch.run();
            synchronized (this) {
                records.forEach((target, buffer, offset, length) -> {
                    long index = buffer.getLong(offset, java.nio.ByteOrder.BIG_ENDIAN);
                    for (int i = 8; i < length; i++) {
                        if (buffer.getByte(offset + i) != (byte) (index + i)) {
                            corrupt++;
                            break;
                        }
                    }
                    delivered.add(new Delivered(stream, sequence, target, index, length));
                });
            }
        }

        synchronized int size() {
            return delivered.size();
        }

        synchronized List<Delivered> snapshot() {
            return new ArrayList<>(delivered);
        }

        synchronized List<Long> indexes() {
            List<Long> out = new ArrayList<>(delivered.size());
            delivered.forEach(d -> out.add(d.index()));
            return out;
        }
    }

    static Path keytool() {
        return Path.of(System.getProperty("java.home"), "bin", "keytool");
    }
}
