package io.jetstream.core.ring;

import java.nio.file.Path;

/**
 * A record in the ring that no producer of this layout could have written: the consumer cannot
 * find the next record boundary, so it stops reading the ring (and marks it failed). The message
 * names the file, the position and the header.
 */
public final class RingCorruptedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RingCorruptedException(Path file, String cause) {
        super(file + " is corrupt: " + cause);
    }
}
