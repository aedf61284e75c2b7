package io.jetstream.benchmarks.ipc;

import io.jetstream.benchmarks.PeerProcess;
import io.jetstream.core.ring.RingConsumer;
import io.jetstream.core.ring.RingDirectory;
import io.jetstream.core.ring.RecordHandler;
import io.jetstream.core.ring.RingProducer;
import io.jetstream.core.ring.RingSettings;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.jetstream.benchmarks.netty.NettyEndpoints;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.FixedLengthFrameDecoder;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The benchmark JVM's end of a request/response exchange with an echo {@link PeerProcess}, over the
 * shared-memory ring or over Netty TCP loopback (epoll, TCP_NODELAY): the same payloads, the same
 * waiting (a busy spin on the reply), so only the transport differs.
 *
 * <p>Used by one benchmark thread.
 */
abstract class IpcEndpoints implements AutoCloseable {
    static final long REPLY_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

    /** Sends one message and waits for its echo. */
    abstract void roundTrip();

    static IpcEndpoints ring(int size, boolean busyEcho) throws IOException {
        return new Ring(size, busyEcho);
    }

    static IpcEndpoints netty(int size) throws Exception {
        return new Netty(size);
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** Ring directory of the benchmarks: owner-only, under the default ring directory. */
    static Path ringDirectory() {
        return RingDirectory.prepare(RingDirectory.defaultDirectory());
    }

    static final class Ring extends IpcEndpoints {
        private final RingConsumer replies;
        private final PeerProcess echo;
        private final RingProducer requests;
        private final UnsafeBuffer payload;
        private final int size;
        private int received;
        private long checksum;
        private final RecordHandler onReply = this::onReply;

        Ring(int size, boolean busyEcho) throws IOException {
            this.size = size;
            this.payload = new UnsafeBuffer(new byte[size]);
            Path dir = ringDirectory();
            String id = ProcessHandle.current().pid() + "-" + System.nanoTime();
            int capacity = 4 << 20;
            int maxRecord = Math.max(1024, size);
            RingSettings settings = IpcPeerMain.settings(dir, capacity, maxRecord);
            replies = RingConsumer.create(settings, "bench-reply-" + id);
            echo = PeerProcess.start(IpcPeerMain.class, "ring-echo", dir.toString(), "bench-request-" + id, "bench-reply-" + id,
                    Integer.toString(capacity), Integer.toString(maxRecord), busyEcho ? "busy" : "default");
            requests = RingProducer.attach(settings, "bench-request-" + id);
        }

        private void onReply(int target, DirectBuffer buffer, int offset, int length) {
            received++;
            checksum += buffer.getByte(offset);
        }

        @Override
        void roundTrip() {
            int before = received;
            payload.putLong(0, before);
            if (!requests.offer(1, payload, 0, size)) {
                throw new IllegalStateException("request ring full");
            }
            long deadline = System.nanoTime() + REPLY_TIMEOUT_NANOS;
            while (received == before) {
                if (replies.poll(onReply, 1) == 0 && System.nanoTime() > deadline) {
                    throw new IllegalStateException("no reply within 5 s over the ring");
                }
            }
        }

        PeerProcess peer() {
            return echo;
        }

        @Override
        public void close() {
            requests.close();
            echo.close();
            replies.close();
        }
    }

    static final class Netty extends IpcEndpoints {
        private final PeerProcess echo;
        private final NettyEndpoints netty;
        private final Channel channel;
        private final ByteBuf payload;
        private final AtomicLong received = new AtomicLong();

        Netty(int size) throws Exception {
            int port = freePort();
            echo = PeerProcess.start(IpcPeerMain.class, "netty-echo", Integer.toString(port), Integer.toString(size));
            netty = new NettyEndpoints(true);
            channel = netty.client(port, () -> new ChannelHandler[] {
                new FixedLengthFrameDecoder(size), new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ((ByteBuf) msg).release();
                        received.incrementAndGet();
                    }
                }
            });
            payload = PooledByteBufAllocator.DEFAULT.directBuffer(size).writeZero(size);
        }

        PeerProcess peer() {
            return echo;
        }

        @Override
        void roundTrip() {
            long before = received.get();
            channel.writeAndFlush(payload.retainedDuplicate(), channel.voidPromise());
            long deadline = System.nanoTime() + REPLY_TIMEOUT_NANOS;
            while (received.get() == before) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no reply within 5 s over Netty");
                }
                Thread.onSpinWait();
            }
        }

        @Override
        public void close() {
            channel.close().syncUninterruptibly();
            payload.release();
            netty.shutdown();
            echo.close();
        }
    }
}
