package io.jetstream.storm.transport;

import io.jetstream.core.config.ConfigOption;
import io.jetstream.core.config.OptionGroup;
import java.util.List;

/** Options of the Storm transport, read from the worker's configuration under {@code jetstream.}. */
public final class JetStreamTransportOptions {
    private JetStreamTransportOptions() {}

    /** Storm's own Netty messaging context. */
    public static final String STORM_NETTY_CONTEXT = "org.apache.storm.messaging.netty.Context";

    public static final ConfigOption<String> DELEGATE_CONTEXT = ConfigOption.classOption(
            "storm.delegate-context",
            STORM_NETTY_CONTEXT,
            "org.apache.storm.messaging.IContext",
            "The messaging context that moves the bytes underneath JetStream's connections. Until "
                    + "JetStream's own Netty and shared-memory paths land this is Storm's Netty context.");

    public static final OptionGroup GROUP = new OptionGroup(
            "Storm transport",
            "storm.",
            "Read by `io.jetstream.storm.transport.JetStreamContext` when a worker starts "
                    + "(selected with `storm.messaging.transport`).",
            List.of(DELEGATE_CONTEXT));

    /**
     * Every group this adapter reads: its own and core's (transport, batching, ring, latency
     * constraints), loaded together so that each documented key is accepted and a typo anywhere
     * under the prefix is refused at start-up.
     */
    public static final OptionGroup[] GROUPS = concat(GROUP, io.jetstream.core.transport.TransportSettings.GROUPS);

    private static OptionGroup[] concat(OptionGroup own, OptionGroup[] core) {
        OptionGroup[] all = java.util.Arrays.copyOf(core, core.length + 1);
        all[core.length] = own;
        return all;
    }
}
