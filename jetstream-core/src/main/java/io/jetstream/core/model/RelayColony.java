package io.jetstream.core.model;

import java.util.Arrays;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * JetStream's ant colony (§3.5, Algorithm 1): chooses the relays that carry a stream beside its
 * direct route, maximising {@link RelayGoodput#of} — what the sender's round-robin over the routes
 * in use really carries, {@code min(senderCap, |S ∪ direct| × slowest rate)}.
 *
 * <p>The construction graph has the direct route as its nest (node 0) and one node per relay; an ant
 * walks from the nest through at most {@code maxRelays} relays, each step choosing relay {@code j}
 * from where it stands ({@code i}) with probability ∝ τ<sub>ij</sub><sup>α</sup> ×
 * η<sub>j</sub><sup>β</sup>, and its solution is the prefix of its walk with the highest goodput (so a
 * set may hold fewer relays than allowed). One {@link #select} call:
 *
 * <ol>
 *   <li>the first solution is the {@link RelaySelection#greedy greedy} one (CreateHeuristicSolution);
 *   <li>η<sub>j</sub> (the heuristic): relay {@code j}'s <em>first</em> measured read rate, normalised to
 *       [1, 10] over the relays measured (10 for the fastest); kept from one call to the next;
 *   <li>τ<sub>ij</sub> (the pheromone): starts at relay {@code j}'s current read rate over the fastest
 *       relay's, in [0, 1]; a relay that does not answer gets τ = 0 and infinite cost, so no ant ever
 *       takes it;
 *   <li>each iteration, {@value #ANTS} ants build solutions; then every τ evaporates, τ ← (1 − ρ)τ
 *       with ρ = {@value #EVAPORATION}, and the iteration's best ant lays Δτ = its goodput over
 *       {@link RelayGoodput#upperBound} on the edges of its solution; τ is then bounded to
 *       [0, best + ε] (best: the best goodput known, normalised the same way; ε = {@value #EPSILON});
 *   <li>it stops after {@value #MAX_ITERATIONS} iterations, after {@value #TIME_BUDGET_NANOS} ns of
 *       its clock, or as soon as a solution reaches the upper bound (every allowed route at the fastest
 *       rate, or the sender's cap: JetStream's "best read rate", which nothing can beat).
 * </ol>
 *
 * <p>Pheromone restarts from the current rates at every call (the rates it was laid for are gone);
 * the heuristic keeps the first measurements, as the paper's distances do.
 *
 * <p>Not thread-safe: one selecting thread. No wall clock: time is the injected nanosecond clock;
 * randomness is the injected generator, so a seeded colony is reproducible. Allocates only when the
 * number of relays changes.
 */
public final class RelayColony implements RelaySelection {
    /** Ants per iteration (m). */
    public static final int ANTS = 10;
    /** Weight of the pheromone (α). */
    public static final double ALPHA = 1;
    /** Weight of the heuristic (β). */
    public static final double BETA = 2;
    /** Evaporation rate (ρ). */
    public static final double EVAPORATION = 0.1;
    /** Margin of the pheromone's upper bound over the best known goodput (ε, normalised). */
    public static final double EPSILON = 0.05;
    /** Iterations per call at most. */
    public static final int MAX_ITERATIONS = 40;
    /** Clock time per call at most (it runs under the sender's outbox lock). */
    public static final long TIME_BUDGET_NANOS = 2_000_000;

    private final RandomGenerator random;
    private final LongSupplier nanoClock;

    /** First measured read rate per relay (NaN until one answers). */
    private double[] firstRates = new double[0];
    private double[] heuristic = new double[0];
    /** τ[i][j]: from node i (0 the nest, 1 + r relay r) to relay j. */
    private double[][] pheromone = new double[0][0];
    private int[] tour = new int[0];
    private int[] bestTour = new int[0];
    private double[] weights = new double[0];
    private int lastIterations;
    private double lastPheromoneBound;

    public RelayColony(RandomGenerator random, LongSupplier nanoClock) {
        this.random = random;
        this.nanoClock = nanoClock;
    }

    @Override
    public long select(double directRate, double[] relayRates, int maxRelays, double senderCap) {
        long start = nanoClock.getAsLong();
        int n = relayRates.length;
        long chosen = RelaySelection.greedy(directRate, relayRates, maxRelays, senderCap); // checks the arguments
        size(n);
        double bound = RelayGoodput.upperBound(directRate, relayRates, maxRelays, senderCap);
        double best = RelayGoodput.of(directRate, relayRates, chosen, senderCap);
        lastIterations = 0;
        int steps = Math.min(maxRelays, answering(relayRates));
        if (!(bound > 0) || best >= bound || steps == 0) {
            lastPheromoneBound = Double.NaN;
            return chosen;
        }
        updateHeuristic(relayRates);
        initialisePheromone(relayRates);
        double tauMax = best / bound + EPSILON;
        lastPheromoneBound = tauMax;
        bound(relayRates, tauMax);
        for (int it = 0; it < MAX_ITERATIONS && best < bound && nanoClock.getAsLong() - start < TIME_BUDGET_NANOS; it++) {
            lastIterations++;
            double iterationBest = -1;
            int iterationBestLength = 0;
            for (int ant = 0; ant < ANTS; ant++) {
                int walked = walk(relayRates, steps);
                // The ant's solution: the best prefix of its walk (the shortest among equals).
                long mask = 0;
                double antBest = RelayGoodput.of(directRate, relayRates, 0, senderCap);
                int antLength = 0;
                long antMask = 0;
                for (int s = 0; s < walked; s++) {
                    mask |= 1L << tour[s];
                    double g = RelayGoodput.of(directRate, relayRates, mask, senderCap);
                    if (g > antBest) {
                        antBest = g;
                        antLength = s + 1;
                        antMask = mask;
                    }
                }
                if (antBest > iterationBest) {
                    iterationBest = antBest;
                    iterationBestLength = antLength;
                    System.arraycopy(tour, 0, bestTour, 0, antLength);
                }
                if (antBest > best) {
                    best = antBest;
                    chosen = antMask;
                }
            }
            for (double[] row : pheromone) {
                for (int j = 0; j < n; j++) {
                    row[j] *= 1 - EVAPORATION;
                }
            }
            double deposit = iterationBest / bound;
            int from = 0;
            for (int s = 0; s < iterationBestLength; s++) {
                pheromone[from][bestTour[s]] += deposit;
                from = 1 + bestTour[s];
            }
            tauMax = best / bound + EPSILON;
            lastPheromoneBound = tauMax;
            bound(relayRates, tauMax);
        }
        return chosen;
    }

    /** One ant's walk from the nest: fills {@code tour}; returns its length (at most {@code steps}). */
    private int walk(double[] rates, int steps) {
        int n = rates.length;
        long visited = 0;
        int from = 0;
        int length = 0;
        for (; length < steps; length++) {
            double sum = 0;
            int candidates = 0;
            for (int j = 0; j < n; j++) {
                double w = 0;
                if ((visited & 1L << j) == 0 && RelayGoodput.answers(rates[j])) {
                    candidates++;
                    w = Math.pow(pheromone[from][j], ALPHA) * Math.pow(heuristic[j], BETA);
                }
                weights[j] = w;
                sum += w;
            }
            if (candidates == 0) {
                break;
            }
            int pick = -1;
            if (sum > 0) {
                double x = random.nextDouble() * sum;
                for (int j = 0; j < n; j++) {
                    if (weights[j] > 0) {
                        pick = j;
                        x -= weights[j];
                        if (x < 0) {
                            break;
                        }
                    }
                }
            } else { // every trail evaporated: any answering relay, evenly
                int k = random.nextInt(candidates);
                for (int j = 0; j < n && pick < 0; j++) {
                    if ((visited & 1L << j) == 0 && RelayGoodput.answers(rates[j]) && k-- == 0) {
                        pick = j;
                    }
                }
            }
            tour[length] = pick;
            visited |= 1L << pick;
            from = 1 + pick;
        }
        return length;
    }

    private static int answering(double[] rates) {
        int n = 0;
        for (double r : rates) {
            if (RelayGoodput.answers(r)) {
                n++;
            }
        }
        return n;
    }

    private void size(int n) {
        if (firstRates.length != n) {
            firstRates = new double[n];
            Arrays.fill(firstRates, Double.NaN);
            heuristic = new double[n];
            pheromone = new double[n + 1][n];
            tour = new int[n];
            bestTour = new int[n];
            weights = new double[n];
        }
    }

    /** η: each relay's first measured rate, normalised to [1, 10] over the relays measured. */
    private void updateHeuristic(double[] rates) {
        double lo = Double.POSITIVE_INFINITY;
        double hi = 0;
        for (int j = 0; j < rates.length; j++) {
            if (Double.isNaN(firstRates[j]) && RelayGoodput.answers(rates[j])) {
                firstRates[j] = rates[j];
            }
            if (!Double.isNaN(firstRates[j])) {
                lo = Math.min(lo, firstRates[j]);
                hi = Math.max(hi, firstRates[j]);
            }
        }
        for (int j = 0; j < rates.length; j++) {
            heuristic[j] = Double.isNaN(firstRates[j]) ? 0 : hi > lo ? 1 + 9 * (firstRates[j] - lo) / (hi - lo) : 10;
        }
    }

    /** τ: each answering relay's rate over the fastest relay's, on every edge into it; 0 into one that does not answer. */
    private void initialisePheromone(double[] rates) {
        double fastest = 0;
        for (double r : rates) {
            if (RelayGoodput.answers(r)) {
                fastest = Math.max(fastest, r);
            }
        }
        for (double[] row : pheromone) {
            for (int j = 0; j < rates.length; j++) {
                row[j] = RelayGoodput.answers(rates[j]) ? rates[j] / fastest : 0;
            }
        }
    }

    /** Keeps τ within [0, tauMax], and 0 into a relay that does not answer. */
    private void bound(double[] rates, double tauMax) {
        for (double[] row : pheromone) {
            for (int j = 0; j < rates.length; j++) {
                row[j] = RelayGoodput.answers(rates[j]) ? Math.max(0, Math.min(tauMax, row[j])) : 0;
            }
        }
    }

    /** Iterations the last {@link #select} ran (0: the greedy solution reached the bound, or nothing to choose). */
    public int lastIterations() {
        return lastIterations;
    }

    /** τ from node {@code from} (0 the nest, 1 + r relay r) to relay {@code to}, as the last call left it. */
    double pheromone(int from, int to) {
        return pheromone[from][to];
    }

    /** The upper bound on τ the last call ended with (NaN if it ran no iteration). */
    double pheromoneBound() {
        return lastPheromoneBound;
    }
}
