package io.jetstream.scheduler.placement;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Rate models a placement from structure is tested against, since the real rates are unknown until
 * measured: in each scenario every bolt has a selectivity (tuples out per tuple in), every component a
 * cost per tuple, and every stream a multiplier (the share of its source's output it carries), each
 * drawn log-normally around 1; the component rates follow through the topology in dependency order.
 * A scenario gives every component's load as a factor of its load under the structure's own model
 * (selectivity 1, equal costs), so that the load of a component's tasks on a node scales by it.
 *
 * <p>The spread is the standard deviation of the natural logarithm of a selectivity; costs and
 * multipliers vary half as much. Draws are clipped at e^±3σ. The scenarios are a function of the
 * structure, the spread and the seed alone: the same inputs give the same placement.
 *
 * <p>Immutable; thread-safe.
 */
public final class RateScenarios {
    /** Scenarios a placement from structure is tested against. */
    public static final int COUNT = 32;

    private final double[][] factor;

    private RateScenarios(double[][] factor) {
        this.factor = factor;
    }

    /**
     * @param components the components in the order a placement numbers them ({@link ComponentSpread});
     *     one the structure does not know (an engine's system component) keeps its load in every scenario
     * @param tasksOf the tasks of every component
     * @param spread σ of the logarithm of a selectivity; 0 gives the structure's own model in every scenario
     */
    public static RateScenarios draw(TopologyStructure structure, List<String> components, Map<String, int[]> tasksOf,
                                     double spread, int count, long seed) {
        if (!(spread >= 0) || Double.isInfinite(spread) || count < 1) {
            throw new IllegalArgumentException("spread must be finite and >= 0, count >= 1: " + spread + ", " + count);
        }
        Map<String, Double> structural = new HashMap<>();
        structure.componentRates(tasksOf, c -> 1.0, (a, b) -> 1.0, structural);
        SplittableRandom random = new SplittableRandom(seed);
        double[][] factor = new double[count][components.size()];
        for (int k = 0; k < count; k++) {
            Map<String, Double> selectivity = new HashMap<>();
            Map<String, Double> cost = new HashMap<>();
            Map<String, Double> multiplier = new HashMap<>();
            for (String c : components) {
                selectivity.put(c, logNormal(random, spread));
                cost.put(c, logNormal(random, spread / 2));
            }
            for (TopologyStructure.Stream s : structure.streams()) {
                multiplier.put(s.source() + "->" + s.target(), logNormal(random, spread / 2));
            }
            Map<String, Double> received = new HashMap<>();
            structure.componentRates(tasksOf, c -> selectivity.getOrDefault(c, 1.0),
                    (a, b) -> multiplier.getOrDefault(a + "->" + b, 1.0), received);
            for (int c = 0; c < components.size(); c++) {
                String name = components.get(c);
                double base = structural.getOrDefault(name, 0.0);
                factor[k][c] = base > 0 ? received.getOrDefault(name, 0.0) * cost.getOrDefault(name, 1.0) / base : 1;
            }
        }
        return new RateScenarios(factor);
    }

    /** Scenarios given outright: {@code factor[scenario][component]}. */
    public static RateScenarios of(double[][] factor) {
        double[][] copy = new double[factor.length][];
        for (int k = 0; k < factor.length; k++) {
            copy[k] = factor[k].clone();
        }
        return new RateScenarios(copy);
    }

    /** Every component at the structure's own load in one scenario: a placement is only held to its balance bound. */
    public static RateScenarios structural(int components) {
        double[][] factor = new double[1][components];
        java.util.Arrays.fill(factor[0], 1);
        return new RateScenarios(factor);
    }

    private static double logNormal(SplittableRandom random, double sigma) {
        double gaussian = Math.max(-3, Math.min(3, nextGaussian(random)));
        return Math.exp(sigma * gaussian);
    }

    /** A standard normal draw (Box-Muller), so that the draws depend on the seed alone. */
    private static double nextGaussian(SplittableRandom random) {
        double u = 1 - random.nextDouble();
        double v = random.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }

    public int count() {
        return factor.length;
    }

    public int components() {
        return factor.length == 0 ? 0 : factor[0].length;
    }

    /** Load of {@code component} in {@code scenario} relative to its load under the structure's model. */
    public double factor(int scenario, int component) {
        return factor[scenario][component];
    }
}
