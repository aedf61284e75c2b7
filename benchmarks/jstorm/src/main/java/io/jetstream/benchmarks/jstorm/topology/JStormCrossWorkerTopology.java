package io.jetstream.benchmarks.jstorm.topology;

import backtype.storm.generated.StormTopology;
import backtype.storm.topology.TopologyBuilder;
import java.util.Map;

/**
 * The cross-worker topology of the Storm benchmarks, written against JStorm 2.2.1's API: {@code source}
 * ({@link SequenceSpout}, acking, replaying what fails) → {@code relay} ({@link RelayBolt}, anchored)
 * → {@code sink} ({@link SinkBolt}), both edges grouped by {@link RemoteTaskGrouping} so that every
 * tuple crosses workers twice. The tasks report through the harness's files (same names and format
 * as the Storm topology's, read with {@code io.jetstream.harness.report.TopologyResults}); the jar
 * must hold that package too ({@link #PACKAGES}).
 */
public final class JStormCrossWorkerTopology {
    /** Topology configuration: the directory the tasks report to (must exist). */
    public static final String RESULTS_DIR = "crossworker.results.dir";
    /** Topology configuration: bytes of payload in each tuple. */
    public static final String PAYLOAD_BYTES = "crossworker.payload.bytes";
    /** Topology configuration: the run-control file ("phase rate") the spouts read every 100 ms. */
    public static final String CONTROL_FILE = "crossworker.control.file";
    /** One class of each package the topology's jar must hold. */
    public static final Class<?>[] PACKAGES = {JStormCrossWorkerTopology.class, io.jetstream.harness.report.TaskReport.class};

    private JStormCrossWorkerTopology() {}

    public static StormTopology build(int parallelism) {
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("source", new SequenceSpout(), parallelism);
        builder.setBolt("relay", new RelayBolt(), parallelism).customGrouping("source", new RemoteTaskGrouping());
        builder.setBolt("sink", new SinkBolt(), parallelism).customGrouping("relay", new RemoteTaskGrouping());
        return builder.createTopology();
    }

    @SuppressWarnings("rawtypes")
    static long longOf(Map conf, String key, long otherwise) {
        Object value = conf.get(key);
        return value == null ? otherwise : ((Number) value).longValue();
    }
}
