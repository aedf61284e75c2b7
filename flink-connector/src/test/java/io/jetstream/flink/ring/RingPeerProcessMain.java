package io.jetstream.flink.ring;

import io.jetstream.core.ring.RingConsumer;
import io.jetstream.core.ring.RingProducer;
import io.jetstream.core.ring.RingSettings;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * A stand-in for a producer TaskManager in another process: {@code RingPeerProcessMain DIR PORT}
 * creates the ring of data port PORT in DIR, prints {@code READY}, answers the first handshake
 * ({@code HELLO_ACK}), prints {@code CONNECTED} and then ignores everything until it is killed (at
 * most two minutes).
 */
@Command(name = "RingPeerProcessMain", mixinStandardHelpOptions = true, description = "A stand-in for a producer TaskManager in another process.")
public final class RingPeerProcessMain implements Callable<Integer> {
    private RingPeerProcessMain() {}

    @Parameters(index = "0", paramLabel = "DIR", description = "The rings' directory.")
    private Path dir;
    @Parameters(index = "1", paramLabel = "PORT", description = "The data port whose ring to create.")
    private int port;

    public static void main(String[] args) {
        int exit = new CommandLine(new RingPeerProcessMain()).execute(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }

    @Override
    public Integer call() throws Exception {
        RingSettings settings = RingSettings.defaults(dir).withCapacity(1 << 20, 64 << 10, 64 << 10).withWakeup(false, 100);
        AtomicReference<RingProducer> answer = new AtomicReference<>();
        try (RingConsumer ring = RingConsumer.create(settings, RingMessageDescriptor.ringName(port))) {
            System.out.println("READY");
            System.out.flush();
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (System.nanoTime() < deadline) {
                ring.poll((type, buffer, offset, length) -> {
                    if (type == RingMessageDescriptor.HELLO && answer.get() == null) {
                        int from = buffer.getInt(offset + RingMessageDescriptor.PORT_OFFSET);
                        RingProducer out = RingProducer.attach(settings, RingMessageDescriptor.ringName(from));
                        answer.set(out);
                        int index = out.claim(RingMessageDescriptor.HELLO_ACK, RingMessageDescriptor.HEAD_LENGTH);
                        out.buffer().putInt(index + RingMessageDescriptor.PORT_OFFSET, port);
                        out.buffer().putInt(index + RingMessageDescriptor.HANDLE_OFFSET, RingMessageDescriptor.CONNECTION_HANDLE);
                        out.commit();
                        System.out.println("CONNECTED");
                        System.out.flush();
                    }
                }, 64);
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
        }
        System.exit(4);
        return 4; // not reached
    }
}
