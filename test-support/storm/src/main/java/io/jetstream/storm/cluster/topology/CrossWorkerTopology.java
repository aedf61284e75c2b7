package io.jetstream.storm.cluster.topology;

import java.util.Map;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.topology.TopologyBuilder;

/**
 * A reliable three-stage topology in which every tuple crosses workers twice: {@code source}
 * ({@link SequenceSpout}, acking, replaying what fails) → {@code relay} ({@link RelayBolt}, anchored)
 * → {@code sink} ({@link SinkBolt}), both edges grouped by {@link RemoteTaskGrouping}. Acks travel to
 * the ackers and back to the spouts through the transport too.
 *
 * <p>Its tasks run in worker JVMs and report to files in the directory named by {@link #RESULTS_DIR},
 * read with {@code io.jetstream.harness.report.TopologyResults}; its jar must hold that package too
 * ({@link #PACKAGES}). The spout's rate is fixed by {@link #RATE_PER_SPOUT}, or driven by a
 * control file ({@link #CONTROL_FILE}, see {@code RunControl}) that a benchmark rewrites to move the
 * spouts through phases.
 * The configuration keys avoid the {@code jetstream.} prefix, which JetStream's context validates.
 */
public final class CrossWorkerTopology {
    /** Topology configuration: the directory the tasks report to (must exist). */
    public static final String RESULTS_DIR = "crossworker.results.dir";
    /** Topology configuration: tuples per second each spout task emits; 0 = as fast as max.spout.pending allows. */
    public static final String RATE_PER_SPOUT = "crossworker.rate.per.spout";
    /** Topology configuration: bytes of payload in each tuple. */
    public static final String PAYLOAD_BYTES = "crossworker.payload.bytes";
    /** Topology configuration, optional: a file holding "phase rate", read by the spouts every 100 ms. */
    public static final String CONTROL_FILE = "crossworker.control.file";

    /** One class of each package the topology's jar must hold: the topology's and the harness's report package. */
    public static final Class<?>[] PACKAGES = {CrossWorkerTopology.class, io.jetstream.harness.report.TaskReport.class};

    private CrossWorkerTopology() {}

    /** The topology with {@code parallelism} tasks of each component. */
    public static StormTopology build(int parallelism) {
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("source", new SequenceSpout(), parallelism);
        builder.setBolt("relay", new RelayBolt(), parallelism).customGrouping("source", new RemoteTaskGrouping());
        builder.setBolt("sink", new SinkBolt(), parallelism).customGrouping("relay", new RemoteTaskGrouping());
        return builder.createTopology();
    }

    static long longOf(Map<String, Object> conf, String key, long otherwise) {
        Object value = conf.get(key);
        return value == null ? otherwise : ((Number) value).longValue();
    }
}
