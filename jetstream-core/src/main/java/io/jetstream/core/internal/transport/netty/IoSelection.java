package io.jetstream.core.internal.transport.netty;

import io.jetstream.core.api.TransportOptions.Io;
import io.netty.channel.Channel;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

/**
 * Which Netty I/O a process uses: epoll when asked for or, with {@code auto}, when the native
 * library loads; else NIO. The transport and the relay choose the same way. Immutable.
 */
public record IoSelection(boolean epoll, IoHandlerFactory factory, Class<? extends Channel> channelClass,
        Class<? extends ServerChannel> serverChannelClass) {

    /** @throws IllegalStateException if {@code io} is epoll and the native library is unavailable */
    public static IoSelection of(Io io) {
        boolean epoll = switch (io) {
            case EPOLL -> {
                if (!Epoll.isAvailable()) {
                    throw new IllegalStateException("transport.io is epoll but the native library is unavailable: "
                            + Epoll.unavailabilityCause());
                }
                yield true;
            }
            case AUTO -> Epoll.isAvailable();
            case NIO -> false;
        };
        return epoll
                ? new IoSelection(true, EpollIoHandler.newFactory(), EpollSocketChannel.class, EpollServerSocketChannel.class)
                : new IoSelection(false, NioIoHandler.newFactory(), NioSocketChannel.class, NioServerSocketChannel.class);
    }
}
