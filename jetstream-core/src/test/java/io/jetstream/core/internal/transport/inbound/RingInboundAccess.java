package io.jetstream.core.internal.transport.inbound;

/** RingInbound's acknowledgement thresholds, for tests in other packages. */
public final class RingInboundAccess {
    private RingInboundAccess() {}

    public static final long ACK_INTERVAL_NANOS = RingInbound.ACK_INTERVAL_NANOS;
    public static final long ACK_BYTES = RingInbound.ACK_BYTES;
}
