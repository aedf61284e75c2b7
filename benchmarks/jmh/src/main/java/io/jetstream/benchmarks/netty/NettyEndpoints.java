package io.jetstream.benchmarks.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
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
import java.net.InetSocketAddress;
import java.util.function.Supplier;

/**
 * The stock Netty endpoints every benchmark compares against, configured one way: TCP_NODELAY,
 * pooled direct buffers, one I/O thread, epoll (or NIO), loopback only.
 */
public final class NettyEndpoints {
    private final boolean epoll;
    private final EventLoopGroup group;

    public NettyEndpoints(boolean epoll) {
        if (epoll && !Epoll.isAvailable()) {
            throw new IllegalStateException("epoll requested but unavailable", Epoll.unavailabilityCause());
        }
        this.epoll = epoll;
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        this.group = new MultiThreadIoEventLoopGroup(1, io);
    }

    /** A server on 127.0.0.1 ({@code port} 0 for any); each connection gets the handlers supplied. */
    public Channel server(int port, Supplier<ChannelHandler[]> handlers) throws InterruptedException {
        Class<? extends ServerChannel> type = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        return new ServerBootstrap().group(group).channel(type)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childHandler(initializer(handlers))
                .bind(new InetSocketAddress("127.0.0.1", port)).sync().channel();
    }

    /** A client connected to {@code port} on 127.0.0.1. */
    public Channel client(int port, Supplier<ChannelHandler[]> handlers) throws InterruptedException {
        Class<? extends Channel> type = epoll ? EpollSocketChannel.class : NioSocketChannel.class;
        return new Bootstrap().group(group).channel(type)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .handler(initializer(handlers))
                .connect(new InetSocketAddress("127.0.0.1", port)).sync().channel();
    }

    private static ChannelInitializer<SocketChannel> initializer(Supplier<ChannelHandler[]> handlers) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(handlers.get());
            }
        };
    }

    public static int port(Channel server) {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    public void shutdown() {
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }
}
