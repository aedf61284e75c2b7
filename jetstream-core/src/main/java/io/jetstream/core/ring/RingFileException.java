package io.jetstream.core.ring;

import java.nio.file.Path;

/**
 * A ring file or directory that JetStream refuses: not a ring, another version, truncated, owned by
 * another user, open by a live consumer, or unsafe permissions. The message names the file and the
 * cause.
 */
public final class RingFileException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RingFileException(Path file, String cause) {
        super(file + ": " + cause);
    }

    public RingFileException(Path file, String cause, Throwable throwable) {
        super(file + ": " + cause, throwable);
    }
}
