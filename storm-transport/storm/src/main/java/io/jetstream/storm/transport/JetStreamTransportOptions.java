package io.jetstream.storm.transport;

import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigOption;
import io.jetstream.core.config.OptionGroup;
import java.util.Arrays;
import java.util.List;

/**
 * Options of the Storm transport, read from the worker's configuration (storm.yaml merged with the
 * topology's) under {@code jetstream.}: the adapter's own under {@code jetstream.storm.}, and core's
 * transport, batching, ring and latency-constraint options, which apply to every worker's streams.
 */
public final class JetStreamTransportOptions {
    private JetStreamTransportOptions() {}

    /** Which data path the worker's connections use. */
    public enum DataPath {
        /** JetStream's transport: the shared-memory ring between workers on one host, adaptive batches over TCP. */
        JETSTREAM,
        /** Storm's own Netty transport, unchanged: the explicit way back to stock behaviour. */
        STORM_NETTY
    }

    public static final ConfigOption<DataPath> DATA_PATH = ConfigOption.enumOption(
            "storm.data-path", DataPath.class, DataPath.JETSTREAM,
            "`jetstream`: tuples between workers move over JetStream's transport (the shared-memory ring "
                    + "between workers on one host, adaptively batched TCP between hosts). `storm-netty`: Storm's own "
                    + "Netty transport, exactly as without JetStream (the fallback).");

    public static final ConfigOption<Long> SEND_WAIT_MS = ConfigOption.longOption(
            "storm.send-wait-ms", 1_000, 0, 600_000,
            "How long a worker's transfer thread waits, with Storm's back-pressure wait strategy "
                    + "(`topology.backpressure.wait.strategy`), while a connection's receiver pushes back; "
                    + "then the tuples it still holds for that connection are dropped and counted "
                    + "(`__send-iconnection-lostOnSend`), and Storm's acking replays them.");

    public static final OptionGroup GROUP = new OptionGroup(
            "Storm transport",
            "storm.",
            "Read by `io.jetstream.storm.transport.JetStreamContext` when a worker starts (selected with "
                    + "`storm.messaging.transport`). With `storm.data-path: jetstream` the worker's connections "
                    + "also read the `transport.`, `batch.`, `ring.` and `qos.` options above under `jetstream.`; "
                    + "`jetstream.transport.bind-address` defaults to all interfaces in a worker, as Storm's own "
                    + "transport binds, and with `storm.messaging.netty.authentication: true` the topology's "
                    + "secret authenticates the workers to each other.",
            List.of(DATA_PATH, SEND_WAIT_MS));

    /**
     * Every group this adapter reads: its own and core's (transport, batching, ring, latency
     * constraints), loaded together so that each documented key is accepted and a typo anywhere
     * under the prefix is refused at start-up.
     */
    public static final OptionGroup[] GROUPS = concat(GROUP, TransportSettings.GROUPS);

    private static OptionGroup[] concat(OptionGroup own, OptionGroup[] core) {
        OptionGroup[] all = Arrays.copyOf(core, core.length + 1);
        all[core.length] = own;
        return all;
    }
}
