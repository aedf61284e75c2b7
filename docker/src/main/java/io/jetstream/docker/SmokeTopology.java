package io.jetstream.docker;

import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.testing.TestWordCounter;
import org.apache.storm.testing.TestWordSpout;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.tuple.Fields;

/**
 * The topology the Docker Storm cluster runs: words from 2 spouts, counted by 2 fields-grouped
 * bolts in 2 workers, so tuples cross workers through the transport in {@code storm.yaml}.
 * Submitted with {@code storm jar jetstream-docker.jar io.jetstream.docker.SmokeTopology NAME}.
 */
public final class SmokeTopology {
    private SmokeTopology() {}

    public static void main(String[] args) throws Exception {
        String name = args.length > 0 ? args[0] : "jetstream-smoke";
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("words", new TestWordSpout(), 2);
        builder.setBolt("count", new TestWordCounter(), 2).fieldsGrouping("words", new Fields("word"));
        Config conf = new Config();
        conf.setNumWorkers(2);
        conf.setNumAckers(1);
        StormSubmitter.submitTopology(name, conf, builder.createTopology());
    }
}
