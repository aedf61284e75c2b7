package io.jetstream.storm.transport;

import io.jetstream.core.api.DeliveryHandler;
import io.jetstream.core.api.InboundEndpoint;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.StreamKey;
import io.jetstream.core.api.Transport;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.storm.grouping.Load;
import org.apache.storm.messaging.ConnectionWithStatus;
import org.apache.storm.messaging.IConnectionCallback;
import org.apache.storm.messaging.TaskMessage;
import org.apache.storm.messaging.netty.BackPressureStatus;
import org.apache.storm.metric.api.IStatefulObject;
import org.apache.storm.metrics2.StormMetricRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's bound server: a JetStream {@link InboundEndpoint} whose batches reach the worker's
 * callback as Storm {@link TaskMessage}s (one {@code recv} per batch, in each sending worker's order),
 * and which broadcasts the worker's load and back-pressure status to the connected clients as
 * CONTROL frames ({@link StormControl}); the connection response goes to every client right after its
 * handshake, before any message. It is an {@link IStatefulObject}: Storm's {@code __recv-iconnection}
 * metric reports {@code dequeuedMessages} and {@code enqueued} per sending worker as the stock server
 * does, and JetStream's receiver and ring counters next to them; the same counters are gauges
 * {@code jetstream.recv.*} in Storm's metrics registry.
 *
 * <p>Threading: the callback runs on the transport's I/O threads (TCP) and ring thread (same-host
 * workers); one sending worker's batches never concurrently.
 */
final class JetStreamServerConnection extends ConnectionWithStatus implements IStatefulObject {
    private static final Logger LOG = LoggerFactory.getLogger(JetStreamServerConnection.class);

    private final InboundEndpoint receiver;
    private final int port;
    private final TransportMeters meters;
    private final StormMetricRegistry registry;
    private final java.util.Set<com.codahale.metrics.Metric> gauges = new java.util.HashSet<>();
    /** Tuples received per sending worker since the last {@link #getState()}. */
    private final Map<String, AtomicLong> enqueued = new ConcurrentHashMap<>();
    private volatile boolean closed;

    JetStreamServerConnection(Transport transport, int port, IConnectionCallback callback, Supplier<Object> connectionResponse,
            TransportMeters meters, StormMetricRegistry registry, JetStreamContext.WorkerSettings settings) {
        this.meters = meters;
        this.registry = registry;
        try {
            this.receiver = transport.bind(port, new Delivery(callback), task -> task >= 0, SequenceStore.inMemory());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while binding port " + port, e);
        }
        this.port = receiver.localAddress().getPort();
        if (connectionResponse != null) {
            receiver.setWelcomeControl(StormControl.BACK_PRESSURE, () -> {
                Object response = connectionResponse.get();
                return response instanceof BackPressureStatus bp ? StormControl.backPressure(bp) : null;
            });
        }
        if (registry != null) {
            receiver.metrics().snapshot().keySet().forEach(name -> gauges.add(registry.gauge("jetstream.recv." + name,
                    () -> receiver.metrics().snapshot().get(name), "__system", -1)));
        }
        LOG.info("JetStream server of this worker bound to port {} ({})", this.port,
                receiver.ringUsable() ? "same-host workers write to its shared-memory ring" : "TCP only");
    }

    /** Hands each delivered batch to the worker as TaskMessages (one list per batch). */
    private final class Delivery implements DeliveryHandler {
        private final IConnectionCallback callback;

        Delivery(IConnectionCallback callback) {
            this.callback = callback;
        }

        @Override
        public void deliver(StreamKey stream, long sequence, DeliveredBatch records) {
            List<TaskMessage> batch = new ArrayList<>(records.count());
            long[] bytes = {0};
            records.forEach((target, buffer, offset, length) -> {
                byte[] payload = new byte[length];
                buffer.getBytes(offset, payload);
                bytes[0] += length;
                batch.add(new TaskMessage(target, payload));
            });
            meters.onReceived(batch.size(), bytes[0]);
            enqueued.computeIfAbsent(stream.peerId(), k -> new AtomicLong()).addAndGet(batch.size());
            callback.recv(batch);
        }
    }

    @Override
    public Status status() {
        return closed ? Status.Closed : Status.Ready;
    }

    @Override
    public void sendLoadMetrics(Map<Integer, Double> taskToLoad) {
        receiver.broadcast(StormControl.LOAD, StormControl.load(taskToLoad));
    }

    @Override
    public void sendBackPressureStatus(BackPressureStatus bpStatus) {
        receiver.broadcast(StormControl.BACK_PRESSURE, StormControl.backPressure(bpStatus));
    }

    @Override
    public void send(Iterator<TaskMessage> msgs) {
        throw new UnsupportedOperationException("a worker's server connection does not send tuples");
    }

    @Override
    public Map<Integer, Load> getLoad(Collection<Integer> tasks) {
        throw new UnsupportedOperationException("a worker's server connection has no remote load");
    }

    @Override
    public int getPort() {
        return port;
    }

    /** Storm's {@code __recv-iconnection}: the stock server's keys, and JetStream's receiver and ring counters. */
    @Override
    public Object getState() {
        Map<String, Object> state = new HashMap<>();
        state.put("dequeuedMessages", 0);
        Map<String, Long> perSender = new HashMap<>();
        enqueued.forEach((sender, count) -> perSender.put(sender, count.getAndSet(0)));
        state.put("enqueued", perSender);
        state.put("jetstream", receiver.metrics().snapshot());
        return state;
    }

    /** The JetStream receiver underneath (tests, metrics). */
    InboundEndpoint receiver() {
        return receiver;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        receiver.close();
        meters.onServerClosed(receiver.metrics().ringBatches());
        if (registry != null) {
            registry.deregister(gauges);
        }
    }

    @Override
    public String toString() {
        return "JetStreamServerConnection[port " + port + "]";
    }
}
