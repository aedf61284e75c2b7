package io.jetstream.jstorm.transport;

import backtype.storm.messaging.IConnection;
import backtype.storm.messaging.IContext;
import backtype.storm.utils.DisruptorQueue;
import io.jetstream.core.api.BatchOptions;
import io.jetstream.core.api.TrafficMeter;
import io.jetstream.core.api.Transport;
import io.jetstream.core.api.TransportOptions;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.jstorm.transport.JetStreamJStormOptions.DataPath;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JetStream's JStorm 2.2 messaging context, selected in {@code storm.yaml} or the topology
 * configuration with {@code storm.messaging.transport: io.jetstream.jstorm.transport.JetStreamJStormContext}.
 *
 * <p>A JStorm worker creates one context, calls {@link #prepare(Map)}, binds one server with its map
 * of per-task receive queues (which its tasks fill after the bind) and its control queue, and
 * connects one client per remote worker. With {@code jetstream.jstorm.data-path: jetstream} (the
 * default) both are jetstream-core's transport, reached through its stream API: the server is a
 * {@link io.jetstream.core.api.InboundEndpoint} ({@link JetStreamJStormServer}), each
 * client an {@link io.jetstream.core.api.OutboundStream} ({@link JetStreamJStormClient}).
 * Workers on one host exchange batches through the receiving worker's shared-memory ring, others
 * over adaptively batched TCP; the adapter only translates JStorm's calls. What crossed is counted
 * in {@link #meters()} and, for the whole worker process, {@link JStormTransportMeters#PROCESS} and
 * {@link #processTotals()}, which the worker's JStorm metrics show ({@link JStormWorkerGauges}).
 *
 * <p>With {@code jetstream.jstorm.data-path: jstorm-netty} the worker gets JStorm's own Netty context
 * ({@value JetStreamJStormOptions#JSTORM_NETTY_CONTEXT}) underneath, untouched: JetStream only counts
 * what its connections send ({@link JetStreamJStormConnection}) and what its server publishes
 * ({@link CountingQueueMap}). That is the explicit, documented way back to stock behaviour.
 *
 * <p>Thread-safety: {@code prepare} and {@code term} are called once by the worker; {@code bind} and
 * {@code connect} may be called from several threads.
 */
public class JetStreamJStormContext implements IContext {
    private static final Logger LOG = LoggerFactory.getLogger(JetStreamJStormContext.class);
    /** JStorm's own client waits at most this long in close() for what it was handed to leave. */
    private static final long JSTORM_CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final JStormTransportMeters meters = new JStormTransportMeters("context");
    private final List<IConnection> connections = new CopyOnWriteArrayList<>();
    private final JStormWorkerGauges gauges = new JStormWorkerGauges();
    private volatile IContext fallback;
    private volatile TransportSettings settings;
    private long sendWaitNanos;
    private JetStreamJStormOptions.SendFlush sendFlush;
    private long deliverWaitNanos;
    private Transport transport;
    private boolean terminated;

    /** What JetStream carried in this worker process, over every context (a bolt may read it). */
    public record ProcessTotals(long sentRecords, long receivedRecords, long ringBatches, long tcpBatches, long dropped,
            long overflowed) {
        @Override
        public String toString() {
            return "sent " + sentRecords + ", received " + receivedRecords + ", ring batches " + ringBatches + ", TCP batches "
                    + tcpBatches + ", dropped " + dropped + ", overflowed " + overflowed;
        }
    }

    @Override
    @SuppressWarnings({"rawtypes", "unchecked"})
    public void prepare(Map stormConf) {
        Map<String, Object> conf = new HashMap<>(stormConf == null ? Map.of() : (Map<String, Object>) stormConf);
        // JStorm's own server binds every interface.
        conf.putIfAbsent(ConfigScope.JSTORM.keyOf(TransportOptions.BIND_ADDRESS), "0.0.0.0");
        // JStorm batches tuples per target task before they reach the transport: over TCP gather what one
        // millisecond brings (every TCP batch costs an acknowledgement; measured: the adaptive policy's
        // batch per message gave 0.72x the throughput over TCP). On the ring each burst leaves at once
        // (jstorm.send-flush: each-send-on-ring).
        if (!conf.containsKey(ConfigScope.JSTORM.keyOf(BatchOptions.MODE))) {
            conf.put(ConfigScope.JSTORM.keyOf(BatchOptions.MODE), "fixed");
            conf.putIfAbsent(ConfigScope.JSTORM.keyOf(BatchOptions.MAX_EVENT_DELAY_MS), 1L);
        }
        JetStreamConfig config = JetStreamConfig.load(ConfigScope.JSTORM, conf, JetStreamJStormOptions.GROUPS);
        if (config.get(JetStreamJStormOptions.DATA_PATH) == DataPath.JSTORM_NETTY) {
            IContext stock = newJStormNettyContext();
            stock.prepare(stormConf);
            fallback = stock;
            LOG.info("JetStream JStorm transport prepared: jstorm-netty data path (jetstream.jstorm.data-path): JStorm's own "
                    + "Netty transport moves the tuples, JetStream only counts them");
            return;
        }
        TransportSettings s = TransportSettings.from(config);
        settings = s.withCloseTimeout(Math.min(s.closeTimeoutNanos(), JSTORM_CLOSE_WAIT_NANOS));
        sendWaitNanos = TimeUnit.MILLISECONDS.toNanos(config.get(JetStreamJStormOptions.SEND_WAIT_MS));
        sendFlush = config.get(JetStreamJStormOptions.SEND_FLUSH);
        deliverWaitNanos = TimeUnit.MILLISECONDS.toNanos(config.get(JetStreamJStormOptions.DELIVER_WAIT_MS));
        LOG.info("JetStream JStorm transport prepared: jetstream data path, {}", config);
    }

    private static IContext newJStormNettyContext() {
        try {
            return (IContext) Class.forName(JetStreamJStormOptions.JSTORM_NETTY_CONTEXT).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("JStorm's Netty context " + JetStreamJStormOptions.JSTORM_NETTY_CONTEXT
                    + " cannot be created", e);
        }
    }

    @Override
    public IConnection bind(String topologyId, int port, ConcurrentHashMap<Integer, DisruptorQueue> deserializedQueues,
            DisruptorQueue recvControlQueue, boolean startReceiving, Set<Integer> workerTasks) {
        IContext stock = fallback;
        if (stock != null) {
            // The worker's tasks put their queues into deserializedQueues after this call: follow it.
            IConnection server = stock.bind(topologyId, port, new CountingQueueMap(deserializedQueues, meters), recvControlQueue,
                    startReceiving, workerTasks);
            return new JetStreamJStormConnection(server, meters);
        }
        prepared();
        JetStreamJStormServer server = new JetStreamJStormServer(transport(port), port, deserializedQueues, recvControlQueue,
                startReceiving, workerTasks, meters, deliverWaitNanos, this);
        connections.add(server);
        gauges.register();
        return server;
    }

    @Override
    public IConnection connect(String topologyId, String host, int port) {
        IContext stock = fallback;
        if (stock != null) {
            return new JetStreamJStormConnection(stock.connect(topologyId, host, port), meters);
        }
        prepared();
        JetStreamJStormClient client = new JetStreamJStormClient(transport(-1), "jstorm-" + (topologyId == null ? "" : topologyId),
                InetSocketAddress.createUnresolved(host, port), meters, sendWaitNanos, sendFlush, this);
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
            throw new IllegalStateException("JetStreamJStormContext used after term()");
        }
        if (transport == null) {
            String peer = hostName() + (boundPort > 0 ? ":" + boundPort
                    : "#" + ProcessHandle.current().pid() + "-" + System.identityHashCode(this));
            transport = Transport.start(settings, peer);
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
    void forget(IConnection connection) {
        connections.remove(connection);
    }

    /**
     * Closes every connection of this context (clients deliver what they were handed, within the close
     * timeout), then the transport: its I/O, flusher and ring threads, its sockets and its
     * shared-memory files.
     */
    @Override
    public void term() {
        IContext stock = fallback;
        if (stock != null) {
            stock.term();
            LOG.info("JetStream JStorm transport (jstorm-netty data path) terminated: {}", meters);
            return;
        }
        Transport t;
        synchronized (this) {
            terminated = true;
            t = transport;
            transport = null;
        }
        for (IConnection c : connections) {
            try {
                c.close();
            } catch (RuntimeException e) {
                LOG.warn("Closing {} at term() failed: {}", c, e.toString());
            }
        }
        connections.clear();
        gauges.unregister();
        if (t != null) {
            t.close();
        }
        LOG.info("JetStream JStorm transport terminated: {}", meters);
    }

    /** This context's traffic. */
    public JStormTransportMeters meters() {
        return meters;
    }

    /** Messages handed to this context's client connections. */
    public TrafficMeter sent() {
        return meters.sent();
    }

    /** Messages this context's servers published to the worker's queues. */
    public TrafficMeter received() {
        return meters.received();
    }

    /** What JetStream carried in this JVM so far, over every context, with the route batches of open servers included. */
    public static ProcessTotals processTotals() {
        JStormTransportMeters p = JStormTransportMeters.PROCESS;
        long ring = p.ringBatches();
        long tcp = p.tcpBatches();
        for (JetStreamJStormServer server : JetStreamJStormServer.OPEN) {
            long[] routes = server.routeBatches();
            ring += routes[0];
            tcp += routes[1];
        }
        return new ProcessTotals(p.sent().records(), p.received().records(), ring, tcp, p.dropped(), p.overflowed());
    }

    private void prepared() {
        if (settings == null) {
            throw new IllegalStateException("JetStreamJStormContext used before prepare()");
        }
    }
}
