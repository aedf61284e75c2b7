package io.jetstream.core.ring;

import io.jetstream.core.config.ConfigOption;
import io.jetstream.core.config.OptionGroup;
import io.jetstream.core.internal.ring.RecordDescriptor;
import io.jetstream.core.internal.ring.RingDescriptor;
import java.util.List;

/** Options of the shared-memory ring, under {@code ring.} in every engine's JetStream prefix. */
public final class RingOptions {
    private RingOptions() {}

    public static final ConfigOption<String> DIRECTORY = ConfigOption.stringOption(
            "ring.directory",
            "auto",
            "Directory of the ring files. `auto`: /dev/shm/jetstream-<user> where /dev/shm exists, "
                    + "else <java.io.tmpdir>/jetstream-<user>. Created owner-only; refused if another user owns it "
                    + "or others can write to it.");

    public static final ConfigOption<Integer> CAPACITY = ConfigOption.powerOfTwoOption(
            "ring.capacity-bytes",
            8 << 20,
            RingDescriptor.MIN_CAPACITY,
            RingDescriptor.MAX_CAPACITY,
            "Data bytes of each ring (TurboStream found 50-100x the message size right).");

    public static final ConfigOption<Integer> MAX_RECORD = ConfigOption.intOption(
            "ring.max-record-bytes",
            1 << 20,
            0,
            RingDescriptor.MAX_CAPACITY / 2,
            "Largest payload of one record (a batch counts as one); must be at most half the capacity.");

    public static final ConfigOption<Integer> WINDOW = ConfigOption.intOption(
            "ring.window-bytes",
            1 << 20,
            RecordDescriptor.ALIGNMENT,
            RingDescriptor.MAX_CAPACITY,
            "How far the consumer reads ahead of a record still being written (the sliding window of "
                    + "TurboStream §IV-B); at most the capacity.");

    public static final ConfigOption<Long> LIVENESS_INTERVAL_MS = ConfigOption.longOption(
            "ring.liveness-check-interval-ms",
            100,
            1,
            60_000,
            "How often the consumer checks whether the producer of a record stuck in WRITING is still alive.");

    public static final ConfigOption<Long> PRODUCER_WAIT_MS = ConfigOption.longOption(
            "ring.producer-wait-ms",
            30_000,
            0,
            3_600_000,
            "How long a producer waits for space in a full ring before reporting back-pressure to its caller.");

    public static final ConfigOption<Integer> IDLE_SPINS = ConfigOption.intOption(
            "ring.idle.max-spins", 100, 0, 1_000_000, "Busy spins of an idle consumer before it yields. The default "
                    + "hands the core back within microseconds and wakes in 25-35 us on the wake-up socket; 1000000 "
                    + "(tens of milliseconds) keeps a consumer of steady traffic spinning, a core per ring, for a "
                    + "one-way hop of 2-5 us (Storm's Netty: 50-70 us; docs/benchmarks.md): for hosts with a core to spare.");

    public static final ConfigOption<Integer> IDLE_YIELDS = ConfigOption.intOption(
            "ring.idle.max-yields", 0, 0, 1_000_000, "Thread yields of an idle consumer before it parks (or blocks on "
                    + "its wake-up socket). 0 by default: on a host with more runnable threads than cores a yield gives the "
                    + "core away for a time slice, and the next message waits for it (measured in a Storm cluster of four "
                    + "workers on two cores: complete-latency p50 at 1,000 tuples/s 29 ms with 10 yields, 9.5 ms without; "
                    + "docs/benchmarks.md).");

    public static final ConfigOption<Long> IDLE_MIN_PARK_NS = ConfigOption.longOption(
            "ring.idle.min-park-ns", 1_000, 1, 1_000_000_000, "First park of an idle consumer, doubled up to the maximum.");

    public static final ConfigOption<Long> IDLE_MAX_PARK_NS = ConfigOption.longOption(
            "ring.idle.max-park-ns", 50_000, 1, 1_000_000_000,
            "Longest park of an idle consumer: bounds the latency of the first message after a quiet spell.");

    public static final ConfigOption<Boolean> WAKEUP = ConfigOption.booleanOption(
            "ring.wakeup",
            true,
            "An idle consumer blocks on a Unix-domain socket next to the ring and producers wake it "
                    + "(no CPU while idle, microseconds to wake). When false it backs off with parks.");

    public static final ConfigOption<Long> IDLE_MAX_BLOCK_MS = ConfigOption.longOption(
            "ring.idle.max-block-ms", 100, 1, 60_000,
            "Longest block of a consumer waiting for a wake-up; it then polls anyway (liveness checks, missed signals).");

    public static final OptionGroup GROUP = new OptionGroup(
            "Shared-memory ring",
            "ring.",
            "Read by the components that open rings between JVMs on one host (TurboStream's OSRBuffer). "
                    + "The same keys apply in Flink under `taskmanager.network.jetstream.` "
                    + "(for example `taskmanager.network.jetstream.ring.capacity-bytes`).",
            List.of(DIRECTORY, CAPACITY, MAX_RECORD, WINDOW, LIVENESS_INTERVAL_MS, PRODUCER_WAIT_MS,
                    IDLE_SPINS, IDLE_YIELDS, IDLE_MIN_PARK_NS, IDLE_MAX_PARK_NS, WAKEUP, IDLE_MAX_BLOCK_MS));
}
