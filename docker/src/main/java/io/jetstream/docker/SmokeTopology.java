package io.jetstream.docker;

import java.util.concurrent.Callable;
import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.testing.TestWordCounter;
import org.apache.storm.testing.TestWordSpout;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.tuple.Fields;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * The topology the Docker Storm cluster runs: words from 2 spouts, counted by 2 fields-grouped
 * bolts in 2 workers, so tuples cross workers through the transport in {@code storm.yaml}.
 * Submitted with {@code storm jar jetstream-docker.jar io.jetstream.docker.SmokeTopology NAME}.
 */
@Command(name = "SmokeTopology", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Submits the word-count smoke topology to the Storm cluster of storm.yaml.")
public final class SmokeTopology implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", paramLabel = "NAME", description = "The topology's name.")
    private String name = "jetstream-smoke";

    private SmokeTopology() {}

    public static void main(String[] args) {
        int exit = new CommandLine(new SmokeTopology()).execute(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }

    @Override
    public Integer call() throws Exception {
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("words", new TestWordSpout(), 2);
        builder.setBolt("count", new TestWordCounter(), 2).fieldsGrouping("words", new Fields("word"));
        Config conf = new Config();
        conf.setNumWorkers(2);
        conf.setNumAckers(1);
        StormSubmitter.submitTopology(name, conf, builder.createTopology());
        return 0;
    }
}
