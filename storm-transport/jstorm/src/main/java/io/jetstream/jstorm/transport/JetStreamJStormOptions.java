package io.jetstream.jstorm.transport;

import io.jetstream.core.config.ConfigOption;
import io.jetstream.core.config.OptionGroup;
import java.util.List;

/** Options of the JStorm transport, read from the worker's configuration under {@code jetstream.}. */
public final class JetStreamJStormOptions {
    private JetStreamJStormOptions() {}

    /** JStorm's own Netty 3 messaging context. */
    public static final String JSTORM_NETTY_CONTEXT = "com.alibaba.jstorm.message.netty.NettyContext";

    public static final ConfigOption<String> DELEGATE_CONTEXT = ConfigOption.classOption(
            "jstorm.delegate-context",
            JSTORM_NETTY_CONTEXT,
            "backtype.storm.messaging.IContext",
            "The messaging context that moves the bytes underneath JetStream's connections. Until "
                    + "JetStream's own Netty and shared-memory paths land this is JStorm's Netty context.");

    public static final OptionGroup GROUP = new OptionGroup(
            "JStorm transport",
            "jstorm.",
            "Read by `io.jetstream.jstorm.transport.JetStreamJStormContext` when a JStorm worker starts "
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
