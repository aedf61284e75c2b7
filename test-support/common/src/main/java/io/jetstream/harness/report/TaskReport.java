package io.jetstream.harness.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.function.Supplier;

/**
 * A task's report file in a results directory: one line of {@code key=value} pairs, rewritten
 * atomically (write, then rename) so the reader never sees half a line. Topology tasks run in worker
 * JVMs; files are how they report to the test or benchmark driving them on the same machine.
 *
 * <p>Used by its task's executor thread only.
 */
public final class TaskReport {
    private final Path file;
    private final Path tmp;
    private final long intervalNanos;
    private long last = System.nanoTime();

    /** A report {@code dir/name}, written at most every {@code intervalMillis} unless forced. */
    public TaskReport(Path dir, String name, long intervalMillis) {
        this.file = dir.resolve(name);
        this.tmp = dir.resolve(name + ".tmp");
        this.intervalNanos = intervalMillis * 1_000_000;
    }

    /** Writes {@code line} if the interval has passed since the last write, or if {@code force}. */
    public void maybeWrite(boolean force, Supplier<String> line) {
        long now = System.nanoTime();
        if (!force && now - last < intervalNanos) {
            return;
        }
        last = now;
        try {
            Files.writeString(tmp, line.get() + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
