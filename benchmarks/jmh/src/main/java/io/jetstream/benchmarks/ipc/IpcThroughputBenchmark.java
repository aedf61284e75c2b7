package io.jetstream.benchmarks.ipc;

import io.jetstream.benchmarks.PeerProcess;
import io.jetstream.core.ring.RecordHandler;
import io.jetstream.core.ring.RingConsumer;
import io.jetstream.core.ring.RingSettings;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.jetstream.benchmarks.netty.NettyEndpoints;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.FixedLengthFrameDecoder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.DirectBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One-way throughput from 1 or 2 producer JVMs into this one: the shared-memory ring against Netty
 * TCP loopback (epoll, TCP_NODELAY, one writeAndFlush per message behind a FlushConsolidationHandler,
 * writes paced by channel writability). The score is messages per second delivered to the receiving
 * code, which reads one byte of every 64 of each message (every cache line) on both sides; multiply
 * by {@code size} for bytes per second.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
public class IpcThroughputBenchmark {
    private static final int BATCH = 1000;

    @Param({"ring", "netty"})
    public String transport;

    @Param({"64", "256", "16384"})
    public int size;

    @Param({"1", "2"})
    public int producers;

    private final List<PeerProcess> peers = new ArrayList<>();
    private RingConsumer ring;
    private NettyEndpoints netty;
    private Channel server;
    private final AtomicLong nettyReceived = new AtomicLong();
    private long checksum;
    private int batchReceived;
    private final RecordHandler onRecord = this::onRecord;

    @Setup(Level.Trial)
    public void start() throws Exception {
        if (transport.equals("ring")) {
            Path dir = IpcEndpoints.ringDirectory();
            String name = "bench-flood-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
            RingSettings settings = IpcPeerMain.settings(dir, 8 << 20, Math.max(size, 1024));
            ring = RingConsumer.create(settings, name);
            for (int i = 0; i < producers; i++) {
                peers.add(PeerProcess.start(IpcPeerMain.class, "ring-flood", dir.toString(), name, Integer.toString(size)));
            }
        } else {
            netty = new NettyEndpoints(true);
            int frame = size;
            server = netty.server(0, () -> new ChannelHandler[] {
                new FixedLengthFrameDecoder(frame), new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf buf = (ByteBuf) msg;
                        for (int i = buf.readerIndex(), end = buf.writerIndex(); i < end; i += 64) {
                            checksum += buf.getByte(i);
                        }
                        buf.release();
                        nettyReceived.lazySet(nettyReceived.get() + 1);
                    }
                }
            });
            int port = NettyEndpoints.port(server);
            for (int i = 0; i < producers; i++) {
                peers.add(PeerProcess.start(IpcPeerMain.class, "netty-flood", Integer.toString(port), Integer.toString(size)));
            }
        }
    }

    private void onRecord(int target, DirectBuffer buffer, int offset, int length) {
        for (int i = offset, end = offset + length; i < end; i += 64) {
            checksum += buffer.getByte(i);
        }
        batchReceived++;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long receive() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        if (ring != null) {
            batchReceived = 0;
            while (batchReceived < BATCH) {
                if (ring.poll(onRecord, BATCH - batchReceived) == 0 && System.nanoTime() > deadline) {
                    throw new IllegalStateException("ring producers stalled");
                }
            }
        } else {
            long target = nettyReceived.get() + BATCH;
            while (nettyReceived.get() < target) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("netty producers stalled");
                }
                Thread.onSpinWait();
            }
        }
        return checksum;
    }

    @TearDown(Level.Trial)
    public void stop() {
        peers.forEach(PeerProcess::close);
        peers.clear();
        if (ring != null) {
            ring.close();
        }
        if (server != null) {
            server.close().syncUninterruptibly();
            netty.shutdown();
        }
    }
}
