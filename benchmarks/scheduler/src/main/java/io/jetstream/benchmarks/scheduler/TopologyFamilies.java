package io.jetstream.benchmarks.scheduler;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.topology.BasicOutputCollector;
import org.apache.storm.topology.BoltDeclarer;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseBasicBolt;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;

/**
 * The generated topology families of the evaluation. Each is a real {@link StormTopology} (built with
 * Storm's {@link TopologyBuilder}; the spouts and bolts are never run), sized by a parallelism unit
 * {@code p}, with one of two kinds of groupings: shuffle and fields groupings (where a component keys
 * its input: a join, a merge, a count), or local-or-shuffle wherever locality is legal. The rates the
 * topology runs at are not part of it ({@link RateModel}).
 */
final class TopologyFamilies {
    private TopologyFamilies() {}

    /** How the streams between components are grouped. */
    enum Grouping {
        /** Shuffle groupings, and fields groupings into the components that key their input. */
        SHUFFLE,
        /** Local-or-shuffle everywhere it is legal (WordCount's count keeps its fields grouping). */
        LOCAL_OR_SHUFFLE
    }

    /** One generated topology. */
    record Generated(String family, StormTopology topology) {}

    static final List<String> NAMES = List.of("linear", "diamond", "fan-out-in", "wordcount", "sol", "random-dag");

    static Generated generate(String family, int p, Grouping grouping, long seed) {
        TopologyBuilder b = new TopologyBuilder();
        switch (family) {
            case "linear" -> {
                b.setSpout("source", new NoopSpout(), p);
                String prev = "source";
                for (int i = 1; i <= 4; i++) {
                    // The third stage aggregates by key.
                    subscribe(b.setBolt("stage" + i, new NoopBolt(), p), prev, grouping, i == 3);
                    prev = "stage" + i;
                }
            }
            case "diamond" -> {
                b.setSpout("source", new NoopSpout(), p);
                subscribe(b.setBolt("left", new NoopBolt(), p), "source", grouping, false);
                subscribe(b.setBolt("right", new NoopBolt(), p), "source", grouping, false);
                BoltDeclarer join = b.setBolt("join", new NoopBolt(), p);
                subscribe(join, "left", grouping, true);
                subscribe(join, "right", grouping, true);
                subscribe(b.setBolt("sink", new NoopBolt(), p), "join", grouping, false);
            }
            case "fan-out-in" -> {
                b.setSpout("source", new NoopSpout(), p);
                BoltDeclarer merge = b.setBolt("merge", new NoopBolt(), p);
                for (int i = 1; i <= 4; i++) {
                    subscribe(b.setBolt("branch" + i, new NoopBolt(), Math.max(1, p / 2)), "source", grouping, false);
                    subscribe(merge, "branch" + i, grouping, true);
                }
            }
            case "wordcount" -> {
                b.setSpout("sentences", new NoopSpout(), p);
                subscribe(b.setBolt("split", new NoopBolt(), 2 * p), "sentences", grouping, false);
                BoltDeclarer count = b.setBolt("count", new NoopBolt(), 2 * p);
                count.fieldsGrouping("split", new Fields("k")); // counting needs the key, whatever the kind
                subscribe(b.setBolt("report", new NoopBolt(), p), "count", grouping, false);
            }
            case "sol" -> {
                // SOL (one spout, five bolts, shuffle throughout), as in TurboStream §VI-B.
                b.setSpout("spout", new NoopSpout(), p);
                String prev = "spout";
                for (int i = 1; i <= 5; i++) {
                    subscribe(b.setBolt("bolt" + i, new NoopBolt(), p), prev, grouping, false);
                    prev = "bolt" + i;
                }
            }
            case "random-dag" -> {
                Random random = new Random(seed);
                // Which streams are keyed: drawn apart, so that the shape is the one earlier runs had.
                Random keyed = new Random(~seed);
                int components = 6 + random.nextInt(5);
                List<String> names = new ArrayList<>();
                b.setSpout("c0", new NoopSpout(), p);
                names.add("c0");
                for (int i = 1; i < components; i++) {
                    String name = "c" + i;
                    int parallelism = Math.max(1, (int) Math.round(p * (0.5 + random.nextDouble())));
                    BoltDeclarer d = b.setBolt(name, new NoopBolt(), parallelism);
                    int inputs = 1 + (random.nextDouble() < 0.3 ? 1 : 0);
                    List<String> chosen = new ArrayList<>();
                    for (int k = 0; k < inputs; k++) {
                        String from = names.get(random.nextInt(names.size()));
                        if (!chosen.contains(from)) {
                            chosen.add(from);
                            subscribe(d, from, grouping, keyed.nextDouble() < 0.4);
                        }
                    }
                    random.nextGaussian(); // the selectivity earlier runs drew here: keeps the shapes they had
                    names.add(name);
                }
            }
            default -> throw new IllegalArgumentException("unknown family " + family);
        }
        return new Generated(family, b.createTopology());
    }

    private static void subscribe(BoltDeclarer bolt, String source, Grouping grouping, boolean keyed) {
        switch (grouping) {
            case SHUFFLE -> {
                if (keyed) {
                    bolt.fieldsGrouping(source, new Fields("k"));
                } else {
                    bolt.shuffleGrouping(source);
                }
            }
            case LOCAL_OR_SHUFFLE -> bolt.localOrShuffleGrouping(source);
            default -> throw new IllegalStateException();
        }
    }

    /** Never run: only its class is serialized into the topology. */
    static final class NoopSpout extends BaseRichSpout {
        @Override
        public void open(Map<String, Object> conf, org.apache.storm.task.TopologyContext context,
                         org.apache.storm.spout.SpoutOutputCollector collector) {}

        @Override
        public void nextTuple() {}

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("k"));
        }
    }

    /** Never run: only its class is serialized into the topology. */
    static final class NoopBolt extends BaseBasicBolt {
        @Override
        public void execute(Tuple input, BasicOutputCollector collector) {}

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("k"));
        }
    }
}
