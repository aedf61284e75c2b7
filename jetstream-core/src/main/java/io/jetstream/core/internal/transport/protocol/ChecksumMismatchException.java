package io.jetstream.core.internal.transport.protocol;

/**
 * A BATCH whose CRC32C does not match its records: corrupted in transit (by a faulty link or a
 * relay), checked before the records' structure so a corrupted length is reported as what it is.
 */
public final class ChecksumMismatchException extends ProtocolException {
    public ChecksumMismatchException(String message) {
        super(message);
    }
}
