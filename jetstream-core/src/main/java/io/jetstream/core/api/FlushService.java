package io.jetstream.core.api;

import io.jetstream.core.internal.qos.QosListener;
import io.jetstream.core.internal.qos.QosService;
import io.jetstream.core.internal.transport.outbound.DeadlineFlusher;
import java.util.function.LongSupplier;

/**
 * The flush machinery an engine that owns its buffers runs once per process (a Flink TaskManager's
 * shuffle environment): one daemon thread that looks at every registered {@link Client} by its
 * earliest deadline (at most every millisecond while any has one), and, when a latency bound is
 * configured, Nephele's output-buffer rule over every channel opened through {@link #openChannel}.
 *
 * <p>One thread per process rather than per writer: an engine running dozens of tasks would pay a
 * wake-up per thread per deadline. The thread sleeps until the earliest deadline and is woken by a
 * writer that opens a batch with an earlier one ({@link #wakeFor}).
 *
 * <p>Thread-safe: {@link #register}, {@link #unregister}, {@link #openChannel}, {@link #closeChannel}
 * and {@link #close} from any thread; {@link #wakeFor} from writers (one volatile read, an unpark
 * only for an earlier deadline).
 */
public final class FlushService implements AutoCloseable {
    /** What the flusher drives: typically the channels of one partition, looked at together. */
    public interface Client {
        /** Flushes what is due; returns when to be called again, or {@link #NOTHING_DUE}. Flusher thread. */
        long onDeadline(long nowNanos);

        /** {@link #onDeadline} threw: the client stops with {@code cause} and is dropped; the others go on. */
        void fail(Throwable cause);
    }

    /** What {@link Client#onDeadline} returns when nothing of its own is due. */
    public static final long NOTHING_DUE = DeadlineFlusher.NONE;

    private final FlushControlSettings settings;
    private final LongSupplier clock;
    private final DeadlineFlusher flusher;
    private final QosService qos;

    /**
     * Starts the flusher thread ({@code jetstream-flusher-<name>}) and, when {@code settings} set a
     * latency bound, the QoS service.
     */
    public FlushService(FlushControlSettings settings, LongSupplier clock, String name) {
        this.settings = settings;
        this.clock = clock;
        this.flusher = new DeadlineFlusher(clock, name);
        if (settings.qos().enabled()) {
            qos = new QosService(settings.qos(), QosListener.NONE, clock);
            qos.start(name);
        } else {
            qos = null;
        }
    }

    public FlushControlSettings settings() {
        return settings;
    }

    /** Flush control of one channel, under the latency bound (as {@code channel}, unique in this process) when one is set. */
    public ChannelFlushControl openChannel(String channel) {
        ChannelFlushControl control = new ChannelFlushControl(settings, clock, flusher::wakeFor);
        if (qos != null) {
            control.bindQos(qos.register(channel, control.sizeCap()));
        }
        return control;
    }

    /** The channel opened as {@code channel} is gone (its latency measurements stop). */
    public void closeChannel(String channel) {
        if (qos != null) {
            qos.unregister(channel);
        }
    }

    public void register(Client client) {
        flusher.register(adapt(client));
    }

    public void unregister(Client client) {
        flusher.unregister(adapt(client));
    }

    /** A writer opened a batch that must be looked at by {@code deadlineNanos}. */
    public void wakeFor(long deadlineNanos) {
        flusher.wakeFor(deadlineNanos);
    }

    /** Stops the flusher thread (joins it) and the QoS service. */
    @Override
    public void close() {
        flusher.close();
        if (qos != null) {
            qos.close();
        }
    }

    /** The flusher's view of a client: equal for the same client, so that it can be unregistered. */
    private static DeadlineFlusher.Client adapt(Client client) {
        return new Adapted(client);
    }

    private record Adapted(Client client) implements DeadlineFlusher.Client {
        @Override
        public long onDeadline(long nowNanos) {
            return client.onDeadline(nowNanos);
        }

        @Override
        public void fail(Throwable cause) {
            client.fail(cause);
        }
    }
}
