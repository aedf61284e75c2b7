package io.jetstream.scheduler.placement;

import java.util.SplittableRandom;
import java.util.function.LongSupplier;

/**
 * A k-way local search over a finished placement: moves a task to another worker, or exchanges the
 * workers of two tasks, whenever that lowers a {@link RefinementObjective}. A move never empties a
 * worker (the topology keeps every worker it asked for); the objective keeps node loads within their
 * bound.
 *
 * <p>Candidates are drawn from a seeded generator, so the same inputs give the same placement. A
 * candidate starts from a random task {@code a}; half the time it targets the worker of one of
 * {@code a}'s graph neighbours (to move {@code a} next to a partner), half the time any worker; then
 * one time in three {@code a} moves there, otherwise it exchanges with a random task of that worker.
 * The search stops after {@code attemptsPerTask × tasks} candidates, after 20 × tasks candidates in a
 * row without improvement, or when the time budget runs out, whichever comes first.
 *
 * <p>This is an addition to TurboStream's Algorithm 2, whose recursive bisection only ever compares
 * two sides at a time: a final pass over all node pairs recovers what the splits could not see, and it
 * is how objectives that are not a sum over task pairs (Storm's local-or-shuffle) are optimised.
 *
 * <p>Stateless apart from its settings; thread-safe.
 */
public final class KWayRefinement {
    private static final int MOVE_ONE_IN = 3;

    private final int attemptsPerTask;
    private final long timeBudgetNanos;
    private final LongSupplier nanoClock;

    /**
     * @param attemptsPerTask candidates per task (0 turns the refinement off)
     * @param timeBudgetNanos the longest a refinement may run
     * @param nanoClock monotonic time in nanoseconds
     */
    public KWayRefinement(int attemptsPerTask, long timeBudgetNanos, LongSupplier nanoClock) {
        if (attemptsPerTask < 0 || timeBudgetNanos < 0) {
            throw new IllegalArgumentException("attemptsPerTask and timeBudgetNanos must be >= 0: " + attemptsPerTask
                    + ", " + timeBudgetNanos);
        }
        this.attemptsPerTask = attemptsPerTask;
        this.timeBudgetNanos = timeBudgetNanos;
        this.nanoClock = nanoClock;
    }

    /**
     * The CPU time of the calling thread in nanoseconds (wall time where the JVM cannot measure it): with
     * a budget in it, other processes on the machine do not change the placement; the wall time then grows
     * with the contention, and the candidate counts still bound it.
     */
    public static LongSupplier threadCpuClock() {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        if (threads.isCurrentThreadCpuTimeSupported()) {
            if (!threads.isThreadCpuTimeEnabled()) {
                threads.setThreadCpuTimeEnabled(true);
            }
            return threads::getCurrentThreadCpuTime;
        }
        return System::nanoTime;
    }

    /** What a refinement did: candidates tried, changes kept, objective value before and after. */
    public record Outcome(long attempts, long changes, double valueBefore, double valueAfter) {}

    /**
     * Improves {@code workerOf} in place.
     *
     * @param workers number of workers (every entry of {@code workerOf} is below it)
     * @param neighbours whose edges guide the candidate choice (usually the graph the placement was made from)
     * @param seed seed of the candidate generator
     */
    public Outcome refine(RefinementObjective objective, int[] workerOf, int workers, TaskGraph neighbours,
                          long seed) {
        return refine(objective, workerOf, workers, neighbours, seed, 1);
    }

    /**
     * {@link #refine(RefinementObjective, int[], int, TaskGraph, long)} within {@code budgetShare} of the
     * time budget (a placement that refines several times shares the budget between the passes).
     */
    public Outcome refine(RefinementObjective objective, int[] workerOf, int workers, TaskGraph neighbours,
                          long seed, double budgetShare) {
        if (!(budgetShare >= 0 && budgetShare <= 1)) {
            throw new IllegalArgumentException("budgetShare must be in [0, 1]: " + budgetShare);
        }
        int n = workerOf.length;
        objective.reset(workerOf);
        double before = objective.value();
        if (n < 2 || workers < 2 || attemptsPerTask == 0) {
            return new Outcome(0, 0, before, before);
        }
        WorkerMembers members = new WorkerMembers(workerOf, workers);
        SplittableRandom random = new SplittableRandom(seed);
        long maxAttempts = (long) attemptsPerTask * n;
        long patience = 20L * n;
        long deadline = nanoClock.getAsLong() + (long) (timeBudgetNanos * budgetShare);
        double value = before;
        long attempts = 0;
        long changes = 0;
        long sinceImprovement = 0;
        while (attempts < maxAttempts && sinceImprovement < patience) {
            if ((attempts & 255) == 0 && nanoClock.getAsLong() - deadline > 0) {
                break;
            }
            attempts++;
            sinceImprovement++;
            int a = random.nextInt(n);
            int degree = neighbours.endEdge(a) - neighbours.firstEdge(a);
            int target = degree > 0 && random.nextBoolean()
                    ? workerOf[neighbours.edgeTarget(neighbours.firstEdge(a) + random.nextInt(degree))]
                    : random.nextInt(workers);
            int from = workerOf[a];
            if (target == from) {
                continue;
            }
            boolean move = random.nextInt(MOVE_ONE_IN) == 0 || members.size(target) == 0;
            if (move) {
                if (members.size(from) < 2) {
                    continue;
                }
                double candidate = objective.valueIfMoved(a, target);
                if (improves(candidate, value)) {
                    objective.move(a, target);
                    members.move(a, from, target);
                    workerOf[a] = target;
                    value = candidate;
                    changes++;
                    sinceImprovement = 0;
                }
            } else {
                int b = members.random(target, random);
                double candidate = objective.valueIfSwapped(a, b);
                if (improves(candidate, value)) {
                    objective.swap(a, b);
                    members.move(a, from, target);
                    members.move(b, target, from);
                    workerOf[a] = target;
                    workerOf[b] = from;
                    value = candidate;
                    changes++;
                    sinceImprovement = 0;
                }
            }
        }
        return new Outcome(attempts, changes, before, objective.value());
    }

    private static boolean improves(double candidate, double value) {
        return candidate < value - 1e-9 * Math.max(1, Math.abs(value));
    }

    /** The tasks of every worker, for drawing one at random; O(1) per change. */
    private static final class WorkerMembers {
        private final int[][] tasks;
        private final int[] size;
        private final int[] position;

        WorkerMembers(int[] workerOf, int workers) {
            size = new int[workers];
            for (int w : workerOf) {
                size[w]++;
            }
            tasks = new int[workers][];
            for (int w = 0; w < workers; w++) {
                tasks[w] = new int[Math.max(4, size[w] * 2)];
                size[w] = 0;
            }
            position = new int[workerOf.length];
            for (int t = 0; t < workerOf.length; t++) {
                add(t, workerOf[t]);
            }
        }

        int size(int worker) {
            return size[worker];
        }

        int random(int worker, SplittableRandom random) {
            return tasks[worker][random.nextInt(size[worker])];
        }

        void move(int task, int from, int to) {
            int last = tasks[from][--size[from]];
            tasks[from][position[task]] = last;
            position[last] = position[task];
            add(task, to);
        }

        private void add(int task, int worker) {
            if (size[worker] == tasks[worker].length) {
                tasks[worker] = java.util.Arrays.copyOf(tasks[worker], size[worker] * 2);
            }
            position[task] = size[worker];
            tasks[worker][size[worker]++] = task;
        }
    }
}
