package io.jetstream.core.ring;

/** The ring's consumer closed it or died: producers cannot deliver into it any more. */
public final class RingClosedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RingClosedException(String message) {
        super(message);
    }
}
