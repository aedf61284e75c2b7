package io.jetstream.core.internal.transport.outbound;

import io.jetstream.core.model.BatchController;
import java.util.Arrays;

/**
 * The routes of one stream's {@link Outbox}, by index: which are ready, which are in the middle of a
 * handshake, which of them the controller's last decision puts in use, and the round-robin choice of
 * the route that takes the next batch.
 *
 * <p>Threading contract: not thread-safe; every method is called under the outbox lock, except
 * {@link #isReady} and {@link #carriedByRing}, which are one volatile read each, for any thread.
 */
final class RouteTable {
    /** Ready routes by index; null while a route is not ready. */
    private final Route[] routes;
    /** Routes in the middle of a handshake. */
    private final boolean[] handshaking;
    /** Whose last decision says how many routes are in use; null in fixed batch mode (all of them). */
    private final BatchController controller;
    private int nextRoute;
    /** Whether a route is ready: written where routes change, read by any thread. */
    private volatile boolean ready;
    /** Whether routes are ready and every one of them is a shared-memory ring; read by any thread. */
    private volatile boolean carriedByRing;

    RouteTable(int routeCount, BatchController controller) {
        this.routes = new Route[routeCount];
        this.handshaking = new boolean[routeCount];
        this.controller = controller;
    }

    /** How many routes the stream has. */
    int size() {
        return routes.length;
    }

    /** The ready route at {@code index}, or null. */
    Route get(int index) {
        return routes[index];
    }

    void beginHandshake(int index) {
        handshaking[index] = true;
    }

    /** {@code route} completed its handshake and takes batches. */
    void ready(Route route) {
        handshaking[route.index()] = false;
        routes[route.index()] = route;
        changed();
    }

    /**
     * Route {@code index} lost its connection; {@code route} is what was ready there (or null).
     * Returns whether {@code route} was the ready one and is now gone.
     */
    boolean remove(int index, Route route) {
        handshaking[index] = false;
        if (route != null && routes[index] == route) {
            routes[index] = null;
            changed();
            return true;
        }
        return false;
    }

    /** {@code replacement} takes {@code old}'s place. Returns whether {@code old} was the ready one. */
    boolean replace(Route old, Route replacement) {
        int index = old.index();
        if (routes[index] == old) {
            routes[index] = replacement;
            changed();
            return true;
        }
        return false;
    }

    /** No route is ready any more (the outbox closes). */
    void clear() {
        Arrays.fill(routes, null);
        changed();
    }

    /** Round-robin over the ready routes among the first {@code routes} the oracle chose, then any ready route; null if none. */
    Route next() {
        int active = active();
        for (int pass = 0; pass < 2; pass++) {
            int limit = pass == 0 ? active : routes.length;
            for (int i = 0; i < limit; i++) {
                int index = (nextRoute + i) % limit;
                Route r = routes[index];
                if (r != null) {
                    nextRoute = (index + 1) % limit;
                    return r;
                }
            }
        }
        return null;
    }

    /** Ready routes among those the oracle chose. */
    int inUse() {
        int active = active();
        int n = 0;
        for (int i = 0; i < active; i++) {
            if (routes[i] != null) {
                n++;
            }
        }
        return n;
    }

    /** Whether one of the routes in use is ready and has nothing queued: a batch written now leaves at once. */
    boolean anyInUseIdle() {
        int active = active();
        for (int i = 0; i < active; i++) {
            Route r = routes[i];
            if (r != null && r.queuedBytes() == 0) {
                return true;
            }
        }
        return false;
    }

    /** How many routes the controller's last decision uses (all of them in fixed mode). */
    private int active() {
        return controller != null && controller.lastDecision() != null
                ? Math.max(1, Math.min(routes.length, controller.lastDecision().routes()))
                : routes.length;
    }

    boolean anyReady() {
        for (Route r : routes) {
            if (r != null) {
                return true;
            }
        }
        return false;
    }

    /** Whether a route is ready or in the middle of a handshake. */
    boolean connected() {
        if (anyReady()) {
            return true;
        }
        for (boolean h : handshaking) {
            if (h) {
                return true;
            }
        }
        return false;
    }

    /** Ready routes, for messages. */
    int readyCount() {
        int n = 0;
        for (Route r : routes) {
            if (r != null) {
                n++;
            }
        }
        return n;
    }

    /** The kinds of the ready routes, by index ({@code null} where none is ready). */
    String[] kinds() {
        String[] kinds = new String[routes.length];
        for (int i = 0; i < routes.length; i++) {
            kinds[i] = routes[i] == null ? null : routes[i].kind();
        }
        return kinds;
    }

    /** Whether a route is ready. One volatile read; any thread. */
    boolean isReady() {
        return ready;
    }

    /** Whether routes are ready and every one is a ring. One volatile read; any thread. */
    boolean carriedByRing() {
        return carriedByRing;
    }

    private void changed() {
        ready = anyReady();
        boolean ring = false;
        for (Route r : routes) {
            if (r != null) {
                if (!(r instanceof RingRoute)) {
                    ring = false;
                    break;
                }
                ring = true;
            }
        }
        carriedByRing = ring;
    }
}
