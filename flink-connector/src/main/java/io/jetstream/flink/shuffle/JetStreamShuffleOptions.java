package io.jetstream.flink.shuffle;

import io.jetstream.core.config.ConfigOption;
import io.jetstream.core.config.OptionGroup;
import java.util.List;

/**
 * Options of the Flink shuffle service, read by {@link JetStreamShuffleServiceFactory} on the
 * JobManager and on every TaskManager under {@code taskmanager.network.jetstream.}.
 */
public final class JetStreamShuffleOptions {
    private JetStreamShuffleOptions() {}

    public static final ConfigOption<Boolean> ENABLED = ConfigOption.booleanOption(
            "shuffle.enabled",
            true,
            "When false, the factory hands out Flink's own Netty shuffle environment undecorated: "
                    + "an escape hatch that keeps the cluster configuration unchanged otherwise.");

    public static final OptionGroup GROUP = new OptionGroup(
            "Flink shuffle service",
            "shuffle.",
            "Read at TaskManager start by `io.jetstream.flink.shuffle.JetStreamShuffleServiceFactory` "
                    + "(selected with `shuffle-service-factory.class`).",
            List.of(ENABLED));

    /**
     * Every group this adapter reads: its own and core's (transport, batching, ring, latency
     * constraints), loaded together so that each documented key is accepted and a typo anywhere
     * under the prefix is refused at start-up.
     */
    public static final OptionGroup[] GROUPS = concat(io.jetstream.core.api.TransportSettings.GROUPS,
            GROUP, io.jetstream.flink.flush.FlushOptions.GROUP,
            io.jetstream.flink.ring.RingShuffleOptions.GROUP);

    private static OptionGroup[] concat(OptionGroup[] core, OptionGroup... own) {
        OptionGroup[] all = java.util.Arrays.copyOf(core, core.length + own.length);
        System.arraycopy(own, 0, all, core.length, own.length);
        return all;
    }
}
