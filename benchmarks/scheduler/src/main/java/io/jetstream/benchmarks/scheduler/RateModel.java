package io.jetstream.benchmarks.scheduler;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.storm.generated.Bolt;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.generated.StormTopology;

/**
 * The rates a topology really runs at, which its structure does not show: every bolt's selectivity
 * (tuples out per tuple in: a filter drops most, a join or a split emits more than it reads), every
 * component's CPU cost per tuple, a multiplier per stream (a component that emits several streams
 * sends each at its own rate), and the keys of every fields grouping (hot keys send most of a stream
 * to a few target tasks, the same ones whatever the sender). {@link TrueTraffic} scores placements with
 * it; no scheduler sees it from the topology, and JetStream's online mode sees it only as recorded
 * traffic.
 *
 * <p>{@link #UNIFORM} is the structure's own model (selectivity 1, equal costs, fields spread evenly);
 * {@link #random} draws one from the distributions below, each a function of the seed alone.
 *
 * <p>Immutable; thread-safe.
 */
final class RateModel {
    /** Spread (σ of the logarithm) of a bolt's selectivity, clipped to [{@value #MIN_SELECTIVITY}, {@value #MAX_SELECTIVITY}]. */
    static final double SELECTIVITY_SIGMA = 1.0;
    static final double MIN_SELECTIVITY = 0.05;
    static final double MAX_SELECTIVITY = 20;
    /** Spread of a component's cost per tuple and of a stream's multiplier, clipped to [1/4, 4]. */
    static final double COST_SIGMA = 0.5;
    static final double MULTIPLIER_SIGMA = 0.5;
    /** Zipf exponents of a fields grouping's target tasks, drawn uniformly from this range. */
    static final double MIN_ZIPF = 0.5;
    static final double MAX_ZIPF = 1.2;

    static final RateModel UNIFORM = new RateModel(Map.of(), Map.of(), Map.of(), Map.of());

    private final Map<String, Double> selectivity;
    private final Map<String, Double> cost;
    private final Map<String, Double> multiplier;
    /** Per fields-grouped stream: the share of each target task (by its index in the target component). */
    private final Map<String, double[]> keyShares;

    private RateModel(Map<String, Double> selectivity, Map<String, Double> cost, Map<String, Double> multiplier,
                      Map<String, double[]> keyShares) {
        this.selectivity = selectivity;
        this.cost = cost;
        this.multiplier = multiplier;
        this.keyShares = keyShares;
    }

    /**
     * A random model of {@code topology}'s rates: log-normal selectivities (σ = {@value #SELECTIVITY_SIGMA},
     * 0.05-20×), costs and stream multipliers (σ = 0.5, 1/4-4×); the tasks of a fields grouping ranked in
     * an order of the stream's own and weighted 1/rank^z, z uniform in [{@value #MIN_ZIPF}, {@value #MAX_ZIPF}].
     *
     * @param parallelism tasks of every component
     */
    static RateModel random(StormTopology topology, Map<String, Integer> parallelism, long seed) {
        Random random = new Random(seed);
        Map<String, Double> selectivity = new HashMap<>();
        Map<String, Double> cost = new HashMap<>();
        Map<String, Double> multiplier = new HashMap<>();
        Map<String, double[]> keyShares = new HashMap<>();
        List<String> components = new ArrayList<>(topology.get_spouts().keySet());
        Collections.sort(components);
        List<String> bolts = new ArrayList<>(topology.get_bolts().keySet());
        Collections.sort(bolts);
        components.addAll(bolts);
        for (String c : components) {
            cost.put(c, logNormal(random, COST_SIGMA, 0.25, 4));
        }
        for (String bolt : bolts) {
            selectivity.put(bolt, logNormal(random, SELECTIVITY_SIGMA, MIN_SELECTIVITY, MAX_SELECTIVITY));
            Bolt b = topology.get_bolts().get(bolt);
            List<GlobalStreamId> inputs = new ArrayList<>(b.get_common().get_inputs().keySet());
            inputs.sort((x, y) -> x.get_componentId().compareTo(y.get_componentId()));
            for (GlobalStreamId in : inputs) {
                String stream = key(in.get_componentId(), bolt);
                multiplier.put(stream, logNormal(random, MULTIPLIER_SIGMA, 0.25, 4));
                Grouping g = b.get_common().get_inputs().get(in);
                if (g.is_set_fields() && !g.get_fields().isEmpty()) {
                    keyShares.put(stream, zipf(random, parallelism.get(bolt)));
                }
            }
        }
        return new RateModel(selectivity, cost, multiplier, keyShares);
    }

    private static double logNormal(Random random, double sigma, double min, double max) {
        return Math.max(min, Math.min(max, Math.exp(sigma * random.nextGaussian())));
    }

    private static double[] zipf(Random random, int targets) {
        double z = MIN_ZIPF + (MAX_ZIPF - MIN_ZIPF) * random.nextDouble();
        List<Integer> order = new ArrayList<>();
        for (int j = 0; j < targets; j++) {
            order.add(j);
        }
        Collections.shuffle(order, random);
        double[] share = new double[targets];
        double sum = 0;
        for (int rank = 0; rank < targets; rank++) {
            share[order.get(rank)] = 1 / Math.pow(rank + 1, z);
            sum += share[order.get(rank)];
        }
        for (int j = 0; j < targets; j++) {
            share[j] /= sum;
        }
        return share;
    }

    private static String key(String source, String target) {
        return source + "->" + target;
    }

    /** Tuples a task of {@code bolt} emits per tuple it receives. */
    double selectivity(String bolt) {
        return selectivity.getOrDefault(bolt, 1.0);
    }

    /** CPU per tuple a task of {@code component} receives (emits, for a spout), relative to the others. */
    double cost(String component) {
        return cost.getOrDefault(component, 1.0);
    }

    /** How much of its output a task of {@code source} sends on its stream to {@code target}. */
    double multiplier(String source, String target) {
        return multiplier.getOrDefault(key(source, target), 1.0);
    }

    /**
     * The share of a fields-grouped stream each target task receives (the same whatever the sending
     * task: a key always hashes to one task), or null for an even spread.
     */
    double[] keyShares(String source, String target) {
        return keyShares.get(key(source, target));
    }
}
