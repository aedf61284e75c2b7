package io.jetstream.core.internal.transport.outbound;

import io.jetstream.core.model.BatchController;
import java.util.Arrays;

/**
 * The routes of one stream's {@link Outbox}, by index: which are ready, which are in the middle of a
 * handshake, which of them the controller's last decision puts in use, and the round-robin choice of
 * the route that takes the next batch.
 *
 * <p>Routes are taken in a preference {@linkplain #order order} (the index order unless a
 * {@link RouteSelector} sets one: the direct route, then the relays the colony chose, then the
 * rest): the routes in use are the first {@code min(oracle's routes, preferred)} of that order. With
 * exploration on ({@link #exploreEvery}), one batch in {@code n} goes to the next ready route
 * <em>not</em> in use instead, so that the read rates of the routes left out are still measured.
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
    /** Route indices, most preferred first. */
    private final int[] order;
    /** How many of the first routes of {@link #order} the selector wants in use at most. */
    private int preferred;
    /** Next position in {@link #order} to try (round-robin). */
    private int nextRoute;
    /** One batch in this many goes to a ready route not in use (0: never). */
    private int exploreEvery;
    private int sinceExplored;
    /** Next position (among those not in use) to explore. */
    private int nextExplored;
    /** Whether a route is ready: written where routes change, read by any thread. */
    private volatile boolean ready;
    /** Whether routes are ready and every one of them is a shared-memory ring; read by any thread. */
    private volatile boolean carriedByRing;

    RouteTable(int routeCount, BatchController controller) {
        this.routes = new Route[routeCount];
        this.handshaking = new boolean[routeCount];
        this.controller = controller;
        this.order = new int[routeCount];
        for (int i = 0; i < routeCount; i++) {
            order[i] = i;
        }
        this.preferred = routeCount;
    }

    /**
     * Sets the preference order (a permutation of the route indices, copied) and how many of its first
     * routes may be in use at most (the oracle's count still bounds them). Allocates nothing.
     */
    void order(int[] newOrder, int preferredRoutes) {
        if (newOrder.length != order.length || preferredRoutes < 1) {
            throw new IllegalArgumentException("order of " + newOrder.length + " routes, " + preferredRoutes + " preferred");
        }
        for (int p = 0; p < newOrder.length; p++) {
            boolean repeated = false;
            for (int q = 0; q < p; q++) {
                repeated |= newOrder[q] == newOrder[p];
            }
            if (newOrder[p] < 0 || newOrder[p] >= order.length || repeated) {
                throw new IllegalArgumentException("not a permutation: " + Arrays.toString(newOrder));
            }
        }
        System.arraycopy(newOrder, 0, order, 0, order.length);
        preferred = Math.min(preferredRoutes, order.length);
    }

    /** The preference order, most preferred first (a copy, for messages and tests). */
    int[] order() {
        return order.clone();
    }

    /** The route index at {@code position} of the preference order. */
    int orderAt(int position) {
        return order[position];
    }

    /** One batch in {@code n} goes to a ready route not in use (0: never, the default). */
    void exploreEvery(int n) {
        this.exploreEvery = n;
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

    /**
     * Round-robin over the ready routes among the first routes in use of the preference order, then
     * any ready route in that order; null if none. With exploration on, one call in {@code n} returns
     * the next ready route not in use instead, if there is one.
     */
    Route next() {
        int active = active();
        if (exploreEvery > 0 && active < routes.length && ++sinceExplored >= exploreEvery) {
            sinceExplored = 0;
            int unused = routes.length - active;
            for (int i = 0; i < unused; i++) {
                int position = active + (nextExplored + i) % unused;
                Route r = routes[order[position]];
                if (r != null) {
                    nextExplored = (position - active + 1) % unused;
                    return r;
                }
            }
        }
        for (int pass = 0; pass < 2; pass++) {
            int limit = pass == 0 ? active : routes.length;
            for (int i = 0; i < limit; i++) {
                int position = (nextRoute + i) % limit;
                Route r = routes[order[position]];
                if (r != null) {
                    nextRoute = (position + 1) % limit;
                    return r;
                }
            }
        }
        return null;
    }

    /** Ready routes among those in use. */
    int inUse() {
        int active = active();
        int n = 0;
        for (int i = 0; i < active; i++) {
            if (routes[order[i]] != null) {
                n++;
            }
        }
        return n;
    }

    /** Whether one of the routes in use is ready and has nothing queued: a batch written now leaves at once. */
    boolean anyInUseIdle() {
        int active = active();
        for (int i = 0; i < active; i++) {
            Route r = routes[order[i]];
            if (r != null && r.queuedBytes() == 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * How many routes are in use: the controller's last decision (all of them in fixed mode), at most
     * what the selector prefers, at least one.
     */
    int active() {
        int oracle = controller != null && controller.lastDecision() != null ? controller.lastDecision().routes() : routes.length;
        return Math.max(1, Math.min(Math.min(routes.length, preferred), oracle));
    }

    /** The routes the oracle's last decision allows (all in fixed mode), before the selector's preference. */
    int allowed() {
        int oracle = controller != null && controller.lastDecision() != null ? controller.lastDecision().routes() : routes.length;
        return Math.max(1, Math.min(routes.length, oracle));
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
