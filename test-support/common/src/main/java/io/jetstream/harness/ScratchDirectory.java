package io.jetstream.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * A fresh directory under {@code java.io.tmpdir} that {@link #close()} deletes with everything under
 * it. Deletion never follows symbolic links (a Storm home links into the local Maven repository) and
 * is retried briefly, since a process killed a moment before may still be closing files.
 *
 * <p>Not thread-safe; close once the processes writing into it have exited.
 */
public final class ScratchDirectory implements AutoCloseable {
    private final Path path;

    private ScratchDirectory(Path path) {
        this.path = path;
    }

    public static ScratchDirectory create(String prefix) {
        try {
            return new ScratchDirectory(Files.createTempDirectory(prefix).toAbsolutePath());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path path() {
        return path;
    }

    @Override
    public void close() {
        delete(path);
    }

    /** Deletes {@code root} and everything under it without following links; a few attempts. */
    public static void delete(Path root) {
        IOException last = null;
        for (int attempt = 0; attempt < 5 && Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS); attempt++) {
            try (Stream<Path> paths = Files.walk(root)) {
                for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
                return;
            } catch (IOException | UncheckedIOException e) {
                last = e instanceof IOException io ? io : ((UncheckedIOException) e).getCause();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300));
            }
        }
        if (last != null && Files.exists(root)) {
            throw new UncheckedIOException("could not delete " + root, last);
        }
    }
}
