package io.jetstream.storm.transport.contract;

import java.util.HashMap;
import java.util.Map;
import org.apache.storm.Config;

/**
 * The smallest Storm configuration a messaging context runs on: the keys a worker's configuration
 * always holds (from {@code defaults.yaml}) and that Storm's Netty context reads without a default of
 * its own, each set to Storm 2.8.3's default. Anything a context needs beyond these is something a
 * worker's configuration may not hold, and a test that relies on {@code defaults.yaml} would not show.
 *
 * <ul>
 *   <li>{@code storm.messaging.netty.{client,server}_worker_threads}, {@code buffer_size},
 *       {@code buffer.{low,high}.watermark}, {@code {min,max}_wait_ms}: read as ints with no default
 *       (a missing key is a NullPointerException in the client or server constructor);
 *   <li>{@code storm.messaging.netty.authentication}: unboxed without a null check;
 *   <li>{@code topology.kryo.factory}, {@code topology.tuple.serializer},
 *       {@code topology.fall.back.on.java.serialization}, {@code topology.skip.missing.kryo.registrations}:
 *       the Kryo instances that carry load metrics and back-pressure status;
 *   <li>{@code topology.backpressure.wait.progressive.level{1,2}.count} and
 *       {@code level3.sleep.millis}: the client's wait strategy while the channel is not writable;
 *   <li>{@code storm.messaging.netty.flush_timeout_ms}: how long {@code close()} may wait for
 *       pending messages (600,000 ms in {@code defaults.yaml}; tests lower it).
 * </ul>
 *
 * <p>Not thread-safe: build once, then hand the map to one context.
 */
public final class MessagingConf {
    /** Storm 2.8.3's default flush timeout is ten minutes; a test cannot wait that long. */
    public static final long TEST_FLUSH_TIMEOUT_MS = 3_000;

    private final Map<String, Object> conf = new HashMap<>();

    private MessagingConf(String contextClass) {
        conf.put(Config.STORM_MESSAGING_TRANSPORT, contextClass);
        conf.put(Config.STORM_MESSAGING_NETTY_CLIENT_WORKER_THREADS, 1);
        conf.put(Config.STORM_MESSAGING_NETTY_SERVER_WORKER_THREADS, 1);
        conf.put(Config.STORM_MESSAGING_NETTY_BUFFER_SIZE, 5_242_880);
        conf.put(Config.STORM_MESSAGING_NETTY_BUFFER_LOW_WATERMARK, 8_388_608);
        conf.put(Config.STORM_MESSAGING_NETTY_BUFFER_HIGH_WATERMARK, 16_777_216);
        conf.put(Config.STORM_MESSAGING_NETTY_MIN_SLEEP_MS, 100);
        conf.put(Config.STORM_MESSAGING_NETTY_MAX_SLEEP_MS, 1_000);
        conf.put(Config.STORM_MESSAGING_NETTY_AUTHENTICATION, false);
        conf.put(Config.STORM_MESSAGING_NETTY_FLUSH_TIMEOUT_MS, TEST_FLUSH_TIMEOUT_MS);
        conf.put(Config.TOPOLOGY_KRYO_FACTORY, "org.apache.storm.serialization.DefaultKryoFactory");
        conf.put(Config.TOPOLOGY_TUPLE_SERIALIZER, "org.apache.storm.serialization.types.ListDelegateSerializer");
        conf.put(Config.TOPOLOGY_FALL_BACK_ON_JAVA_SERIALIZATION, false);
        conf.put(Config.TOPOLOGY_SKIP_MISSING_KRYO_REGISTRATIONS, false);
        conf.put(Config.TOPOLOGY_BACKPRESSURE_WAIT_PROGRESSIVE_LEVEL1_COUNT, 1);
        conf.put(Config.TOPOLOGY_BACKPRESSURE_WAIT_PROGRESSIVE_LEVEL2_COUNT, 1_000);
        conf.put(Config.TOPOLOGY_BACKPRESSURE_WAIT_PROGRESSIVE_LEVEL3_SLEEP_MILLIS, 1);
    }

    /** The minimal configuration for the context class named as {@code storm.messaging.transport} names it. */
    public static MessagingConf forContext(String contextClass) {
        return new MessagingConf(contextClass);
    }

    /**
     * Netty authentication on: both ends must hold the same topology secret
     * ({@code storm.zookeeper.topology.auth.payload}, which Nimbus generates per topology), and the
     * topology name identifies the user.
     */
    public MessagingConf authentication(String topologyName, String secret) {
        conf.put(Config.STORM_MESSAGING_NETTY_AUTHENTICATION, true);
        conf.put(Config.TOPOLOGY_NAME, topologyName);
        conf.put(Config.STORM_ZOOKEEPER_TOPOLOGY_AUTH_PAYLOAD, secret);
        return this;
    }

    public MessagingConf flushTimeoutMs(long millis) {
        conf.put(Config.STORM_MESSAGING_NETTY_FLUSH_TIMEOUT_MS, millis);
        return this;
    }

    public MessagingConf set(String key, Object value) {
        conf.put(key, value);
        return this;
    }

    public MessagingConf setAll(Map<String, ?> entries) {
        conf.putAll(entries);
        return this;
    }

    /** A fresh mutable copy, as a worker hands its configuration to {@code prepare}. */
    public Map<String, Object> build() {
        return new HashMap<>(conf);
    }
}
