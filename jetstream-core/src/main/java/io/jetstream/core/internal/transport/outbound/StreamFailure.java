package io.jetstream.core.internal.transport.outbound;

/**
 * Where a stream's collaborators report what makes the stream fail ({@link RecordAccumulator#fail}):
 * it then takes no more records, and the cause is logged once, at ERROR, naming the stream.
 *
 * <p>Threading contract: any thread; implementations keep the first cause and ignore later ones.
 */
@FunctionalInterface
public interface StreamFailure {
    /** The stream failed {@code where} ("while ...") because of {@code cause}. */
    void fail(Throwable cause, String where);
}
