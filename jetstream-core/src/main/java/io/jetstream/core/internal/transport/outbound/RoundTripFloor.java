package io.jetstream.core.internal.transport.outbound;

/**
 * The shortest acknowledgement round trip since the routes last (re)connected: the path's round
 * trip when nothing queues on it. Reset when a route finishes a handshake, because a route that
 * reconnects may do so over another path: an all-time minimum would keep a shorter, earlier path's
 * value for the sender's life. Not reset by time: under an overload that lasts, every round trip
 * includes a queue, and a floor that expired would rise to it and stop reading the queue as one.
 *
 * <p>Not thread-safe: the sender updates and reads it under its lock.
 */
final class RoundTripFloor {
    private long floorNanos = Long.MAX_VALUE;

    /** A batch written at {@code sentNanos} was acknowledged at {@code nowNanos}. */
    void onAcknowledged(long sentNanos, long nowNanos) {
        floorNanos = Math.min(floorNanos, nowNanos - sentNanos);
    }

    /** A route (re)connected: forget the floor of the path it may have left. */
    void reset() {
        floorNanos = Long.MAX_VALUE;
    }

    /** Whether an acknowledgement was seen since the last reset. */
    boolean known() {
        return floorNanos != Long.MAX_VALUE;
    }

    /** The floor in nanoseconds; {@link Long#MAX_VALUE} while unknown. */
    long nanos() {
        return floorNanos;
    }
}
