package io.jetstream.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * The relay colony against brute force over every set, on small seeded instances (4–8 relays,
 * random read rates, some relays not answering), in virtual time: the clock never moves, so only the
 * iteration limit and the upper bound stop it.
 */
class RelayColonyTest {
    private static final int INSTANCES = 400;
    private static final double NOT_ANSWERING = Double.NaN;
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);

    private record Instance(double direct, double[] relays, int maxRelays, double cap) {}

    private static Instance instance(RandomGenerator random) {
        int n = 4 + random.nextInt(5);
        double[] rates = new double[n];
        // half the instances: 1 to 100 MB/s, log-uniform; the other half: a few levels (10 to 50 MB/s), where
        // the goodput dips and rises again as relays are added and the greedy solution stops too early
        boolean levels = random.nextBoolean();
        for (int i = 0; i < n; i++) {
            // one relay in six does not answer (NaN or 0, as an estimator may say)
            rates[i] = random.nextInt(6) == 0 ? (random.nextBoolean() ? NOT_ANSWERING : 0)
                    : levels ? 10e6 * (1 + random.nextInt(5)) : 1e6 * Math.pow(100, random.nextDouble());
        }
        double direct = 1e6 * Math.pow(100, random.nextDouble());
        int maxRelays = 1 + random.nextInt(n);
        double cap = random.nextBoolean() ? Double.POSITIVE_INFINITY : 1e6 * Math.pow(300, random.nextDouble());
        return new Instance(direct, rates, maxRelays, cap);
    }

    /** The best goodput of any set of at most maxRelays relays. */
    private static double bruteForce(Instance in) {
        double best = 0;
        for (long mask = 0; mask < 1L << in.relays.length; mask++) {
            if (Long.bitCount(mask) <= in.maxRelays) {
                best = Math.max(best, RelayGoodput.of(in.direct, in.relays, mask, in.cap));
            }
        }
        return best;
    }

    private static boolean reaches(double goodput, double best) {
        return goodput >= best * (1 - 1e-12);
    }

    private static void assertValid(Instance in, long chosen) {
        assertTrue(Long.bitCount(chosen) <= in.maxRelays, "at most " + in.maxRelays + " relays: " + Long.toBinaryString(chosen));
        for (long m = chosen; m != 0; m &= m - 1) {
            int i = Long.numberOfTrailingZeros(m);
            assertTrue(i < in.relays.length, "relay " + i + " does not exist");
            assertTrue(RelayGoodput.answers(in.relays[i]), "relay " + i + " does not answer and was chosen");
        }
    }

    @Test
    void theColonyFindsTheBestSetInAtLeast95PercentOfSeededInstancesAndNeverChoosesARelayThatDoesNotAnswer() {
        SplittableRandom instances = new SplittableRandom(42);
        RelayColony colony = new RelayColony(new SplittableRandom(7), clock::get);
        RelaySelection greedy = RelaySelection.greedy();
        RelaySelection random = RelaySelection.random(new SplittableRandom(11));
        int colonyBest = 0;
        int greedyBest = 0;
        int randomBest = 0;
        for (int k = 0; k < INSTANCES; k++) {
            Instance in = instance(instances);
            double best = bruteForce(in);
            long c = colony.select(in.direct, in.relays, in.maxRelays, in.cap);
            long g = greedy.select(in.direct, in.relays, in.maxRelays, in.cap);
            long r = random.select(in.direct, in.relays, in.maxRelays, in.cap);
            assertValid(in, c);
            assertValid(in, g);
            assertValid(in, r);
            double colonyGoodput = RelayGoodput.of(in.direct, in.relays, c, in.cap);
            assertTrue(colonyGoodput >= RelayGoodput.of(in.direct, in.relays, g, in.cap), "the colony starts from the greedy solution");
            colonyBest += reaches(colonyGoodput, best) ? 1 : 0;
            greedyBest += reaches(RelayGoodput.of(in.direct, in.relays, g, in.cap), best) ? 1 : 0;
            randomBest += reaches(RelayGoodput.of(in.direct, in.relays, r, in.cap), best) ? 1 : 0;
        }
        String measured = String.format("best set found in %d instances: colony %.1f %%, greedy %.1f %%, random %.1f %%",
                INSTANCES, 100.0 * colonyBest / INSTANCES, 100.0 * greedyBest / INSTANCES, 100.0 * randomBest / INSTANCES);
        System.out.println("RelayColonyTest: " + measured);
        assertTrue(colonyBest >= 0.95 * INSTANCES, measured);
        assertTrue(colonyBest >= greedyBest, measured);
    }

    @Test
    void theGreedyFirstSolutionAddsTheFastestRelaysWhileTheGoodputRises() {
        // direct 10; relays 10, 5, 5, 5: {r0} carries 2 × 10 = 20; adding a 5 gives 3 × 5 = 15, so greedy stops at {r0}
        double[] rates = {5, 10, 5, 5};
        assertEquals(0b0010, RelaySelection.greedy().select(10, rates, 4, Double.POSITIVE_INFINITY));
        // ... while all four give 5 × 5 = 25: the colony looks past the dip
        RelayColony colony = new RelayColony(new SplittableRandom(1), clock::get);
        assertEquals(0b1111, colony.select(10, rates, 4, Double.POSITIVE_INFINITY));
        assertEquals(25, RelayGoodput.of(10, rates, 0b1111, Double.POSITIVE_INFINITY));
        // the sender's cap: once two routes reach it, a third adds nothing
        assertEquals(0b0010, RelaySelection.greedy().select(10, rates, 4, 18));
        // a relay that does not answer is never added, however it would rank
        assertEquals(0b0010, RelaySelection.greedy().select(10, new double[] {5, 10, Double.NaN, -1}, 4, Double.POSITIVE_INFINITY));
        // at most maxRelays
        assertEquals(0, RelaySelection.greedy().select(10, rates, 0, Double.POSITIVE_INFINITY));
    }

    @Test
    void aSetHoldingARelayThatDoesNotAnswerCarriesNothingAndADirectRouteThatDoesNotAnswerIsLeftOut() {
        double[] rates = {4, Double.NaN, 6};
        assertEquals(0, RelayGoodput.of(10, rates, 0b011, Double.POSITIVE_INFINITY));
        assertEquals(8, RelayGoodput.of(0, rates, 0b101, Double.POSITIVE_INFINITY));
        assertEquals(0, RelayGoodput.of(Double.NaN, rates, 0, Double.POSITIVE_INFINITY));
        RelayColony colony = new RelayColony(new SplittableRandom(3), clock::get);
        for (int i = 0; i < 50; i++) {
            long chosen = colony.select(10, new double[] {4, Double.NaN, 6, 0, 9}, 4, Double.POSITIVE_INFINITY);
            assertEquals(0, chosen & 0b01010, "relays 1 and 3 do not answer: " + Long.toBinaryString(chosen));
            for (int from = 0; from <= 5; from++) {
                assertEquals(0.0, colony.pheromone(from, 1), "no trail into a relay that does not answer");
                assertEquals(0.0, colony.pheromone(from, 3));
            }
        }
    }

    @Test
    void thePheromoneStaysWithinZeroAndTheBestKnownGoodputPlusEpsilon() {
        SplittableRandom instances = new SplittableRandom(5);
        RelayColony colony = new RelayColony(new SplittableRandom(9), clock::get);
        int ran = 0;
        for (int k = 0; k < 200; k++) {
            Instance in = instance(instances);
            long chosen = colony.select(in.direct, in.relays, in.maxRelays, in.cap);
            if (colony.lastIterations() == 0) {
                continue;
            }
            ran++;
            double bound = RelayGoodput.upperBound(in.direct, in.relays, in.maxRelays, in.cap);
            double tauMax = RelayGoodput.of(in.direct, in.relays, chosen, in.cap) / bound + RelayColony.EPSILON;
            assertEquals(tauMax, colony.pheromoneBound(), 1e-12, "τmax = best + ε");
            for (int from = 0; from <= in.relays.length; from++) {
                for (int to = 0; to < in.relays.length; to++) {
                    double tau = colony.pheromone(from, to);
                    assertTrue(tau >= 0 && tau <= tauMax, "τ[" + from + "][" + to + "] = " + tau + " outside [0, " + tauMax + "]");
                }
            }
        }
        assertTrue(ran > 50, "the colony iterated on " + ran + " of 200 instances");
    }

    @Test
    void aRelayWhoseRateDropsToAFifthLeavesTheSetWhenAnotherIsBetter() {
        RelayColony colony = new RelayColony(new SplittableRandom(13), clock::get);
        double[] rates = {50e6, 40e6, 30e6, 20e6};
        long first = colony.select(50e6, rates, 2, Double.POSITIVE_INFINITY);
        assertEquals(0b0011, first, "the two fastest relays: 3 × 40 MB/s");
        rates[0] = 10e6; // relay 0 drops to a fifth
        long next = colony.select(50e6, rates, 2, Double.POSITIVE_INFINITY);
        assertEquals(0b0110, next, "relay 0 leaves for relay 2: 3 × 30 MB/s against 3 × 10 MB/s");
        rates[0] = 50e6; // and comes back
        assertEquals(0b0011, colony.select(50e6, rates, 2, Double.POSITIVE_INFINITY));
    }

    @Test
    void theColonyStopsAtItsTimeBudget() {
        AtomicLong t = new AtomicLong();
        RelayColony colony = new RelayColony(new SplittableRandom(2), () -> t.addAndGet(RelayColony.TIME_BUDGET_NANOS / 4));
        colony.select(10, new double[] {5, 10, 5, 5, 7, 3}, 4, Double.POSITIVE_INFINITY);
        assertTrue(colony.lastIterations() <= 4, "iterations " + colony.lastIterations());
    }

    @Test
    void theRandomSelectionTakesAsManyAnsweringRelaysAsAllowed() {
        RelaySelection random = RelaySelection.random(new SplittableRandom(4));
        double[] rates = {1, Double.NaN, 3, 4, 0};
        for (int i = 0; i < 100; i++) {
            long chosen = random.select(10, rates, 2, Double.POSITIVE_INFINITY);
            assertEquals(2, Long.bitCount(chosen));
            assertEquals(0, chosen & 0b10010);
        }
        assertEquals(0b1101, random.select(10, rates, 9, Double.POSITIVE_INFINITY));
    }
}
