package io.jetstream.scheduler.placement;

/**
 * What {@link KWayRefinement} minimises over placements that differ by one task changing worker, or
 * two tasks exchanging theirs. Lower is better; an implementation folds its balance bound into the
 * value so that any placement over the bound costs more than any placement within it (see
 * {@link #OVER_BOUND_PENALTY}).
 *
 * <p>Implementations hold the current placement and scratch state: not thread-safe.
 */
public interface RefinementObjective {
    /**
     * Weight of one unit of balance violation (relative node load above the bound) per unit of total
     * traffic: large enough that no traffic saving pays for a violation.
     */
    double OVER_BOUND_PENALTY = 1e6;

    /** Starts from this placement (a worker per task); the array is copied. */
    void reset(int[] workerOf);

    /** Value of the current placement. */
    double value();

    /** Value of the current placement with the workers of {@code a} and {@code b} exchanged; changes nothing. */
    double valueIfSwapped(int a, int b);

    /** Exchanges the workers of {@code a} and {@code b} in the current placement. */
    void swap(int a, int b);

    /** Value of the current placement with {@code task} on {@code worker}; changes nothing. */
    double valueIfMoved(int task, int worker);

    /** Puts {@code task} on {@code worker} in the current placement. */
    void move(int task, int worker);
}
