package io.jetstream.core.internal.transport.protocol;

/**
 * A peer broke the protocol: bad magic or version, a length out of bounds, a truncated or
 * inconsistent frame, a frame not allowed in the connection's state, a failed checksum or
 * authentication, an unknown target. The connection that received it is closed; others go on.
 */
public class ProtocolException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ProtocolException(String message) {
        super(message);
    }
}
