package io.jetstream.benchmarks.ipc;

import io.jetstream.core.ring.RecordHandler;
import io.jetstream.core.ring.RingConsumer;
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
import io.netty.handler.flush.FlushConsolidationHandler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The other JVM of the IPC benchmarks. Modes:
 * <ul>
 *   <li>{@code ring-echo DIR IN OUT CAPACITY MAX_RECORD busy|default}: consumes ring IN (created
 *       here) and echoes every record into ring OUT (created by the benchmark), busy-polling or with
 *       the consumer's default idle path ({@code RingConsumer.run}: back-off, then the wake-up socket);
 *   <li>{@code netty-echo PORT FRAME}: Netty epoll echo server of FRAME-byte messages;
 *   <li>{@code ring-flood DIR NAME SIZE}: writes SIZE-byte records into ring NAME as fast as it can;
 *   <li>{@code netty-flood PORT SIZE}: writes SIZE-byte messages to the server on PORT as fast as
 *       the channel takes them, one writeAndFlush each behind a FlushConsolidationHandler.
 * </ul>
 * Runs until killed. Prints {@code READY} when serving.
 */
public final class IpcPeerMain {
    private IpcPeerMain() {}

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "ring-echo" -> ringEcho(Path.of(args[1]), args[2], args[3], Integer.parseInt(args[4]),
                    Integer.parseInt(args[5]), args[6].equals("busy"));
            case "netty-echo" -> nettyEcho(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
            case "ring-flood" -> ringFlood(Path.of(args[1]), args[2], Integer.parseInt(args[3]));
            case "netty-flood" -> nettyFlood(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
            default -> throw new IllegalArgumentException("unknown mode " + args[0]);
        }
    }

    static RingSettings settings(Path dir, int capacity, int maxRecord) {
        return RingSettings.defaults(dir).withCapacity(capacity, maxRecord, capacity / 2)
                .withProducerWait(TimeUnit.SECONDS.toNanos(30));
    }

    private static void ringEcho(Path dir, String in, String out, int capacity, int maxRecord, boolean busy) {
        RingSettings settings = settings(dir, capacity, maxRecord);
        try (RingConsumer consumer = RingConsumer.create(settings, in)) {
            System.out.println("READY");
            System.out.flush();
            Path outFile = dir.resolve(out + ".ring");
            while (!Files.exists(outFile)) {
                LockSupport.parkNanos(1_000_000);
            }
            try (RingProducer producer = RingProducer.attach(settings, out)) {
                RecordHandler echo = (target, buffer, offset, length) -> {
                    if (!producer.offer(target, buffer, offset, length)) {
                        throw new IllegalStateException("echo back-pressured");
                    }
                };
                if (busy) {
                    IdleStrategy idle = new BusySpinIdleStrategy();
                    while (true) {
                        idle.idle(consumer.poll(echo, 64));
                    }
                }
                consumer.run(echo, () -> true); // the default idle path: back-off, then wake-up socket
            }
        }
    }

    private static void ringFlood(Path dir, String name, int size) {
        UnsafeBuffer message = new UnsafeBuffer(new byte[size]);
        RingSettings settings = settings(dir, 8 << 20, Math.max(size, 1024));
        try (RingProducer producer = RingProducer.attach(settings, name)) {
            System.out.println("READY");
            System.out.flush();
            long sequence = 0;
            while (true) {
                message.putLong(0, sequence++);
                if (!producer.offer(1, message, 0, size)) {
                    throw new IllegalStateException("flood back-pressured for 30 s");
                }
            }
        }
    }

    private static void nettyEcho(int port, int frame) throws InterruptedException {
        Channel server = new NettyEndpoints(true).server(port, () -> new ChannelHandler[] {
            new FixedLengthFrameDecoder(frame), new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ctx.writeAndFlush(msg, ctx.voidPromise());
                }
            }
        });
        System.out.println("READY");
        System.out.flush();
        server.closeFuture().sync();
    }

    private static void nettyFlood(int port, int size) throws InterruptedException {
        ByteBuf message = PooledByteBufAllocator.DEFAULT.directBuffer(size).writeZero(size);
        Channel channel = new NettyEndpoints(true).client(port, () -> new ChannelHandler[] {
            new FlushConsolidationHandler(256, true), new ChannelInboundHandlerAdapter() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    pump(ctx);
                }

                @Override
                public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                    pump(ctx);
                }

                private void pump(ChannelHandlerContext ctx) {
                    int written = 0;
                    while (ctx.channel().isWritable() && written++ < 4096) {
                        ctx.writeAndFlush(message.retainedDuplicate(), ctx.voidPromise());
                    }
                    if (ctx.channel().isWritable()) {
                        ctx.executor().execute(() -> pump(ctx));
                    }
                }
            }
        });
        System.out.println("READY");
        System.out.flush();
        channel.closeFuture().sync();
    }
}
