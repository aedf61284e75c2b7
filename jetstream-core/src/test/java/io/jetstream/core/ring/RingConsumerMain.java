package io.jetstream.core.ring;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * A consumer process that never closes its ring, as an engine whose shutdown halts the JVM before
 * reaching the transport's close: {@code RingConsumerMain DIR NAME}. Creates ring NAME, prints
 * {@code READY} and waits, at most two minutes, to be terminated.
 */
@Command(name = "RingConsumerMain", mixinStandardHelpOptions = true, description = "A ring consumer process that never closes its ring.")
public final class RingConsumerMain implements Callable<Integer> {
    private RingConsumerMain() {}

    @Parameters(index = "0", paramLabel = "DIR", description = "The ring's directory.")
    private Path dir;
    @Parameters(index = "1", paramLabel = "NAME", description = "The ring to create.")
    private String name;

    public static void main(String[] args) {
        int exit = new CommandLine(new RingConsumerMain()).execute(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }

    @Override
    public Integer call() throws Exception {
        RingConsumer ring = RingConsumer.create(RingTestSupport.settings(dir, 8192), name);
        System.out.println("READY " + ring.file());
        System.out.flush();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1)); // wait to be terminated
        }
        System.exit(4);
        return 4; // not reached
    }
}
