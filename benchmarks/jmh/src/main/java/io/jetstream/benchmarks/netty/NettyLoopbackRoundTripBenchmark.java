package io.jetstream.benchmarks.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.FixedLengthFrameDecoder;
import java.net.InetSocketAddress;
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

    private EventLoopGroup serverGroup;
    private EventLoopGroup clientGroup;
    private Channel client;
    private ByteBuf payload;
    /** Completed round trips, written by the client's event loop, read by the benchmark thread. */
    private final AtomicInteger completed = new AtomicInteger();

    @Setup(Level.Trial)
    public void start() throws InterruptedException {
        boolean epoll = transport.equals("epoll");
        if (epoll && !Epoll.isAvailable()) {
            throw new IllegalStateException("epoll requested but unavailable", Epoll.unavailabilityCause());
        }
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        Class<? extends ServerChannel> serverType = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        Class<? extends Channel> clientType = epoll ? EpollSocketChannel.class : NioSocketChannel.class;
        serverGroup = new MultiThreadIoEventLoopGroup(1, io);
        clientGroup = new MultiThreadIoEventLoopGroup(1, io);
        int frame = payloadBytes;

        Channel server = new ServerBootstrap()
                .group(serverGroup)
                .channel(serverType)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new FixedLengthFrameDecoder(frame), new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                ctx.writeAndFlush(msg);
                            }
                        });
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0))
                .sync()
                .channel();

        client = new Bootstrap()
                .group(clientGroup)
                .channel(clientType)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new FixedLengthFrameDecoder(frame), new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                ((ByteBuf) msg).release();
                                completed.incrementAndGet();
                            }
                        });
                    }
                })
                .connect(server.localAddress())
                .sync()
                .channel();
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
        clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
