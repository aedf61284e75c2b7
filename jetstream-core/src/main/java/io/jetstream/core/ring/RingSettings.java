package io.jetstream.core.ring;

import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.core.internal.ring.RecordDescriptor;
import io.jetstream.core.internal.ring.RingDescriptor;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

/**
 * Validated settings of a ring, from {@link RingOptions} or built directly. Immutable.
 *
 * @param directory where ring files live (already resolved, see {@link RingDirectory})
 * @param capacity data bytes, a power of two
 * @param maxRecordLength largest payload of one record
 * @param windowBytes how far the consumer reads past a record still being written
 * @param livenessCheckIntervalNanos throttle of producer liveness checks
 * @param producerWaitNanos how long {@link RingProducer#claim} waits for space
 * @param idleSpins idle strategy: spins
 * @param idleYields idle strategy: yields
 * @param idleMinParkNanos idle strategy: first park
 * @param idleMaxParkNanos idle strategy: longest park
 * @param wakeup whether an idle consumer blocks on the wake-up socket instead of parking
 * @param maxBlockMillis longest block waiting for a wake-up
 * @param nanoClock monotonic clock of the liveness throttle (injected in tests)
 */
public record RingSettings(
        Path directory,
        int capacity,
        int maxRecordLength,
        int windowBytes,
        long livenessCheckIntervalNanos,
        long producerWaitNanos,
        int idleSpins,
        int idleYields,
        long idleMinParkNanos,
        long idleMaxParkNanos,
        boolean wakeup,
        long maxBlockMillis,
        LongSupplier nanoClock) {

    public RingSettings {
        if (capacity < RingDescriptor.MIN_CAPACITY || capacity > RingDescriptor.MAX_CAPACITY || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("ring capacity must be a power of two from "
                    + RingDescriptor.MIN_CAPACITY + " to " + RingDescriptor.MAX_CAPACITY + ": " + capacity);
        }
        if (maxRecordLength < 0 || RecordDescriptor.recordLength(maxRecordLength) > capacity / 2) {
            throw new IllegalArgumentException("max record length " + maxRecordLength
                    + " must fit in half the capacity " + capacity + " with its header");
        }
        if (windowBytes < RecordDescriptor.ALIGNMENT || windowBytes > capacity) {
            throw new IllegalArgumentException("window " + windowBytes + " must be within the capacity " + capacity);
        }
        if (idleMinParkNanos > idleMaxParkNanos) {
            throw new IllegalArgumentException("idle min park " + idleMinParkNanos + " exceeds max park " + idleMaxParkNanos);
        }
    }

    /** Defaults of {@link RingOptions}, in {@code directory}. */
    public static RingSettings defaults(Path directory) {
        return new RingSettings(directory,
                RingOptions.CAPACITY.defaultValue(),
                RingOptions.MAX_RECORD.defaultValue(),
                RingOptions.WINDOW.defaultValue(),
                TimeUnit.MILLISECONDS.toNanos(RingOptions.LIVENESS_INTERVAL_MS.defaultValue()),
                TimeUnit.MILLISECONDS.toNanos(RingOptions.PRODUCER_WAIT_MS.defaultValue()),
                RingOptions.IDLE_SPINS.defaultValue(),
                RingOptions.IDLE_YIELDS.defaultValue(),
                RingOptions.IDLE_MIN_PARK_NS.defaultValue(),
                RingOptions.IDLE_MAX_PARK_NS.defaultValue(),
                RingOptions.WAKEUP.defaultValue(),
                RingOptions.IDLE_MAX_BLOCK_MS.defaultValue(),
                System::nanoTime);
    }

    /**
     * Reads the ring options of an engine configuration; cross-option constraints are reported
     * against the key that breaks them.
     */
    public static RingSettings from(JetStreamConfig config) {
        String dir = config.get(RingOptions.DIRECTORY);
        Path directory = dir.equals("auto") ? RingDirectory.defaultDirectory() : Path.of(dir);
        int capacity = config.get(RingOptions.CAPACITY);
        int maxRecord = config.get(RingOptions.MAX_RECORD);
        if (RecordDescriptor.recordLength(maxRecord) > capacity / 2) {
            throw new InvalidConfigurationException(config.keyOf(RingOptions.MAX_RECORD), maxRecord,
                    "at most half of " + config.keyOf(RingOptions.CAPACITY) + " (" + capacity + ") minus the 16-byte header");
        }
        int window = config.get(RingOptions.WINDOW);
        if (window > capacity) {
            throw new InvalidConfigurationException(config.keyOf(RingOptions.WINDOW), window,
                    "at most " + config.keyOf(RingOptions.CAPACITY) + " (" + capacity + ")");
        }
        long minPark = config.get(RingOptions.IDLE_MIN_PARK_NS);
        long maxPark = config.get(RingOptions.IDLE_MAX_PARK_NS);
        if (minPark > maxPark) {
            throw new InvalidConfigurationException(config.keyOf(RingOptions.IDLE_MIN_PARK_NS), minPark,
                    "at most " + config.keyOf(RingOptions.IDLE_MAX_PARK_NS) + " (" + maxPark + ")");
        }
        return new RingSettings(directory, capacity, maxRecord, window,
                TimeUnit.MILLISECONDS.toNanos(config.get(RingOptions.LIVENESS_INTERVAL_MS)),
                TimeUnit.MILLISECONDS.toNanos(config.get(RingOptions.PRODUCER_WAIT_MS)),
                config.get(RingOptions.IDLE_SPINS), config.get(RingOptions.IDLE_YIELDS), minPark, maxPark,
                config.get(RingOptions.WAKEUP), config.get(RingOptions.IDLE_MAX_BLOCK_MS),
                System::nanoTime);
    }

    public RingSettings withCapacity(int newCapacity, int newMaxRecord, int newWindow) {
        return new RingSettings(directory, newCapacity, newMaxRecord, newWindow, livenessCheckIntervalNanos,
                producerWaitNanos, idleSpins, idleYields, idleMinParkNanos, idleMaxParkNanos, wakeup, maxBlockMillis, nanoClock);
    }

    public RingSettings withProducerWait(long nanos) {
        return new RingSettings(directory, capacity, maxRecordLength, windowBytes, livenessCheckIntervalNanos,
                nanos, idleSpins, idleYields, idleMinParkNanos, idleMaxParkNanos, wakeup, maxBlockMillis, nanoClock);
    }

    public RingSettings withClock(LongSupplier clock, long livenessIntervalNanos) {
        return new RingSettings(directory, capacity, maxRecordLength, windowBytes, livenessIntervalNanos,
                producerWaitNanos, idleSpins, idleYields, idleMinParkNanos, idleMaxParkNanos, wakeup, maxBlockMillis, clock);
    }

    public RingSettings withIdle(int spins, int yields, long minParkNanos, long maxParkNanos) {
        return new RingSettings(directory, capacity, maxRecordLength, windowBytes, livenessCheckIntervalNanos,
                producerWaitNanos, spins, yields, minParkNanos, maxParkNanos, wakeup, maxBlockMillis, nanoClock);
    }

    public RingSettings withWakeup(boolean enabled, long blockMillis) {
        return new RingSettings(directory, capacity, maxRecordLength, windowBytes, livenessCheckIntervalNanos,
                producerWaitNanos, idleSpins, idleYields, idleMinParkNanos, idleMaxParkNanos, enabled, blockMillis, nanoClock);
    }

    /** A new idle strategy (spin, yield, then park with doubling) for one waiting thread. */
    public IdleStrategy newIdleStrategy() {
        return new BackoffIdleStrategy(idleSpins, idleYields, idleMinParkNanos, idleMaxParkNanos);
    }
}
