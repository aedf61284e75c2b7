package io.jetstream.core.model;

import java.util.random.RandomGenerator;

/**
 * Chooses which relays carry a stream beside its direct route (JetStream §3.2, §3.5): a set of at
 * most {@code maxRelays} relays (the batch oracle's routes − 1) that maximises
 * {@link RelayGoodput#of}, from each route's measured read rate. Three ways, compared by the
 * benchmarks: the {@link RelayColony} (JetStream's, Algorithm 1), the {@link #greedy} first solution
 * it starts from, and a {@link #random} choice.
 *
 * <p>Implementations state their own threading contract; none reads a wall clock.
 */
public interface RelaySelection {
    /**
     * The chosen relays, as a mask (bit {@code i}: relay {@code i}); never one that does not answer.
     *
     * @param directRate the direct route's read rate, bytes per second (not positive: no answer)
     * @param relayRates each relay's read rate, bytes per second (not positive or NaN: no answer; at
     *     most {@value RelayGoodput#MAX_RELAYS} relays)
     * @param maxRelays most relays the set may hold
     * @param senderCap the most the sender produces, bytes per second ({@code POSITIVE_INFINITY} if unknown)
     */
    long select(double directRate, double[] relayRates, int maxRelays, double senderCap);

    /**
     * Algorithm 1's {@code CreateHeuristicSolution}: relays by falling read rate, each added while
     * it raises the goodput. Stateless; thread-safe.
     */
    static RelaySelection greedy() {
        return RelaySelection::greedy;
    }

    /** {@link #greedy()}'s choice. */
    static long greedy(double directRate, double[] relayRates, int maxRelays, double senderCap) {
        RelayGoodput.check(relayRates, maxRelays, senderCap);
        long chosen = 0;
        double best = RelayGoodput.of(directRate, relayRates, 0, senderCap);
        for (int added = 0; added < maxRelays; added++) {
            int next = -1;
            for (int i = 0; i < relayRates.length; i++) {
                if ((chosen & 1L << i) == 0 && RelayGoodput.answers(relayRates[i])
                        && (next < 0 || relayRates[i] > relayRates[next])) {
                    next = i;
                }
            }
            if (next < 0) {
                break;
            }
            double g = RelayGoodput.of(directRate, relayRates, chosen | 1L << next, senderCap);
            if (!(g > best)) {
                break;
            }
            best = g;
            chosen |= 1L << next;
        }
        return chosen;
    }

    /**
     * As many answering relays as allowed, drawn at random: the baseline. Not thread-safe (its generator).
     */
    static RelaySelection random(RandomGenerator random) {
        return (directRate, relayRates, maxRelays, senderCap) -> {
            RelayGoodput.check(relayRates, maxRelays, senderCap);
            long answering = 0;
            for (int i = 0; i < relayRates.length; i++) {
                if (RelayGoodput.answers(relayRates[i])) {
                    answering |= 1L << i;
                }
            }
            long chosen = 0;
            for (int n = Math.min(maxRelays, Long.bitCount(answering)); n > 0; n--) {
                int pick = random.nextInt(Long.bitCount(answering));
                long m = answering;
                for (int j = 0; j < pick; j++) {
                    m &= m - 1;
                }
                long bit = Long.lowestOneBit(m);
                chosen |= bit;
                answering &= ~bit;
            }
            return chosen;
        };
    }

    /**
     * {@link #random}, drawn once and kept while every relay it drew still answers and the bound on
     * relays is unchanged: a random deployment rather than a new draw per interval. Not thread-safe.
     */
    static RelaySelection randomOnce(RandomGenerator random) {
        RelaySelection draw = random(random);
        return new RelaySelection() {
            private long kept = -1;
            private int keptFor = -1;

            @Override
            public long select(double directRate, double[] relayRates, int maxRelays, double senderCap) {
                boolean stillAnswering = kept >= 0;
                for (long m = kept; stillAnswering && m != 0; m &= m - 1) {
                    stillAnswering = RelayGoodput.answers(relayRates[Long.numberOfTrailingZeros(m)]);
                }
                if (!stillAnswering || keptFor != maxRelays) {
                    kept = draw.select(directRate, relayRates, maxRelays, senderCap);
                    keptFor = maxRelays;
                }
                return kept;
            }
        };
    }
}
