package io.jetstream.core.ring;

import io.jetstream.core.internal.ring.RingDescriptor;
import java.nio.charset.StandardCharsets;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The failed state of a ring file: the consumer writes why it stopped, then publishes
 * {@link RingDescriptor#STATE_FAILED}; producers that find that state read the reason back for their
 * log and their fallback. Stateless.
 */
final class RingFailure {
    private RingFailure() {}

    /** Writes {@code reason} (cut to {@link RingDescriptor#MAX_FAILURE_LENGTH} bytes), then the failed state. */
    static void mark(UnsafeBuffer ring, String reason) {
        byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        int length = Math.min(text.length, RingDescriptor.MAX_FAILURE_LENGTH);
        ring.putBytes(RingDescriptor.FAILURE_REASON_OFFSET, text, 0, length);
        ring.putInt(RingDescriptor.FAILURE_LENGTH_OFFSET, length);
        ring.putIntVolatile(RingDescriptor.STATE_OFFSET, RingDescriptor.STATE_FAILED);
    }

    /** The reason a failed ring gives; read after the failed state was seen. */
    static String reason(UnsafeBuffer ring) {
        int length = ring.getIntVolatile(RingDescriptor.FAILURE_LENGTH_OFFSET);
        if (length <= 0 || length > RingDescriptor.MAX_FAILURE_LENGTH) {
            return "no reason recorded";
        }
        byte[] text = new byte[length];
        ring.getBytes(RingDescriptor.FAILURE_REASON_OFFSET, text);
        return new String(text, StandardCharsets.UTF_8);
    }
}
