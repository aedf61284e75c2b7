package io.jetstream.core.ring;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A consumer process that never closes its ring, as an engine whose shutdown halts the JVM before
 * reaching the transport's close: {@code RingConsumerMain DIR NAME}. Creates ring NAME, prints
 * {@code READY} and waits, at most two minutes, to be terminated.
 */
public final class RingConsumerMain {
    private RingConsumerMain() {}

    public static void main(String[] args) {
        RingConsumer ring = RingConsumer.create(RingTestSupport.settings(Path.of(args[0]), 8192), args[1]);
        System.out.println("READY " + ring.file());
        System.out.flush();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1)); // wait to be terminated
        }
        System.exit(4);
    }
}
