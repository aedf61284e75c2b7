package io.jetstream.storm.transport;

import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.Transport;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.agrona.DirectBuffer;
import org.apache.storm.Config;
import org.apache.storm.grouping.Load;
import org.apache.storm.messaging.ConnectionWithStatus;
import org.apache.storm.messaging.TaskMessage;
import org.apache.storm.messaging.netty.BackPressureStatus;
import org.apache.storm.metric.api.IStatefulObject;
import org.apache.storm.metrics2.StormMetricRegistry;
import org.apache.storm.policy.IWaitStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's client connection to one remote worker: a JetStream {@link OutboundStream}. Each
 * tuple of a {@code send()} is offered to the stream (copied into the open batch, no allocation);
 * at the end of the {@code send()} the stream is told so ({@link OutboundStream#endOfSend}), and
 * sends at once what it holds when waiting would only leave the link idle — never later than the
 * stock transport, which flushes at the end of every {@code send()} — while under load batches
 * fill. Same-host workers get the receiver's shared-memory ring as their route.
 *
 * <p>Storm's contract: {@code Connecting} until the handshake completes, then {@code Ready},
 * {@code Closed} after {@link #close()}; {@link #send} consumes the iterator completely and never
 * throws into the worker — while not ready a best-effort stream drops and counts, as stock does;
 * while the receiver pushes back it waits with Storm's back-pressure wait strategy up to
 * {@code jetstream.storm.send-wait-ms}, then drops and counts; racing {@link #close()} it drops and
 * counts. The receiving worker's back-pressure status and load arrive as CONTROL frames, in order.
 *
 * <p>Threading contract (Storm's): {@link #send} is called by the worker's single transfer thread;
 * the rest from any thread.
 */
final class JetStreamClientConnection extends ConnectionWithStatus implements IStatefulObject {
    private static final Logger LOG = LoggerFactory.getLogger(JetStreamClientConnection.class);
    private static final byte[] EMPTY = new byte[0];

    private final OutboundStream stream;
    private final InetSocketAddress remote;
    private final TransportMeters meters;
    private final StormMetricRegistry registry;
    private final Set<com.codahale.metrics.Metric> gauges = new HashSet<>();
    private final IWaitStrategy waitStrategy;
    private final long sendWaitNanos;
    /** Storm's default {@code topology.backpressure.wait.strategy} (defaults.yaml of storm-client 2.8). */
    private static final String DEFAULT_WAIT_STRATEGY = "org.apache.storm.policy.WaitStrategyProgressive";
    private final AtomicBoolean[] remoteBpStatus;
    /** The remote worker's task loads, replaced whole by each LOAD frame. */
    private volatile Map<Integer, Double> serverLoad = Map.of();
    private volatile boolean closed;
    /** Records dropped in send() because they could not be offered (not ready, pushed back too long, closed, too large). */
    private volatile long droppedInSend;
    private long lastDropLogNanos;

    JetStreamClientConnection(Transport transport, String streamId, InetSocketAddress remote, AtomicBoolean[] remoteBpStatus,
            TransportMeters meters, StormMetricRegistry registry, JetStreamContext.WorkerSettings settings) {
        this.remote = remote;
        this.meters = meters;
        this.registry = registry;
        this.remoteBpStatus = remoteBpStatus;
        this.sendWaitNanos = settings.sendWaitNanos();
        this.waitStrategy = IWaitStrategy.createBackPressureWaitStrategy(withDefaultWaitStrategy(settings.conf()));
        this.stream = transport.openSender(streamId, remote, new Controls());
        if (registry != null) {
            String where = remote.getHostString() + ":" + remote.getPort();
            if (settings.sendMetrics()) {
                gauge("__send-iconnection-reconnects-" + where, () -> stream.metrics().reconnects());
                gauge("__send-iconnection-sent-" + where, () -> stream.metrics().recordsSealed());
                gauge("__send-iconnection-pending-" + where, stream::batchesInFlight);
                gauge("__send-iconnection-lostOnSend-" + where, () -> stream.metrics().recordsDropped() + droppedInSend);
            }
            stream.metrics().snapshot().keySet().forEach(name ->
                    gauge("jetstream.send." + name + "-" + where, () -> stream.metrics().snapshot().get(name)));
            stream.controlGauges().forEach((name, value) -> gauge("jetstream.send." + name + "-" + where, value::getAsDouble));
        }
    }

    /**
     * The worker's configuration, naming Storm's default back-pressure wait strategy when it names none
     * (a worker's configuration always does, from Storm's defaults.yaml; a hand-made one may not).
     */
    private static Map<String, Object> withDefaultWaitStrategy(Map<String, Object> conf) {
        if (conf.get(Config.TOPOLOGY_BACKPRESSURE_WAIT_STRATEGY) != null) {
            return conf;
        }
        Map<String, Object> completed = new HashMap<>(conf);
        completed.put(Config.TOPOLOGY_BACKPRESSURE_WAIT_STRATEGY, DEFAULT_WAIT_STRATEGY);
        return completed;
    }

    private void gauge(String name, com.codahale.metrics.Gauge<?> gauge) {
        gauges.add(registry.gauge(name, gauge, "__system", -1));
    }

    /** Applies the receiving worker's CONTROL frames: back-pressure status, load. I/O thread. */
    private final class Controls implements ControlListener {
        @Override
        public void onControl(int tag, DirectBuffer buffer, int offset, int length) {
            try {
                switch (tag) {
                    case StormControl.BACK_PRESSURE -> StormControl.applyBackPressure(buffer, offset, length, remoteBpStatus);
                    case StormControl.LOAD -> serverLoad = StormControl.readLoad(buffer, offset, length);
                    default -> LOG.warn("Connection to {}: unknown control tag {} ignored", remote, tag);
                }
            } catch (IllegalArgumentException e) {
                LOG.error("Connection to {}: malformed control frame (tag {}) ignored: {}", remote, tag, e.getMessage());
            }
        }
    }

    @Override
    public Status status() {
        if (closed) {
            return Status.Closed;
        }
        return stream.isReady() ? Status.Ready : Status.Connecting;
    }

    @Override
    public void send(Iterator<TaskMessage> msgs) {
        long records = 0;
        long bytes = 0;
        long dropped = 0;
        long waitUntil = 0;
        int idle = 0;
        while (msgs.hasNext()) {
            TaskMessage m = msgs.next();
            byte[] payload = m.message();
            int length = payload == null ? 0 : payload.length;
            int result;
            try {
                result = stream.offer(m.task(), payload == null ? EMPTY : payload, 0, length);
                while (result == OutboundStream.BACK_PRESSURED) {
                    long now = System.nanoTime();
                    if (waitUntil == 0) {
                        waitUntil = now + sendWaitNanos;
                    } else if (now - waitUntil >= 0) {
                        break; // waited long enough for this send(): the rest is dropped below
                    }
                    idle = waitStrategy.idle(idle);
                    result = stream.offer(m.task(), payload == null ? EMPTY : payload, 0, length);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the worker is shutting down
                result = OutboundStream.CLOSED;
            } catch (IllegalArgumentException e) {
                LOG.error("Connection to {}: a tuple of {} bytes for task {} is larger than a frame (jetstream.transport."
                        + "max-frame-bytes); dropped", remote, length, m.task());
                result = OutboundStream.FAILED;
            }
            if (result == OutboundStream.ACCEPTED) {
                records++;
                bytes += length;
                idle = 0;
            } else if (result != OutboundStream.NOT_CONNECTED) { // NOT_CONNECTED is counted by the stream
                dropped++;
            }
        }
        if (records > 0) {
            stream.endOfSend();
            meters.onSent(records, bytes);
        }
        if (dropped > 0) {
            droppedInSend += dropped;
            long now = System.nanoTime();
            if (now - lastDropLogNanos > 10_000_000_000L) {
                lastDropLogNanos = now;
                LOG.warn("Connection to {}: dropped {} tuples ({}): Storm's acking replays them", remote, dropped,
                        closed ? "the connection is closing" : stream.failure().map(Throwable::toString)
                                .orElse("the receiver pushed back for longer than jetstream.storm.send-wait-ms"));
            }
        }
    }

    @Override
    public void sendLoadMetrics(Map<Integer, Double> taskToLoad) {
        throw new UnsupportedOperationException("a client connection does not send load metrics (its worker's server does)");
    }

    @Override
    public void sendBackPressureStatus(BackPressureStatus bpStatus) {
        throw new UnsupportedOperationException("a client connection does not send back-pressure status (its worker's server does)");
    }

    /**
     * The remote tasks' load as their worker last announced it, with this connection's own load:
     * the share of the stream's outbox in use (as stock reports its pending messages).
     */
    @Override
    public Map<Integer, Load> getLoad(Collection<Integer> tasks) {
        Map<Integer, Double> loads = serverLoad;
        double connectionLoad = Math.min(1.0, (double) stream.bufferedBytes() / Math.max(1, stream.bufferLimitBytes()));
        Map<Integer, Load> result = new HashMap<>();
        for (Integer task : tasks) {
            Double load = loads.get(task);
            if (load != null) {
                result.put(task, new Load(true, load, connectionLoad));
            }
        }
        return result;
    }

    @Override
    public int getPort() {
        return remote.getPort();
    }

    /** The stock client's per-connection counters, and JetStream's stream counters (also gauges in Storm's registry). */
    @Override
    public Object getState() {
        Map<String, Object> state = new HashMap<>();
        state.put("reconnects", stream.metrics().reconnects());
        state.put("sent", stream.metrics().recordsSealed());
        state.put("pending", stream.batchesInFlight());
        state.put("lostOnSend", stream.metrics().recordsDropped() + droppedInSend);
        state.put("dest", remote.toString());
        state.put("jetstream", stream.metrics().snapshot());
        return state;
    }

    /** The JetStream stream underneath (tests, metrics). */
    OutboundStream stream() {
        return stream;
    }

    /**
     * Delivers what was handed over, waiting at most {@code storm.messaging.netty.flush_timeout_ms}
     * (and {@code jetstream.transport.close-timeout-ms}), then closes. A {@code send()} racing it drops
     * and counts. Never throws.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            stream.close();
        } catch (RuntimeException e) {
            LOG.warn("Closing the connection to {} failed: {}", remote, e.toString());
        }
        if (registry != null) {
            registry.deregister(gauges);
        }
    }

    @Override
    public String toString() {
        return "JetStreamClientConnection[" + remote + "]";
    }
}
