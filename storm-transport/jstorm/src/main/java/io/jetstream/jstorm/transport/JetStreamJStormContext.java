package io.jetstream.jstorm.transport;

import backtype.storm.messaging.IConnection;
import backtype.storm.messaging.IContext;
import backtype.storm.utils.DisruptorQueue;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.ConfiguredClass;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.core.metrics.TrafficMeter;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JetStream's JStorm 2.2 messaging context, selected with
 * {@code storm.messaging.transport: io.jetstream.jstorm.transport.JetStreamJStormContext}.
 *
 * <p>JStorm hands the server the worker's map of per-task receive queues, which its tasks fill
 * after the bind; JetStream gives the delegate server a live view of that map whose queues count
 * what the server publishes ({@link CountingQueueMap}), and wraps client connections to count what
 * the worker sends. The bytes move through {@code jetstream.jstorm.delegate-context} (JStorm's
 * Netty context by default) until JetStream's own paths land.
 *
 * <p>Thread-safety: {@code prepare} and {@code term} are called once by the worker; {@code bind}
 * and {@code connect} only read state fixed by {@code prepare}.
 */
public class JetStreamJStormContext implements IContext {
    private static final Logger LOG = LoggerFactory.getLogger(JetStreamJStormContext.class);

    private final TrafficMeter sent = new TrafficMeter("jstorm.sent");
    private final TrafficMeter received = new TrafficMeter("jstorm.received");
    private volatile IContext delegate;

    @Override
    @SuppressWarnings({"rawtypes", "unchecked"})
    public void prepare(Map stormConf) {
        JetStreamConfig config = JetStreamConfig.load(ConfigScope.JSTORM, (Map<String, ?>) stormConf, JetStreamJStormOptions.GROUPS);
        IContext created = ConfiguredClass.instantiate(
                config, JetStreamJStormOptions.DELEGATE_CONTEXT, IContext.class, JetStreamJStormContext.class);
        created.prepare(stormConf);
        delegate = created;
        LOG.info("JetStream JStorm transport prepared with {} over {}", config, created.getClass().getName());
    }

    @Override
    public IConnection bind(String topologyId, int port, ConcurrentHashMap<Integer, DisruptorQueue> deserializedQueues,
            DisruptorQueue recvControlQueue, boolean startReceiving, Set<Integer> workerTasks) {
        // The worker's tasks put their queues into deserializedQueues after this call: follow it.
        IConnection server = prepared().bind(topologyId, port, new CountingQueueMap(deserializedQueues, received),
                recvControlQueue, startReceiving, workerTasks);
        return new JetStreamJStormConnection(server, sent, received);
    }

    @Override
    public IConnection connect(String topologyId, String host, int port) {
        return new JetStreamJStormConnection(prepared().connect(topologyId, host, port), sent, received);
    }

    @Override
    public void term() {
        IContext d = delegate;
        if (d != null) {
            d.term();
        }
        LOG.info("JetStream JStorm transport terminated: {}, {}", sent, received);
    }

    /** Messages handed to this context's client connections. */
    public TrafficMeter sent() {
        return sent;
    }

    /** Messages this context's servers published to the worker's receive queues. */
    public TrafficMeter received() {
        return received;
    }

    private IContext prepared() {
        IContext d = delegate;
        if (d == null) {
            throw new IllegalStateException("JetStreamJStormContext used before prepare()");
        }
        return d;
    }
}
