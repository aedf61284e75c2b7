package io.jetstream.demo;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * One line per phase of the demo: the time so far, what is being measured, and about how long is
 * left. What is left is the planned time of the phases still to come, scaled by how the phases so far
 * kept to their plan.
 *
 * <p>Used by the demo's one driving thread.
 */
final class Progress {
    private final PrintStream out;
    private final long startNanos = System.nanoTime();
    private double plannedLeftSeconds;
    private double plannedDoneSeconds;
    private double currentPlanned;

    /** @param plannedSeconds the planned duration of every phase to come */
    Progress(PrintStream out, double plannedSeconds) {
        this.out = out;
        this.plannedLeftSeconds = plannedSeconds;
    }

    /** A phase of about {@code plannedSeconds} starts now. */
    void phase(String what, double plannedSeconds) {
        plannedDoneSeconds += currentPlanned;
        plannedLeftSeconds = Math.max(0, plannedLeftSeconds - currentPlanned);
        currentPlanned = plannedSeconds;
        double elapsed = (System.nanoTime() - startNanos) / 1e9;
        double pace = plannedDoneSeconds < 1 ? 1 : Math.max(0.5, elapsed / plannedDoneSeconds);
        out.printf(Locale.ROOT, "[%s] %s; about %s left%n", clock(elapsed), what, clock(plannedLeftSeconds * pace));
        out.flush();
    }

    /** Time since the demo started. */
    String elapsed() {
        return clock((System.nanoTime() - startNanos) / 1e9);
    }

    private static String clock(double seconds) {
        long s = Math.round(seconds);
        return String.format(Locale.ROOT, "%d:%02d", TimeUnit.SECONDS.toMinutes(s), s % 60);
    }
}
