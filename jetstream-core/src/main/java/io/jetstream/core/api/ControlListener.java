package io.jetstream.core.api;

import org.agrona.DirectBuffer;

/**
 * Receives the CONTROL frames a receiver broadcasts to its senders (back-pressure status, load),
 * on the sender's I/O thread.
 */
@FunctionalInterface
public interface ControlListener {
    ControlListener NONE = (tag, buffer, offset, length) -> {};

    /** @param buffer valid only during this call */
    void onControl(int tag, DirectBuffer buffer, int offset, int length);
}
