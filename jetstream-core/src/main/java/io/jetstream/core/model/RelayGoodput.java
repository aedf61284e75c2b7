package io.jetstream.core.model;

/**
 * What a set of relays carries, as the sender spreads batches (the objective of every
 * {@link RelaySelection}): the sender's route table hands batches round-robin, one to each route in
 * use in turn, so every route takes the same share and the stream goes at about
 * {@code (routes in use) × (the slowest one's read rate)}, and never faster than the sender itself
 * ({@code senderCap}):
 *
 * <pre>goodput(S) = min(senderCap, |S ∪ {direct}| × min{rate(r) : r ∈ S ∪ {direct}})</pre>
 *
 * <p>A relay that does not answer (its rate is not a positive number: NaN, 0 or negative) has an
 * infinite cost: a set holding one carries nothing ({@code 0}). A direct route that does not answer
 * is left out of the set rather than zeroing it (the relays may still reach the receiver). A set is
 * a bit mask over the relays (bit {@code i}: relay {@code i}), so at most {@value #MAX_RELAYS}.
 *
 * <p>Stateless; thread-safe; allocates nothing.
 */
public final class RelayGoodput {
    /** Most relays a mask holds. */
    public static final int MAX_RELAYS = 63;

    private RelayGoodput() {}

    /** Whether a measured read rate says the route answers. */
    public static boolean answers(double rate) {
        return rate > 0;
    }

    /**
     * The goodput of {@code relays} (a mask over {@code relayRates}) with the direct route.
     *
     * @param directRate the direct route's read rate (bytes per second; not positive: it does not answer)
     * @param relayRates each relay's read rate, by relay index
     * @param senderCap the most the sender produces (bytes per second; {@code Double.POSITIVE_INFINITY} if unknown)
     */
    public static double of(double directRate, double[] relayRates, long relays, double senderCap) {
        int routes = 0;
        double slowest = Double.POSITIVE_INFINITY;
        if (answers(directRate)) {
            routes = 1;
            slowest = directRate;
        }
        for (long m = relays; m != 0; m &= m - 1) {
            double r = relayRates[Long.numberOfTrailingZeros(m)];
            if (!answers(r)) {
                return 0;
            }
            routes++;
            slowest = Math.min(slowest, r);
        }
        return routes == 0 ? 0 : Math.min(senderCap, routes * slowest);
    }

    /**
     * A bound no set of at most {@code maxRelays} relays exceeds: all the routes that may be used at
     * the fastest rate, capped by the sender. A set that reaches it is the best.
     */
    public static double upperBound(double directRate, double[] relayRates, int maxRelays, double senderCap) {
        int answering = 0;
        double fastest = answers(directRate) ? directRate : 0;
        for (double r : relayRates) {
            if (answers(r)) {
                answering++;
                fastest = Math.max(fastest, r);
            }
        }
        int routes = Math.min(maxRelays, answering) + (answers(directRate) ? 1 : 0);
        return Math.min(senderCap, routes * fastest);
    }

    /** Checks the arguments every selection takes. */
    static void check(double[] relayRates, int maxRelays, double senderCap) {
        if (relayRates.length > MAX_RELAYS) {
            throw new IllegalArgumentException(relayRates.length + " relays; at most " + MAX_RELAYS);
        }
        if (maxRelays < 0 || !(senderCap > 0)) {
            throw new IllegalArgumentException("maxRelays " + maxRelays + ", senderCap " + senderCap);
        }
        for (double r : relayRates) {
            if (Double.isInfinite(r)) {
                throw new IllegalArgumentException("an infinite read rate: " + java.util.Arrays.toString(relayRates));
            }
        }
    }
}
