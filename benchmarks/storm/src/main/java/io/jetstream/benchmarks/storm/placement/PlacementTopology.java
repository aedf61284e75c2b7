package io.jetstream.benchmarks.storm.placement;

import io.jetstream.storm.cluster.topology.CrossWorkerTopology;
import io.jetstream.storm.cluster.topology.SequenceSpout;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.topology.BoltDeclarer;
import org.apache.storm.topology.TopologyBuilder;

/**
 * A reliable three-stage topology whose placement decides how many tuples cross workers and hosts:
 * {@code source} ({@link SequenceSpout}: acking, replaying what fails, measuring complete latency per
 * phase, driven by the same control file as {@link CrossWorkerTopology}) → {@code relay}
 * ({@link CountingBolt}, anchored) → {@code sink} ({@link CountingBolt}), both edges grouped by
 * local-or-shuffle (Storm keeps a tuple in its worker when the worker has a target task, and
 * shuffles over all target tasks otherwise) or by shuffle. With parallelisms that do not match the
 * worker count, some workers lack a relay or a sink, and where the scheduler puts the tasks decides
 * what crosses.
 *
 * <p>Configured with {@link CrossWorkerTopology}'s keys (results directory, control file, payload);
 * the jar must hold this package, {@link CrossWorkerTopology}'s and the harness's report package
 * ({@link #PACKAGES}).
 */
public final class PlacementTopology {
    /** One class of each package the topology's jar must hold. */
    public static final Class<?>[] PACKAGES = {PlacementTopology.class, CrossWorkerTopology.class,
            io.jetstream.harness.report.TaskReport.class};

    /** How both edges are grouped. */
    public enum Grouping {
        LOCAL_OR_SHUFFLE, SHUFFLE;

        public static Grouping of(String name) {
            return valueOf(name.toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
        }
    }

    private PlacementTopology() {}

    public static StormTopology build(int sources, int relays, int sinks, Grouping grouping) {
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("source", new SequenceSpout(), sources);
        group(builder.setBolt("relay", new CountingBolt(true), relays), "source", grouping);
        group(builder.setBolt("sink", new CountingBolt(false), sinks), "relay", grouping);
        return builder.createTopology();
    }

    private static void group(BoltDeclarer bolt, String from, Grouping grouping) {
        if (grouping == Grouping.LOCAL_OR_SHUFFLE) {
            bolt.localOrShuffleGrouping(from);
        } else {
            bolt.shuffleGrouping(from);
        }
    }
}
