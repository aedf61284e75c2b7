package io.jetstream.harness;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waiting on conditions in tests: polls every millisecond up to a deadline and fails with what was
 * awaited and the state seen last. Nothing here sleeps for a fixed time; a condition that holds at
 * once returns at once.
 *
 * <p>Stateless and thread-safe.
 */
public final class Await {
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private Await() {}

    /** Returns as soon as {@code condition} holds; fails after {@code timeout}. */
    public static void until(String what, Duration timeout, BooleanSupplier condition, Supplier<String> state) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for " + what + ": " + state.get());
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        until(what, timeout, condition, () -> "condition still false");
    }

    /**
     * Checks {@code invariant} throughout {@code window} and fails the first time it does not hold:
     * for "never" properties, which a test can only watch for a bounded time.
     */
    public static void holdsFor(String what, Duration window, BooleanSupplier invariant, Supplier<String> state) {
        long end = System.nanoTime() + window.toNanos();
        do {
            if (!invariant.getAsBoolean()) {
                throw new AssertionError("violated: " + what + ": " + state.get());
            }
            LockSupport.parkNanos(POLL_NANOS);
        } while (System.nanoTime() - end < 0);
    }
}
