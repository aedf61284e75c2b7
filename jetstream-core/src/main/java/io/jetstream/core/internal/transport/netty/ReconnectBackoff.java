package io.jetstream.core.internal.transport.netty;

/**
 * How long a route waits before its next connection attempt. While a route that has never connected
 * finds nothing listening (connection refused or unreachable), its receiver is most likely still
 * starting (a Storm worker whose peers' workers are launched one after the other): every attempt
 * follows the last after the minimum wait, so the route is ready soon after the receiver listens and
 * the engine activates without waiting for a long back-off to run out. Every other failure (a lost
 * connection, a refused handshake) backs off exponentially, from the minimum to the maximum; a
 * connection that succeeds starts over at the minimum.
 *
 * <p>Not thread-safe: one route's, used on its event loop.
 */
final class ReconnectBackoff {
    private final long minNanos;
    private final long maxNanos;
    private long nextNanos;
    private boolean connectedOnce;

    ReconnectBackoff(long minNanos, long maxNanos) {
        if (minNanos <= 0 || maxNanos < minNanos) {
            throw new IllegalArgumentException("back-off bounds " + minNanos + ".." + maxNanos + " ns");
        }
        this.minNanos = minNanos;
        this.maxNanos = maxNanos;
        this.nextNanos = minNanos;
    }

    /** The wait before the next attempt after this one found nothing listening. */
    long afterNoListener() {
        return connectedOnce ? afterFailure() : minNanos;
    }

    /** The wait before the next attempt after a lost connection or a failed handshake. */
    long afterFailure() {
        long wait = nextNanos;
        nextNanos = Math.min(maxNanos, nextNanos * 2);
        return wait;
    }

    /** The route connected (its handshake completed): the next failure starts over at the minimum. */
    void connected() {
        connectedOnce = true;
        nextNanos = minNanos;
    }
}
