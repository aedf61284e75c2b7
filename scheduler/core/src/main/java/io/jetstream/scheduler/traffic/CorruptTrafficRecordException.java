package io.jetstream.scheduler.traffic;

import java.io.IOException;

/** A traffic record that cannot be read; says which record, which line and what is wrong. */
public final class CorruptTrafficRecordException extends IOException {
    public CorruptTrafficRecordException(String source, int line, String problem) {
        super("corrupt traffic record " + source + " line " + line + ": " + problem);
    }
}
