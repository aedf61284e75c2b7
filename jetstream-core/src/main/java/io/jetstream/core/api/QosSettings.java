package io.jetstream.core.api;

import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.core.model.LatencyConstraint;
import io.jetstream.core.model.OutputBufferRule;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Validated settings of output-buffer adaptation, from {@link QosOptions} or built directly. Immutable.
 *
 * @param latencyBoundMillis the constraint's bound l; 0 when adaptation is off
 * @param windowNanos the constraint's span t
 * @param measurementIntervalNanos reporting and tagging interval
 * @param initialBufferBytes a channel's size before adaptation
 * @param rule the resizing rule (ε, ω, threshold, r, s, ≈ 0)
 */
public record QosSettings(double latencyBoundMillis, long windowNanos, long measurementIntervalNanos, int initialBufferBytes,
        OutputBufferRule rule) {

    public QosSettings {
        if (latencyBoundMillis < 0 || windowNanos <= 0 || measurementIntervalNanos <= 0 || windowNanos < measurementIntervalNanos
                || rule == null || initialBufferBytes < rule.minBytes() || initialBufferBytes > rule.maxBytes()) {
            throw new IllegalArgumentException("invalid QoS settings: " + this);
        }
    }

    public static QosSettings from(JetStreamConfig config) {
        long window = config.get(QosOptions.WINDOW_MS);
        long interval = config.get(QosOptions.MEASUREMENT_INTERVAL_MS);
        if (window < interval) {
            throw new InvalidConfigurationException(config.keyOf(QosOptions.WINDOW_MS), window,
                    "at least " + config.keyOf(QosOptions.MEASUREMENT_INTERVAL_MS) + " (" + interval + ")");
        }
        int min = config.get(QosOptions.MIN_BUFFER_BYTES);
        int max = config.get(QosOptions.MAX_BUFFER_BYTES);
        int initial = config.get(QosOptions.INITIAL_BUFFER_BYTES);
        if (max < min) {
            throw new InvalidConfigurationException(config.keyOf(QosOptions.MAX_BUFFER_BYTES), max,
                    "at least " + config.keyOf(QosOptions.MIN_BUFFER_BYTES) + " (" + min + ")");
        }
        if (initial < min || initial > max) {
            throw new InvalidConfigurationException(config.keyOf(QosOptions.INITIAL_BUFFER_BYTES), initial,
                    "between " + config.keyOf(QosOptions.MIN_BUFFER_BYTES) + " (" + min + ") and "
                            + config.keyOf(QosOptions.MAX_BUFFER_BYTES) + " (" + max + ")");
        }
        OutputBufferRule rule = new OutputBufferRule(config.get(QosOptions.THRESHOLD_MS), config.get(QosOptions.SHRINK_BASE),
                config.get(QosOptions.GROW_FACTOR), min, max, config.get(QosOptions.ZERO_MS));
        return new QosSettings(config.get(QosOptions.LATENCY_BOUND_MS), TimeUnit.MILLISECONDS.toNanos(window),
                TimeUnit.MILLISECONDS.toNanos(interval), initial, rule);
    }

    public boolean enabled() {
        return latencyBoundMillis > 0;
    }

    /**
     * The per-channel constraint these settings impose: the channel, with its source task when one is
     * measured ({@code sourceTask} non-null: its latency counts towards l and gates shrinking), within
     * l over t. A transport that sees no tasks passes null: then the channel alone is bounded.
     */
    public LatencyConstraint channelConstraint(String channel, String sourceTask) {
        if (!enabled()) {
            throw new IllegalStateException("qos.latency-bound-ms is 0: no constraint");
        }
        List<LatencyConstraint.Element> sequence = sourceTask == null
                ? List.of(LatencyConstraint.Element.channel(channel, null))
                : List.of(LatencyConstraint.Element.task(sourceTask), LatencyConstraint.Element.channel(channel, sourceTask));
        return new LatencyConstraint(channel + " <= " + latencyBoundMillis + " ms", sequence, latencyBoundMillis, windowNanos);
    }
}
