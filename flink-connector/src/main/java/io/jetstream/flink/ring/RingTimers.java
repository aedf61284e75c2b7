package io.jetstream.flink.ring;

import java.util.PriorityQueue;

/**
 * Commands the ring I/O thread runs once their time has come (a partition request re-sent after Flink's
 * back-off, {@code delayMs}). Times are in the I/O loop's clock (nanoseconds), passed in: the timers
 * read no clock of their own, so tests drive them in virtual time.
 *
 * <p>Threading: confined to the I/O thread (other threads schedule through {@link RingHandOver#execute}).
 * A command that throws ends the I/O thread, as every other failure of its protocol state does.
 */
final class RingTimers {
    private final PriorityQueue<Timer> timers = new PriorityQueue<>();

    /** Runs {@code command} at the first {@link #runDue} at or after {@code dueNanos}. */
    void schedule(long dueNanos, Runnable command) {
        timers.add(new Timer(dueNanos, command));
    }

    boolean isEmpty() {
        return timers.isEmpty();
    }

    /** When the earliest timer is due; only when not {@link #isEmpty}. */
    long nextDue() {
        return timers.peek().due;
    }

    /** Runs, in order of their time, the commands due at {@code nowNanos}; returns how many ran. */
    int runDue(long nowNanos) {
        int work = 0;
        while (!timers.isEmpty() && timers.peek().due - nowNanos <= 0) {
            timers.poll().command.run();
            work++;
        }
        return work;
    }

    private record Timer(long due, Runnable command) implements Comparable<Timer> {
        @Override
        public int compareTo(Timer other) {
            return Long.compare(due, other.due);
        }
    }
}
