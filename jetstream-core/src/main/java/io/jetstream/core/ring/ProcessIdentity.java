package io.jetstream.core.ring;

import java.time.Instant;
import java.util.Optional;

/**
 * A process as the ring's liveness checks see it: its pid and its start time, so that a pid reused
 * by a new process after the old one died is not taken for the old one. Producers and consumer must
 * share a pid namespace (the same host, or containers with {@code pid: host}).
 *
 * @param pid the process id
 * @param startMillis process start, epoch milliseconds, or 0 when the platform does not say
 */
record ProcessIdentity(long pid, long startMillis) {
    /** Start times of one process read twice may differ by the clock-tick rounding of /proc. */
    private static final long START_TOLERANCE_MILLIS = 1_000;

    public static final ProcessIdentity SELF = of(ProcessHandle.current());

    static ProcessIdentity of(ProcessHandle handle) {
        return new ProcessIdentity(handle.pid(), startOf(handle));
    }

    private static long startOf(ProcessHandle handle) {
        return handle.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
    }

    /**
     * Whether this process still runs. A syscall: callers throttle it. This JVM is always alive to
     * itself.
     */
    public boolean isAlive() {
        if (pid == SELF.pid) {
            return true;
        }
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !handle.get().isAlive()) {
            return false;
        }
        long start = startOf(handle.get());
        return startMillis == 0 || start == 0 || Math.abs(start - startMillis) <= START_TOLERANCE_MILLIS;
    }
}
