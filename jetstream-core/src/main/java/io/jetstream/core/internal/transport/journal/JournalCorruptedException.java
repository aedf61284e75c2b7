package io.jetstream.core.internal.transport.journal;

import java.nio.file.Path;

/** A spill journal entry that this transport cannot have written: the file was damaged or replaced. */
public final class JournalCorruptedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public JournalCorruptedException(Path directory, String problem) {
        super("spill journal " + directory + " is corrupted: " + problem);
    }
}
