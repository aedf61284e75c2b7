package io.jetstream.jstorm.transport;

import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigOption;
import io.jetstream.core.config.OptionGroup;
import java.util.Arrays;
import java.util.List;

/**
 * Options of the JStorm transport, read from the worker's configuration (storm.yaml merged with the
 * topology's) under {@code jetstream.}: the adapter's own under {@code jetstream.jstorm.}, and core's
 * transport, batching, ring and latency-constraint options, which apply to every worker's streams.
 */
public final class JetStreamJStormOptions {
    private JetStreamJStormOptions() {}

    /** JStorm's own Netty 3 messaging context: the fallback. */
    public static final String JSTORM_NETTY_CONTEXT = "com.alibaba.jstorm.message.netty.NettyContext";

    /** Which data path the worker's connections use. */
    public enum DataPath {
        /** JetStream's transport: the shared-memory ring between workers on one host, adaptive batches over TCP. */
        JETSTREAM,
        /** JStorm's own Netty transport, unchanged underneath (only counted): the explicit way back to stock behaviour. */
        JSTORM_NETTY
    }

    public static final ConfigOption<DataPath> DATA_PATH = ConfigOption.enumOption(
            "jstorm.data-path", DataPath.class, DataPath.JETSTREAM,
            "`jetstream`: tuples between workers move over JetStream's transport (the shared-memory ring "
                    + "between workers on one host, adaptively batched TCP between hosts). `jstorm-netty`: JStorm's "
                    + "own Netty context (`" + JSTORM_NETTY_CONTEXT + "`) moves them, exactly as without JetStream; "
                    + "JetStream only counts them (the fallback).");

    /** When what a connection's {@code send()} calls handed over leaves. */
    public enum SendFlush {
        /** At the end of every burst while the shared-memory ring carries the stream; else as {@link #BATCH_POLICY}. */
        EACH_SEND_ON_RING,
        /** At the end of every burst of {@code send()} calls, as one batch. */
        EACH_SEND,
        /** When JetStream's flush policy says so ({@code batch.mode}), told where each burst ends. */
        BATCH_POLICY
    }

    public static final ConfigOption<SendFlush> SEND_FLUSH = ConfigOption.enumOption(
            "jstorm.send-flush", SendFlush.class, SendFlush.EACH_SEND_ON_RING,
            "When what a connection's `send()` calls handed over leaves. `each-send-on-ring`: at the end of each "
                    + "burst of calls while the receiver's shared-memory ring carries the stream (a ring batch costs "
                    + "no acknowledgement), else as `batch-policy`. `batch-policy`: JetStream's flush policy "
                    + "(`batch.mode`) decides, told where each burst ends. `each-send`: every burst leaves at once as "
                    + "one batch on either path (measured slower over TCP: one acknowledged batch per JStorm message "
                    + "costs more than it saves).");

    public static final ConfigOption<Long> SEND_WAIT_MS = ConfigOption.longOption(
            "jstorm.send-wait-ms", 5_000, 0, 600_000,
            "How long a task's sending thread waits in `send()` while a connection is not connected yet or "
                    + "its receiver pushes back (as JStorm's own client blocks the sending thread); then the "
                    + "tuples of that `send()` still held are dropped, counted and logged, and JStorm's acking "
                    + "replays them.");

    public static final ConfigOption<Long> DELIVER_WAIT_MS = ConfigOption.longOption(
            "jstorm.deliver-wait-ms", 200, 0, 600_000,
            "How long the receiving transport thread waits for room in a full task receive queue (JStorm's "
                    + "`DisruptorQueue`), holding the batch and so pushing back on the sending worker; then the rest "
                    + "of the batch goes to the queue's overflow cache, which the task drains first (what JStorm's "
                    + "own server does under flow control), so that a cycle of full queues between workers cannot "
                    + "block the transport for ever.");

    public static final OptionGroup GROUP = new OptionGroup(
            "JStorm transport",
            "jstorm.",
            "Read by `io.jetstream.jstorm.transport.JetStreamJStormContext` when a JStorm worker starts "
                    + "(selected with `storm.messaging.transport`). With `jstorm.data-path: jetstream` the worker's "
                    + "connections also read the `transport.`, `batch.`, `ring.` and `qos.` options above under "
                    + "`jetstream.`, with three defaults of their own in a JStorm worker: "
                    + "`jetstream.transport.bind-address` all interfaces, as JStorm's own transport binds; "
                    + "`jetstream.batch.mode: fixed` with `jetstream.batch.max-event-delay-ms: 1`, because JStorm "
                    + "already batches tuples per target task (`task.batch.tuple`) and the transport only has to "
                    + "gather the messages of the last millisecond where batches go over TCP (measured: the adaptive "
                    + "policy's batch per message cost throughput; on the ring `jstorm.send-flush` sends each burst at "
                    + "once; see docs/benchmarks.md). Setting any of them overrides the default.",
            List.of(DATA_PATH, SEND_FLUSH, SEND_WAIT_MS, DELIVER_WAIT_MS));

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
