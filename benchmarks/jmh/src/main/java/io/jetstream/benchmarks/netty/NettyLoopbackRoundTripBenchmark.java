package io.jetstream.benchmarks.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.FixedLengthFrameDecoder;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Round trip of one message over TCP loopback with Netty 4.2, the way Flink's and Storm's stock
 * transports move data between JVMs on one host: the client writes and flushes one message, an
 * echo server returns it, the client waits for all of it. This is the baseline that the
 * shared-memory ring is measured against; run with {@code -prof gc} to see the allocation per trip.
 *
 * <p>Client and server run in the benchmark's JVM on separate event loops (one I/O thread each),
 * TCP_NODELAY on, pooled direct buffers.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
public class NettyLoopbackRoundTripBenchmark {
    /** How long one round trip may take before the benchmark fails instead of hanging. */
    private static final long TRIP_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

    @Param({"epoll", "nio"})
    public String transport;

    @Param({"64", "1024", "16384"})
    public int payloadBytes;

    private NettyEndpoints netty;
    private Channel client;
    private ByteBuf payload;
    /** Completed round trips, written by the client's event loop, read by the benchmark thread. */
    private final AtomicInteger completed = new AtomicInteger();

    @Setup(Level.Trial)
    public void start() throws InterruptedException {
        netty = new NettyEndpoints(transport.equals("epoll"));
        int frame = payloadBytes;
        Channel server = netty.server(0, () -> new ChannelHandler[] {
            new FixedLengthFrameDecoder(frame), new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ctx.writeAndFlush(msg);
                }
            }
        });
        client = netty.client(NettyEndpoints.port(server), () -> new ChannelHandler[] {
            new FixedLengthFrameDecoder(frame), new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ((ByteBuf) msg).release();
                    completed.incrementAndGet();
                }
            }
        });
        client.closeFuture().addListener((ChannelFutureListener) f -> server.close());
        payload = PooledByteBufAllocator.DEFAULT.directBuffer(payloadBytes);
        for (int i = 0; i < payloadBytes; i++) {
            payload.writeByte(i);
        }
    }

    @Benchmark
    public int roundTrip() {
        int before = completed.get();
        client.writeAndFlush(payload.retainedDuplicate(), client.voidPromise());
        long deadline = System.nanoTime() + TRIP_TIMEOUT_NANOS;
        int now;
        while ((now = completed.get()) == before) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no echo within 5 s over " + transport);
            }
            Thread.onSpinWait();
        }
        return now;
    }

    @TearDown(Level.Trial)
    public void stop() {
        client.close().syncUninterruptibly();
        payload.release();
        netty.shutdown();
    }
}
