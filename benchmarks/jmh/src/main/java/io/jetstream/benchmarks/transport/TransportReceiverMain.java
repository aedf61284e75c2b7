package io.jetstream.benchmarks.transport;

import io.jetstream.core.api.BatchOptions;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.Transport;
import io.jetstream.core.api.TransportOptions;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.harness.LatencySummary;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * The receiving JVM of {@link TransportComparison}: a JetStream receiver and a plain Netty server
 * (4-byte length + record, as a per-record pipeline would frame it) on one address. Both measure
 * the same way: records between a START and an END marker, each record's latency from the
 * sender's {@code System.nanoTime()} in its payload (one monotonic clock per kernel, namespaces
 * included) to its delivery; at END they print {@code STATS records seconds mean-us p50-us p99-us},
 * seconds counted from the first record after START (the sender pauses 200 ms after START).
 *
 * <p>Arguments: bind address ({@code --help}). Percentiles: {@link LatencySummary}'s; NaN for a run without records.
 */
@Command(name = "TransportReceiverMain", mixinStandardHelpOptions = true,
        description = "The receiving JVM of TransportComparison and MultiRouteComparison: JetStream and plain Netty servers.")
public final class TransportReceiverMain implements Callable<Integer> {
    static final byte DATA = 0;
    static final byte START = 1;
    static final byte END = 2;

    /**
     * Latency samples of one run: every record's until the array is full, then every second one
     * (the array is thinned and the stride doubled), and so on — an even sample of the whole run in
     * bounded memory (16 MiB). Receiving threads, one run at a time.
     */
    static final class Stats {
        private final long[] latencies = new long[1 << 21];
        private int n;
        private long stride = 1;
        private long records;
        private long startNanos;

        synchronized void onRecord(byte kind, long sentNanos) {
            long now = System.nanoTime();
            switch (kind) {
                case START -> {
                    n = 0;
                    stride = 1;
                    records = 0;
                    startNanos = 0;
                }
                case END -> report(now);
                default -> {
                    if (startNanos == 0) {
                        startNanos = now; // throughput over the time data flowed, not the sender's pause after START
                    }
                    if (records++ % stride == 0) {
                        if (n == latencies.length) {
                            for (int i = 0; i < n / 2; i++) {
                                latencies[i] = latencies[2 * i];
                            }
                            n /= 2;
                            stride *= 2;
                        }
                        latencies[n++] = now - sentNanos;
                    }
                }
            }
        }

        private void report(long now) {
            double mean = 0;
            for (int i = 0; i < n; i++) {
                mean += latencies[i] / (double) n;
            }
            LatencySummary latency = LatencySummary.of(Arrays.copyOf(latencies, n));
            System.out.printf("STATS %d %.6f %.1f %.1f %.1f%n", records, (now - startNanos) / 1e9, mean / 1e3,
                    latency.p50Micros(), latency.p99Micros());
            System.out.flush();
        }
    }

    @Parameters(index = "0", paramLabel = "BIND", description = "Address both servers listen on.")
    private String bind;

    public static void main(String[] args) {
        int exit = new CommandLine(new TransportReceiverMain()).execute(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }

    @Override
    public Integer call() throws Exception {
        Stats jet = new Stats();
        TransportSettings settings = TransportSettings.from(JetStreamConfig.load(ConfigScope.STORM,
                Map.of("jetstream.transport.bind-address", bind, "jetstream.transport.ring.enabled", false), TransportSettings.GROUPS));
        Transport transport = Transport.start(settings, "bench-receiver");
        int jetPort = transport.bind(0, (stream, sequence, records) -> records.forEach((target, buffer, offset, length) ->
                jet.onRecord(buffer.getByte(offset), buffer.getLong(offset + 1, ByteOrder.BIG_ENDIAN))),
                t -> true, SequenceStore.inMemory()).localAddress().getPort();

        Stats plain = new Stats();
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(2, EpollIoHandler.newFactory());
        Channel server = new ServerBootstrap().group(group).channel(EpollServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(1 << 20, 0, 4, 0, 4));
                        ch.pipeline().addLast(new SimpleChannelInboundHandler<ByteBuf>() {
                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, ByteBuf record) {
                                plain.onRecord(record.getByte(record.readerIndex()), record.getLong(record.readerIndex() + 1));
                            }
                        });
                    }
                }).bind(new InetSocketAddress(bind, 0)).sync().channel();
        System.out.println("READY " + jetPort + " " + ((InetSocketAddress) server.localAddress()).getPort());
        System.out.flush();
        new java.util.concurrent.CountDownLatch(1).await(); // serves until the parent kills this process
        return 0; // not reached
    }
}
