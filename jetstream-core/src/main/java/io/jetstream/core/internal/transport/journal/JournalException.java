package io.jetstream.core.internal.transport.journal;

import java.nio.file.Path;

/** A journal could not be written or read (disk full, permissions, a file in the way). The message names the directory. */
public final class JournalException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public JournalException(Path directory, String what, Throwable cause) {
        super("journal " + directory + ": " + what + ": " + cause, cause);
    }
}
