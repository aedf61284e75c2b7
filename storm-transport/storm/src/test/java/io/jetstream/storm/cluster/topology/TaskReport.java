package io.jetstream.storm.cluster.topology;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A task's report file in the results directory, rewritten atomically (write, then rename) so the
 * driver never reads half a line. Tasks run in worker JVMs; files are how they report to the test or
 * benchmark on the same machine.
 *
 * <p>Used by its task's executor thread only.
 */
final class TaskReport {
    private final Path file;
    private final Path tmp;
    private final long intervalNanos;
    private long last = System.nanoTime();

    TaskReport(Path dir, String name, long intervalMillis) {
        this.file = dir.resolve(name);
        this.tmp = dir.resolve(name + ".tmp");
        this.intervalNanos = intervalMillis * 1_000_000;
    }

    /** Writes {@code line} if the interval has passed since the last write (or if {@code force}). */
    void maybeWrite(boolean force, java.util.function.Supplier<String> line) {
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
