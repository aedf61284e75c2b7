package io.jetstream.core.internal.transport.outbound;

import io.jetstream.core.model.RelayGoodput;
import io.jetstream.core.model.RelaySelection;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses, for a stream whose relays are chosen by the ant colony
 * ({@link io.jetstream.core.api.StreamRoutes.RelayChoice#ANT_COLONY}), which routes carry its
 * batches: every {@code transport.relay.choice-interval-ms} it ends the {@link RouteRateEstimator}'s
 * interval, hands the routes' read rates to its {@link RelaySelection} (the colony) with at most the
 * oracle's routes − 1 relays, and gives the {@link RouteTable} a preference order: the direct route,
 * the chosen relays (fastest first), then ready routes not yet measured, the other answering routes
 * by falling rate, and last those that do not answer or are not ready.
 *
 * <p>Routes in use are the first {@code 1 + chosen} of that order (the colony's set: adding a slower
 * relay would slow every route down, as the sender hands batches round-robin), or the oracle's count
 * while a ready route has no measurement yet (so it gets one). Routes left out are still measured:
 * one batch in {@value #EXPLORE_EVERY} goes to the next ready route not in use ({@link RouteTable#exploreEvery}),
 * which costs little (that share of batches on a possibly slower route) and needs no probe traffic.
 * A route not ready reads as not answering; a lost route's rate is forgotten.
 *
 * <p>Not thread-safe: under the outbox lock, from {@link Outbox#pump} — once per written batch it
 * compares the clock with the next choice's time; the choice itself runs once per interval. Allocates
 * nothing per batch (its arrays are made once; the colony allocates only when the relay count changes).
 */
final class RouteSelector {
    private static final Logger LOG = LoggerFactory.getLogger(RouteSelector.class);
    /** One batch in this many goes to a ready route not in use, to measure it. */
    static final int EXPLORE_EVERY = 32;

    private final String name;
    private final RouteTable routes;
    private final RouteRateEstimator rates;
    private final RelaySelection selection;
    private final long intervalNanos;
    private final double[] relayRates;
    private final int[] order;
    private long nextNanos;

    RouteSelector(String name, RouteTable routes, RelaySelection selection, long intervalNanos, long nowNanos) {
        if (routes.size() - 1 > RelayGoodput.MAX_RELAYS) {
            throw new IllegalArgumentException("the ant colony chooses among at most " + RelayGoodput.MAX_RELAYS + " relays, not "
                    + (routes.size() - 1));
        }
        if (intervalNanos <= 0) {
            throw new IllegalArgumentException("choice interval " + intervalNanos + " ns");
        }
        this.name = name;
        this.routes = routes;
        this.rates = new RouteRateEstimator(routes.size(), nowNanos);
        this.selection = selection;
        this.intervalNanos = intervalNanos;
        this.relayRates = new double[routes.size() - 1];
        this.order = new int[routes.size()];
        this.nextNanos = nowNanos + intervalNanos;
        routes.exploreEvery(EXPLORE_EVERY);
    }

    /** The estimator the outbox feeds (watermark moves, acknowledged bytes). */
    RouteRateEstimator rates() {
        return rates;
    }

    /** Whether a new choice is due. */
    boolean due(long nowNanos) {
        return nowNanos - nextNanos >= 0;
    }

    /** Ends the rate interval and chooses again (the outbox has charged the current head of line). */
    void select(long nowNanos) {
        rates.endInterval(nowNanos);
        double direct = rateOf(0);
        boolean unmeasured = routes.get(0) != null && Double.isNaN(rates.rate(0));
        for (int i = 0; i < relayRates.length; i++) {
            relayRates[i] = rateOf(i + 1);
            unmeasured |= routes.get(i + 1) != null && Double.isNaN(rates.rate(i + 1));
        }
        int maxRelays = routes.allowed() - 1;
        long chosen = selection.select(direct, relayRates, maxRelays, Double.POSITIVE_INFINITY);
        order[0] = 0;
        for (int route = 1; route < order.length; route++) { // insertion by (group, falling rate, index)
            int p = route;
            while (p > 1 && before(route, order[p - 1], chosen)) {
                order[p] = order[p - 1];
                p--;
            }
            order[p] = route;
        }
        int preferred = unmeasured ? order.length : 1 + Long.bitCount(chosen);
        routes.order(order, preferred);
        nextNanos = nowNanos + intervalNanos;
        if (LOG.isDebugEnabled()) {
            LOG.debug("Stream {}: routes by preference {}, {} in use (oracle allows {}); read rates B/s direct {}, relays {}", name,
                    Arrays.toString(order), routes.active(), maxRelays + 1, direct, Arrays.toString(relayRates));
        }
    }

    /** A route's rate as the colony sees it: NaN (does not answer) while it is not ready or not measured. */
    private double rateOf(int route) {
        return routes.get(route) == null ? Double.NaN : rates.rate(route);
    }

    /** 0 chosen, 1 ready and not measured yet, 2 answering, 3 not answering or not ready. */
    private int group(int route, long chosen) {
        if ((chosen & 1L << (route - 1)) != 0) {
            return 0;
        }
        if (routes.get(route) == null) {
            return 3;
        }
        double r = rates.rate(route);
        return Double.isNaN(r) ? 1 : RelayGoodput.answers(r) ? 2 : 3;
    }

    private boolean before(int a, int b, long chosen) {
        int ga = group(a, chosen);
        int gb = group(b, chosen);
        if (ga != gb) {
            return ga < gb;
        }
        double ra = rates.rate(a);
        double rb = rates.rate(b);
        if (ra > rb) {
            return true;
        }
        return !(ra < rb) && a < b; // equal, or NaN: by index
    }

    /** Route {@code route} was lost: its next connection may take another path. */
    void forget(int route) {
        rates.forget(route);
    }
}
