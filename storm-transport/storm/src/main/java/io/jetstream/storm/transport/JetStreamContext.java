package io.jetstream.storm.transport;

import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.ConfiguredClass;
import io.jetstream.core.config.JetStreamConfig;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.storm.messaging.IConnection;
import org.apache.storm.messaging.IConnectionCallback;
import org.apache.storm.messaging.IContext;
import org.apache.storm.metrics2.StormMetricRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JetStream's Storm messaging context, selected in {@code storm.yaml} or the topology
 * configuration with {@code storm.messaging.transport: io.jetstream.storm.transport.JetStreamContext}.
 *
 * <p>Storm's {@code TransportFactory} creates one context per worker and calls
 * {@link #prepare(Map, StormMetricRegistry)}; the worker then binds one server and connects one
 * client per remote worker. Today the bytes move through the context named by
 * {@code jetstream.storm.delegate-context} (Storm's Netty context by default) and JetStream's
 * connections wrap its connections, counting traffic; JetStream's own Netty and shared-memory paths
 * replace the delegate as they land.
 *
 * <p>Thread-safety: {@code prepare} and {@code term} are called once by the worker; {@code bind} and
 * {@code connect} may be called from several threads and only read state fixed by {@code prepare}.
 */
public class JetStreamContext implements IContext {
    private static final Logger LOG = LoggerFactory.getLogger(JetStreamContext.class);

    private final TransportMeters meters = new TransportMeters("context");
    private volatile IContext delegate;

    @Override
    @Deprecated
    public void prepare(Map<String, Object> topoConf) {
        prepare(topoConf, null);
    }

    @Override
    public void prepare(Map<String, Object> topoConf, StormMetricRegistry metricRegistry) {
        JetStreamConfig config = JetStreamConfig.load(ConfigScope.STORM, topoConf, JetStreamTransportOptions.GROUPS);
        IContext created = ConfiguredClass.instantiate(
                config, JetStreamTransportOptions.DELEGATE_CONTEXT, IContext.class, JetStreamContext.class);
        created.prepare(topoConf, metricRegistry);
        if (metricRegistry != null) {
            registerGauges(metricRegistry);
        }
        delegate = created;
        LOG.info("JetStream transport prepared with {} over {}", config, created.getClass().getName());
    }

    private void registerGauges(StormMetricRegistry registry) {
        var metrics = registry.getRegistry();
        metrics.gauge("jetstream.transport.messages-sent", () -> meters.sent()::records);
        metrics.gauge("jetstream.transport.bytes-sent", () -> meters.sent()::bytes);
        metrics.gauge("jetstream.transport.messages-received", () -> meters.received()::records);
        metrics.gauge("jetstream.transport.bytes-received", () -> meters.received()::bytes);
        metrics.gauge("jetstream.transport.batches-received", () -> meters.received()::batches);
    }

    @Override
    public IConnection bind(String stormId, int port, IConnectionCallback cb, Supplier<Object> newConnectionResponse) {
        IContext d = prepared();
        return new JetStreamServerConnection(
                batch -> {
                    meters.onReceived(batch);
                    cb.recv(batch);
                },
                callback -> d.bind(stormId, port, callback, newConnectionResponse));
    }

    @Override
    public IConnection connect(String stormId, String host, int port, AtomicBoolean[] remoteBpStatus) {
        return new JetStreamClientConnection(prepared().connect(stormId, host, port, remoteBpStatus), meters);
    }

    @Override
    public void term() {
        IContext d = delegate;
        if (d != null) {
            d.term();
        }
        LOG.info("JetStream transport terminated: sent {}, received {}", meters.sent(), meters.received());
    }

    /** This context's traffic. */
    public TransportMeters meters() {
        return meters;
    }

    private IContext prepared() {
        IContext d = delegate;
        if (d == null) {
            throw new IllegalStateException("JetStreamContext used before prepare()");
        }
        return d;
    }
}
