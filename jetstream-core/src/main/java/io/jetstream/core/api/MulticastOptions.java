package io.jetstream.core.api;

import io.jetstream.core.config.ConfigOption;
import io.jetstream.core.config.OptionGroup;
import java.util.List;

/**
 * Options of a multicast stream ({@link Transport#openMulticast}): one stream to several destinations,
 * directly or through a replicating node of a destination site (docs/cross-site.md, "One stream to
 * several sites"). Keys under {@code multicast.}.
 */
public final class MulticastOptions {
    private MulticastOptions() {}

    /** What a destination that cannot keep up does to the others (Aeron's flow-control modes, made explicit). */
    public enum SlowDestination {
        /**
         * The slowest destination sets the pace (Aeron's minimum flow control): when it trails the newest
         * record by {@code multicast.max-lag-bytes}, the stream pushes back on its producer. A destination
         * that takes nothing for {@code multicast.hold-timeout-ms} while it holds the others is dropped
         * (reason {@code slow}) and the others go on.
         */
        HOLD,
        /**
         * The others go on (Aeron's maximum flow control): a slow destination's records wait for it in its own
         * stream (memory, then its journal where the transport has one), then in the multicast's log; one that
         * trails the newest record by more than {@code multicast.max-lag-bytes} is dropped (reason {@code lagged}).
         */
        LEAVE_BEHIND
    }

    public static final ConfigOption<SlowDestination> SLOW_DESTINATION = ConfigOption.enumOption(
            "multicast.slow-destination", SlowDestination.class, SlowDestination.HOLD,
            "`hold`: the slowest destination sets the pace, up to `multicast.hold-timeout-ms`; `leave-behind`: "
                    + "the others go on and a destination that trails by more than `multicast.max-lag-bytes` is dropped.");

    public static final ConfigOption<Long> MAX_LAG_BYTES = ConfigOption.longOption(
            "multicast.max-lag-bytes", 64L << 20, 64L << 10, 1L << 29,
            "Most record bytes a destination may trail the newest record by (records offered to its stream and, for a "
                    + "replicating node, not yet confirmed by its site's destinations are kept this long, to be sent "
                    + "again if the node is lost).");

    public static final ConfigOption<Long> HOLD_TIMEOUT_MS = ConfigOption.longOption(
            "multicast.hold-timeout-ms", 10_000, 0, 3_600_000,
            "With `hold`: how long a destination may hold the others without taking a record before it is dropped; 0: "
                    + "never dropped.");

    public static final ConfigOption<Integer> BUFFER_BYTES = ConfigOption.powerOfTwoOption(
            "multicast.buffer-bytes", 4 << 20, 64 << 10, 1 << 30,
            "Bytes of the hand-over ring between the producer and the multicast's sending thread; a record may be at "
                    + "most an eighth of it.");

    public static final ConfigOption<Long> FAILOVER_TIMEOUT_MS = ConfigOption.longOption(
            "multicast.failover-timeout-ms", 3_000, 1, 600_000,
            "How long a replicating node may be unreachable before its site's destinations are sent to directly, "
                    + "from the oldest record the node had not confirmed.");

    public static final ConfigOption<Long> PLAN_INTERVAL_MS = ConfigOption.longOption(
            "multicast.plan.interval-ms", 2_000, 10, 3_600_000,
            "A planned multicast (`Transport.openPlannedMulticast`): how often it re-decides, from what it measured, which "
                    + "sites get the stream directly and which through their replicating node.");

    public static final ConfigOption<Double> PLAN_PRICE_PER_GB = ConfigOption.doubleOption(
            "multicast.plan.price-per-gb", 0.09, 0, 1_000_000,
            "Price of a GB (10^9 bytes) leaving the sender's site: what the plan's spend is counted in.");

    public static final ConfigOption<Double> PLAN_SPEND_LIMIT_PER_HOUR = ConfigOption.doubleOption(
            "multicast.plan.spend-limit-per-hour", 0, 0, 1e12,
            "Most to spend per hour on the stream's outbound bytes; within it, the lowest latency. 0: no limit.");

    public static final ConfigOption<Double> PLAN_LATENCY_BOUND_MS = ConfigOption.doubleOption(
            "multicast.plan.latency-bound-ms", 0, 0, 3_600_000,
            "Most latency any destination site may see (as the model predicts it); within it, the lowest spend. 0: no bound "
                    + "(then, within the spend limit, the lowest latency).");

    public static final ConfigOption<Double> PLAN_OUTBOUND_QUOTA_MBIT = ConfigOption.doubleOption(
            "multicast.plan.outbound-quota-mbit", 1_000, 0.001, 1e7,
            "The sender's bandwidth to other sites, Mbit/s (a cloud instance's egress allowance): the model's link throughput "
                    + "and Atmosphere's W_p in the bound on direct connections.");

    public static final ConfigOption<Double> PLAN_CPU_TARGET = ConfigOption.doubleOption(
            "multicast.plan.cpu-target", 0.5, 0.01, 1,
            "Share of one core the multicast's sending thread may use: Atmosphere's bound on direct connections is this over "
                    + "the measured CPU per connection.");

    public static final ConfigOption<Double> PLAN_INTRA_SITE_MBIT = ConfigOption.doubleOption(
            "multicast.plan.intra-site-mbit", 10_000, 0.001, 1e7,
            "Throughput from a replicating node to the receivers of its site, Mbit/s (the model's thr_IntraSite).");

    public static final ConfigOption<Double> PLAN_INTRA_SITE_LATENCY_MS = ConfigOption.doubleOption(
            "multicast.plan.intra-site-latency-ms", 3, 0, 60_000,
            "What one hop through a replicating node adds besides its transfer, ms: its receipt, hand-over thread and "
                    + "second send inside the site (2.9 ms measured on the emulated sites, docs/benchmarks.md).");

    public static final ConfigOption<Double> PLAN_HYSTERESIS = ConfigOption.doubleOption(
            "multicast.plan.hysteresis", 0.1, 0, 0.99,
            "How much better (cheaper under a latency bound, else faster) a plan must be to replace one that keeps the goal.");

    public static final OptionGroup GROUP = new OptionGroup(
            "Multicast",
            "multicast.",
            "Read when a multicast stream opens (`Transport.openMulticast`). The choice between direct multicast and "
                    + "replication at a destination site: docs/cross-site.md.",
            List.of(SLOW_DESTINATION, MAX_LAG_BYTES, HOLD_TIMEOUT_MS, BUFFER_BYTES, FAILOVER_TIMEOUT_MS, PLAN_INTERVAL_MS,
                    PLAN_PRICE_PER_GB, PLAN_SPEND_LIMIT_PER_HOUR, PLAN_LATENCY_BOUND_MS, PLAN_OUTBOUND_QUOTA_MBIT, PLAN_CPU_TARGET,
                    PLAN_INTRA_SITE_MBIT, PLAN_INTRA_SITE_LATENCY_MS, PLAN_HYSTERESIS));
}
