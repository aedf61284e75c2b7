package io.jetstream.core.internal.landing;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * How the landing's clients wait for the landing (everything landed, a commit journaled): on the caller's thread,
 * polling a condition and nudging the stream (a flush) between polls. Stateless.
 */
final class LandingAwait {
    private static final long POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    private LandingAwait() {}

    /**
     * Runs {@code nudge}, then polls {@code done} (which may throw, naming why it never will be) every 200 µs, nudging
     * again after each poll, for at most {@code timeoutNanos}.
     *
     * @return whether {@code done} held in time
     */
    static boolean until(BooleanSupplier done, Runnable nudge, long timeoutNanos) throws InterruptedException {
        nudge.run();
        long deadline = System.nanoTime() + timeoutNanos;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            LockSupport.parkNanos(POLL_NANOS);
            nudge.run();
        }
        return true;
    }
}
