package io.jetstream.benchmarks.ipc;

import io.jetstream.benchmarks.netty.NettyEndpoints;
import io.jetstream.core.ring.RecordHandler;
import io.jetstream.core.ring.RingConsumer;
import io.jetstream.core.ring.RingProducer;
import io.jetstream.core.ring.RingSettings;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.FixedLengthFrameDecoder;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

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
 * Runs until killed. Prints {@code READY} when serving. Each mode is a subcommand ({@code --help} on it
 * lists its arguments).
 */
@Command(name = "IpcPeerMain", mixinStandardHelpOptions = true, description = "The other JVM of the IPC benchmarks.")
public final class IpcPeerMain implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    private IpcPeerMain() {}

    public static void main(String[] args) {
        int exit = new CommandLine(new IpcPeerMain()).execute(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }

    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "a mode is required: ring-echo, netty-echo, ring-flood or netty-flood");
    }

    static RingSettings settings(Path dir, int capacity, int maxRecord) {
        return RingSettings.defaults(dir).withCapacity(capacity, maxRecord, capacity / 2)
                .withProducerWait(TimeUnit.SECONDS.toNanos(30));
    }

    @Command(name = "ring-echo", mixinStandardHelpOptions = true, description = "Echoes every record of ring IN into ring OUT.")
    void ringEcho(@Parameters(paramLabel = "DIR", description = "The rings' directory.") Path dir,
            @Parameters(paramLabel = "IN", description = "The ring to consume (created here).") String in,
            @Parameters(paramLabel = "OUT", description = "The ring to echo into (created by the benchmark).") String out,
            @Parameters(paramLabel = "CAPACITY", description = "Ring capacity in bytes.") int capacity,
            @Parameters(paramLabel = "MAX_RECORD", description = "Largest record in bytes.") int maxRecord,
            @Parameters(paramLabel = "IDLE",
                    description = "busy (busy-polling) or default (the consumer's idle path).") String waiting) {
        if (!waiting.equals("busy") && !waiting.equals("default")) {
            throw new ParameterException(spec.commandLine(), "IDLE is busy or default, not " + waiting);
        }
        boolean busy = waiting.equals("busy");
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

    @Command(name = "ring-flood", mixinStandardHelpOptions = true, description = "Writes records into a ring as fast as it can.")
    void ringFlood(@Parameters(paramLabel = "DIR", description = "The ring's directory.") Path dir,
            @Parameters(paramLabel = "NAME", description = "The ring.") String name,
            @Parameters(paramLabel = "SIZE", description = "Record size in bytes.") int size) {
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

    @Command(name = "netty-echo", mixinStandardHelpOptions = true, description = "Netty epoll echo server of fixed-size messages.")
    void nettyEcho(@Parameters(paramLabel = "PORT", description = "Port to listen on.") int port,
            @Parameters(paramLabel = "FRAME", description = "Message size in bytes.") int frame) throws InterruptedException {
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

    @Command(name = "netty-flood", mixinStandardHelpOptions = true, description = "Writes messages to a server as fast as the channel takes them.")
    void nettyFlood(@Parameters(paramLabel = "PORT", description = "The server's port.") int port,
            @Parameters(paramLabel = "SIZE", description = "Message size in bytes.") int size) throws InterruptedException {
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
