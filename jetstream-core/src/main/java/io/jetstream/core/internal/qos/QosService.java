package io.jetstream.core.internal.qos;

import io.jetstream.core.api.QosSettings;
import io.jetstream.core.model.LatencyConstraint;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Nephele's output-buffer adaptation for the channels of one worker (a transport instance): one
 * {@link QosReporter} and one {@link QosManager} over every registered channel, each channel under the
 * constraint of {@code qos.latency-bound-ms} ({@link QosSettings#channelConstraint}). Once per
 * measurement interval it drains every channel's {@link ChannelMeasurements} into the reporter, whose
 * report goes to the manager, and lets the manager resize the buffers of violated constraints; a
 * winning size reaches the channel through the sink it registered (its {@code FlushPolicy::setSizeCap}).
 *
 * <p>Thread-safe: registration and {@link #runInterval} synchronise on the service. {@link #runInterval}
 * takes the time as an argument (tests drive it in virtual time); {@link #start} runs it on a daemon
 * thread of its own every interval, on the clock given to the constructor.
 */
public final class QosService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(QosService.class);

    private final QosSettings settings;
    private final LongSupplier nanoClock;
    private final ChannelBuffers buffers;
    private final QosManager manager;
    private final QosReporter reporter;
    private final Map<String, ChannelMeasurements> channels = new LinkedHashMap<>();
    private final Map<String, Long> lastFailureLog = new LinkedHashMap<>();
    private final List<QosListener> listeners = new CopyOnWriteArrayList<>();
    /** Each channel's own listener (its gauges), and the channel of each constraint. Guarded by this. */
    private final Map<String, QosListener> channelListeners = new LinkedHashMap<>();
    private final Map<String, String> channelOfConstraint = new LinkedHashMap<>();
    private final AtomicLong violations = new AtomicLong();
    private final AtomicLong resizes = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private ScheduledExecutorService timer;
    /** The time of the interval being run (for rate-limiting logs). */
    private long now;

    /**
     * @param listener told of every decision, after it is logged and counted (more with {@link #addListener})
     * @param nanoClock the clock of {@link #start}'s intervals and of the reporter's first interval
     */
    public QosService(QosSettings settings, QosListener listener, LongSupplier nanoClock) {
        if (!settings.enabled()) {
            throw new IllegalArgumentException("qos.latency-bound-ms is 0: output-buffer adaptation is off");
        }
        this.settings = settings;
        this.nanoClock = nanoClock;
        this.buffers = new ChannelBuffers(settings.initialBufferBytes());
        this.listeners.add(listener);
        this.manager = new QosManager(List.of(), settings.rule(), buffers, new Decisions());
        this.reporter = new QosReporter(settings.measurementIntervalNanos(), nanoClock.getAsLong(), manager::onReport);
    }

    /**
     * Puts {@code channel} under the constraint and hands its output buffer size to {@code sizeSink}
     * now (the initial size) and after every resize, on the calling or the service's thread.
     *
     * @throws IllegalStateException if a channel of that name is registered already
     */
    public ChannelMeasurements register(String channel, IntConsumer sizeSink) {
        return register(channel, sizeSink, QosListener.NONE);
    }

    /**
     * As {@link #register(String, IntConsumer)}, and tells {@code channelListener} of the decisions
     * about this channel only (its gauges), on the service's thread.
     */
    public synchronized ChannelMeasurements register(String channel, IntConsumer sizeSink, QosListener channelListener) {
        if (channels.containsKey(channel)) {
            throw new IllegalStateException("channel " + channel + " is already under a latency constraint");
        }
        ChannelMeasurements m = new ChannelMeasurements(channel, settings.measurementIntervalNanos());
        channels.put(channel, m);
        LatencyConstraint constraint = settings.channelConstraint(channel, null);
        manager.add(constraint);
        channelListeners.put(channel, channelListener);
        channelOfConstraint.put(constraint.name(), channel);
        buffers.bind(channel, sizeSink);
        LOG.info("Channel {} under a latency constraint of {} ms (window {} ms); output buffer {} B", channel,
                settings.latencyBoundMillis(), settings.windowNanos() / 1_000_000, buffers.get(channel).bytes());
        return m;
    }

    /** Takes {@code channel} out (it closed): its sink gets no further size, its measurements are forgotten. */
    public synchronized void unregister(String channel) {
        if (channels.remove(channel) != null) {
            String constraint = settings.channelConstraint(channel, null).name();
            buffers.forget(channel);
            manager.remove(constraint, channel);
            lastFailureLog.remove(constraint);
            channelListeners.remove(channel);
            channelOfConstraint.remove(constraint);
        }
    }

    /** One measurement interval's work at {@code nowNanos}: report, evaluate, resize. */
    public synchronized void runInterval(long nowNanos) {
        for (ChannelMeasurements m : channels.values()) {
            m.drainInto(reporter);
        }
        now = nowNanos;
        reporter.tick(nowNanos);
        manager.evaluate(nowNanos);
    }

    /** Runs {@link #runInterval} every measurement interval on a daemon thread named after {@code owner}. */
    public synchronized void start(String owner) {
        if (timer != null) {
            throw new IllegalStateException("already started");
        }
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "jetstream-qos-" + owner);
            t.setDaemon(true);
            return t;
        });
        long interval = settings.measurementIntervalNanos();
        timer.scheduleAtFixedRate(() -> {
            try {
                runInterval(nanoClock.getAsLong());
            } catch (RuntimeException e) {
                LOG.error("QoS interval failed; output buffers keep their sizes until the next one", e);
            }
        }, interval, interval, TimeUnit.NANOSECONDS);
    }

    /** Tells {@code listener} of every decision from now on (an engine's metrics), on the service's thread. */
    public void addListener(QosListener listener) {
        listeners.add(listener);
    }

    /** A registered channel's current output buffer size. */
    public int bufferBytes(String channel) {
        return buffers.get(channel).bytes();
    }

    /** Intervals in which a constraint was violated, summed over the constraints. */
    public long violations() {
        return violations.get();
    }

    /** Output buffer resizes applied. */
    public long resizes() {
        return resizes.get();
    }

    /** Intervals in which a violated constraint had no countermeasure left. */
    public long failures() {
        return failures.get();
    }

    @Override
    public synchronized void close() {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
        for (String channel : channels.keySet()) {
            buffers.unbind(channel);
        }
        channels.clear();
        channelListeners.clear();
        channelOfConstraint.clear();
    }

    /**
     * Logs and counts each decision, then tells the listeners and the channel's own. Runs on the
     * service's thread, under its lock.
     */
    private final class Decisions implements QosListener {
        private QosListener of(LatencyConstraint constraint) {
            String channel = channelOfConstraint.get(constraint.name());
            return channel == null ? QosListener.NONE : channelListeners.getOrDefault(channel, QosListener.NONE);
        }

        @Override
        public void onViolation(LatencyConstraint constraint, double estimateMillis) {
            violations.incrementAndGet();
            LOG.debug("Constraint {} violated: {} ms", constraint.name(), estimateMillis);
            listeners.forEach(l -> l.onViolation(constraint, estimateMillis));
            of(constraint).onViolation(constraint, estimateMillis);
        }

        @Override
        public void onResize(String channel, int fromBytes, int toBytes, double outputBufferLatencyMillis) {
            resizes.incrementAndGet();
            LOG.info("Channel {}: output buffer {} B -> {} B (output buffer latency {} ms)", channel, fromBytes, toBytes,
                    String.format("%.2f", outputBufferLatencyMillis));
            listeners.forEach(l -> l.onResize(channel, fromBytes, toBytes, outputBufferLatencyMillis));
            channelListeners.getOrDefault(channel, QosListener.NONE).onResize(channel, fromBytes, toBytes, outputBufferLatencyMillis);
        }

        @Override
        public void onFailed(LatencyConstraint constraint, double estimateMillis) {
            failures.incrementAndGet();
            Long last = lastFailureLog.get(constraint.name());
            if (last == null || now - last >= 60_000_000_000L) { // at most once a minute per constraint
                lastFailureLog.put(constraint.name(), now);
                LOG.warn("Constraint {} cannot be met: {} ms estimated and no output buffer left to resize "
                        + "(the rest is transfer and task time; a larger bound or a faster link is needed)",
                        constraint.name(), String.format("%.2f", estimateMillis));
            }
            listeners.forEach(l -> l.onFailed(constraint, estimateMillis));
            of(constraint).onFailed(constraint, estimateMillis);
        }
    }
}
