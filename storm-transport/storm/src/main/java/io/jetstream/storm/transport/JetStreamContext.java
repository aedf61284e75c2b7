package io.jetstream.storm.transport;

import io.jetstream.core.api.Transport;
import io.jetstream.core.api.TransportOptions;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.storm.transport.JetStreamTransportOptions.DataPath;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.storm.messaging.IConnection;
import org.apache.storm.messaging.IConnectionCallback;
import org.apache.storm.messaging.IContext;
import org.apache.storm.metrics2.StormMetricRegistry;
import org.apache.storm.utils.ObjectReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JetStream's Storm messaging context, selected in {@code storm.yaml} or the topology configuration
 * with {@code storm.messaging.transport: io.jetstream.storm.transport.JetStreamContext}.
 *
 * <p>Storm's {@code TransportFactory} creates one context per worker and calls
 * {@link #prepare(Map, StormMetricRegistry)}; the worker then binds one server and connects one client
 * per remote worker. With {@code jetstream.storm.data-path: jetstream} (the default) both are
 * jetstream-core's transport, reached through its stream API: a server is a
 * {@link io.jetstream.core.api.InboundEndpoint}, a client an
 * {@link io.jetstream.core.api.OutboundStream}. Workers on one host exchange batches through
 * the receiving worker's shared-memory ring, others over adaptively batched TCP; the adapter only
 * translates Storm's calls. With {@code storm-netty} the worker gets Storm's own Netty context,
 * untouched.
 *
 * <p>Thread-safety: {@code prepare} and {@code term} are called once by the worker; {@code bind} and
 * {@code connect} may be called from several threads.
 */
public class JetStreamContext implements IContext {
    private static final Logger LOG = LoggerFactory.getLogger(JetStreamContext.class);
    /** Storm's own Netty messaging context, the fallback. */
    static final String STORM_NETTY_CONTEXT = "org.apache.storm.messaging.netty.Context";

    private final TransportMeters meters = new TransportMeters("context");
    private final List<AutoCloseable> connections = new CopyOnWriteArrayList<>();
    private volatile IContext fallback;
    private volatile WorkerSettings settings;
    private StormMetricRegistry metricRegistry;
    private Transport transport;
    private boolean terminated;

    /** What a worker's connections need, fixed at {@link #prepare}. */
    record WorkerSettings(TransportSettings transport, long sendWaitNanos, boolean sendMetrics, Map<String, Object> conf) {}

    @Override
    @Deprecated
    public void prepare(Map<String, Object> topoConf) {
        prepare(topoConf, null);
    }

    @Override
    public void prepare(Map<String, Object> topoConf, StormMetricRegistry registry) {
        Map<String, Object> conf = new HashMap<>(topoConf == null ? Map.of() : topoConf);
        String bindKey = ConfigScope.STORM.keyOf(TransportOptions.BIND_ADDRESS);
        conf.putIfAbsent(bindKey, "0.0.0.0"); // Storm's own transport binds every interface
        JetStreamConfig config = JetStreamConfig.load(ConfigScope.STORM, conf, JetStreamTransportOptions.GROUPS);
        this.metricRegistry = registry;
        if (config.get(JetStreamTransportOptions.DATA_PATH) == DataPath.STORM_NETTY) {
            IContext stock = newStormNettyContext();
            stock.prepare(topoConf, registry);
            fallback = stock;
            LOG.info("JetStream transport: storm-netty data path (jetstream.storm.data-path): Storm's own Netty transport");
            return;
        }
        TransportSettings transportSettings = TransportSettings.from(config);
        long flushTimeoutMs = ObjectReader.getLong(conf.get("storm.messaging.netty.flush_timeout_ms"), 600_000L);
        transportSettings = transportSettings.withCloseTimeout(
                Math.min(transportSettings.closeTimeoutNanos(), TimeUnit.MILLISECONDS.toNanos(flushTimeoutMs)));
        if (ObjectReader.getBoolean(conf.get("storm.messaging.netty.authentication"), false)) {
            transportSettings = transportSettings.withSecret(topologySecret(conf));
        }
        settings = new WorkerSettings(transportSettings,
                TimeUnit.MILLISECONDS.toNanos(config.get(JetStreamTransportOptions.SEND_WAIT_MS)),
                ObjectReader.getBoolean(conf.get("topology.enable.send.iconnection.metrics"), true), conf);
        if (registry != null) {
            meters.register(registry);
        }
        LOG.info("JetStream transport prepared: {}", config);
    }

    /**
     * The topology's secret as the transport's shared secret: what Storm's own SASL authentication
     * uses ({@code storm.zookeeper.topology.auth.payload}), hashed to a 32-byte key.
     */
    private static byte[] topologySecret(Map<String, Object> conf) {
        Object payload = conf.get("storm.zookeeper.topology.auth.payload");
        if (!(payload instanceof String s) || s.isEmpty()) {
            throw new InvalidConfigurationException("storm.messaging.netty.authentication", true,
                    "authentication is on but the worker's configuration has no storm.zookeeper.topology.auth.payload to use as "
                            + "the workers' shared secret");
        }
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update("jetstream storm worker secret".getBytes(StandardCharsets.US_ASCII));
            return sha.digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }

    private static IContext newStormNettyContext() {
        try {
            return (IContext) Class.forName(STORM_NETTY_CONTEXT).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Storm's Netty context " + STORM_NETTY_CONTEXT + " cannot be created", e);
        }
    }

    @Override
    public IConnection bind(String stormId, int port, IConnectionCallback cb, Supplier<Object> newConnectionResponse) {
        IContext stock = fallback;
        if (stock != null) {
            return stock.bind(stormId, port, cb, newConnectionResponse);
        }
        WorkerSettings s = prepared();
        JetStreamServerConnection server = new JetStreamServerConnection(transport(port), port, cb, newConnectionResponse, meters,
                metricRegistry, s);
        connections.add(server);
        return server;
    }

    @Override
    public IConnection connect(String stormId, String host, int port, AtomicBoolean[] remoteBpStatus) {
        IContext stock = fallback;
        if (stock != null) {
            return stock.connect(stormId, host, port, remoteBpStatus);
        }
        WorkerSettings s = prepared();
        JetStreamClientConnection client = new JetStreamClientConnection(transport(-1),
                "storm-" + (stormId == null ? "" : stormId), InetSocketAddress.createUnresolved(host, port), remoteBpStatus, meters,
                metricRegistry, s);
        connections.add(client);
        return client;
    }

    /**
     * The worker's one transport instance, created at the first bind or connect: its peer id is the
     * worker's host and port (a worker binds before it connects), so that a worker restarted on the
     * same slot is the same sending peer to its receivers.
     */
    private synchronized Transport transport(int boundPort) {
        if (terminated) {
            throw new IllegalStateException("JetStreamContext used after term()");
        }
        if (transport == null) {
            String peer = hostName() + (boundPort > 0 ? ":" + boundPort : "#" + ProcessHandle.current().pid() + "-" + System.identityHashCode(this));
            transport = Transport.start(settings.transport(), peer);
        }
        return transport;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    /** Forgets a connection that closed (so that term() does not close it twice). */
    void forget(AutoCloseable connection) {
        connections.remove(connection);
    }

    @Override
    public void term() {
        IContext stock = fallback;
        if (stock != null) {
            stock.term();
            return;
        }
        Transport t;
        synchronized (this) {
            terminated = true;
            t = transport;
            transport = null;
        }
        for (AutoCloseable c : connections) {
            try {
                c.close();
            } catch (Exception e) {
                LOG.warn("Closing {} at term() failed: {}", c, e.toString());
            }
        }
        connections.clear();
        if (t != null) {
            t.close();
        }
        LOG.info("JetStream transport terminated: sent {}, received {}", meters.sent(), meters.received());
    }

    /** This context's traffic (records and bytes the worker's connections carried). */
    public TransportMeters meters() {
        return meters;
    }

    private WorkerSettings prepared() {
        WorkerSettings s = settings;
        if (s == null) {
            throw new IllegalStateException("JetStreamContext used before prepare()");
        }
        return s;
    }
}
