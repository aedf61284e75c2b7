package io.jetstream.harness;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waiting on conditions in tests and benchmarks, on Awaitility: polls every millisecond in the calling
 * thread up to a deadline and fails with what was awaited and the state seen last. Nothing here sleeps
 * for a fixed time; a condition that holds at once returns at once.
 *
 * <p>Stateless and thread-safe.
 */
public final class Await {
    private static final Duration POLL = Duration.ofMillis(1);

    private Await() {}

    /** Returns as soon as {@code condition} holds; fails after {@code timeout} with {@code state}. */
    public static void until(String what, Duration timeout, BooleanSupplier condition, Supplier<String> state) {
        await(what).pollInSameThread().pollDelay(Duration.ZERO).pollInterval(POLL).atMost(timeout)
                .untilAsserted(() -> {
                    if (!condition.getAsBoolean()) {
                        throw new AssertionError(state.get());
                    }
                });
    }

    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        until(what, timeout, condition, () -> "condition still false");
    }

    /**
     * Checks {@code invariant} throughout {@code window} and fails the first time it does not hold:
     * for "never" properties, which a test can only watch for a bounded time.
     */
    public static void holdsFor(String what, Duration window, BooleanSupplier invariant, Supplier<String> state) {
        if (!invariant.getAsBoolean()) {
            throw new AssertionError("violated: " + what + ": " + state.get());
        }
        await(what).pollInSameThread().pollDelay(Duration.ZERO).pollInterval(POLL).during(window)
                .atMost(window.plusSeconds(5)).until(() -> {
                    if (!invariant.getAsBoolean()) {
                        throw new AssertionError("violated: " + what + ": " + state.get());
                    }
                    return true;
                });
    }
}
