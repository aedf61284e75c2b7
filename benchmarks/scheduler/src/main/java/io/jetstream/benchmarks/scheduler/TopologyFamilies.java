package io.jetstream.benchmarks.scheduler;

import java.util.ArrayList;
import java.util.LinkedHashMap;
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
 * {@code p}, and its groupings are one of three kinds: shuffle/fields (structure only), local-or-shuffle
 * (where locality pays), or fields grouping with skewed keys (pair traffic only measurement reveals).
 */
final class TopologyFamilies {
    private TopologyFamilies() {}

    /** How the streams between components are grouped. */
    enum Grouping {
        /** Shuffle and fields groupings: uniform pair traffic. */
        SHUFFLE,
        /** Local-or-shuffle everywhere it is legal: a local target, when there is one, takes the stream. */
        LOCAL_OR_SHUFFLE,
        /** Fields groupings whose keys make each source task talk mostly to a few target tasks. */
        SKEWED
    }

    /** One generated topology: the topology and, per stream, the relative rate (selectivity) of its source. */
    record Generated(String family, StormTopology topology, Map<String, Double> selectivity) {}

    static final List<String> NAMES = List.of("linear", "diamond", "fan-out-in", "wordcount", "sol", "random-dag");

    static Generated generate(String family, int p, Grouping grouping, long seed) {
        Map<String, Double> selectivity = new LinkedHashMap<>();
        TopologyBuilder b = new TopologyBuilder();
        switch (family) {
            case "linear" -> {
                b.setSpout("source", new NoopSpout(), p);
                String prev = "source";
                for (int i = 1; i <= 4; i++) {
                    subscribe(b.setBolt("stage" + i, new NoopBolt(), p), prev, grouping);
                    prev = "stage" + i;
                }
            }
            case "diamond" -> {
                b.setSpout("source", new NoopSpout(), p);
                subscribe(b.setBolt("left", new NoopBolt(), p), "source", grouping);
                subscribe(b.setBolt("right", new NoopBolt(), p), "source", grouping);
                BoltDeclarer join = b.setBolt("join", new NoopBolt(), p);
                subscribe(join, "left", grouping);
                subscribe(join, "right", grouping);
                subscribe(b.setBolt("sink", new NoopBolt(), p), "join", grouping);
            }
            case "fan-out-in" -> {
                b.setSpout("source", new NoopSpout(), p);
                BoltDeclarer merge = b.setBolt("merge", new NoopBolt(), p);
                for (int i = 1; i <= 4; i++) {
                    subscribe(b.setBolt("branch" + i, new NoopBolt(), Math.max(1, p / 2)), "source", grouping);
                    subscribe(merge, "branch" + i, grouping);
                }
            }
            case "wordcount" -> {
                b.setSpout("sentences", new NoopSpout(), p);
                subscribe(b.setBolt("split", new NoopBolt(), 2 * p), "sentences", grouping);
                selectivity.put("split", 5.0); // five words a sentence
                BoltDeclarer count = b.setBolt("count", new NoopBolt(), 2 * p);
                if (grouping == Grouping.LOCAL_OR_SHUFFLE) {
                    count.fieldsGrouping("split", new Fields("k")); // counting needs the key: no locality here
                } else {
                    subscribe(count, "split", grouping == Grouping.SHUFFLE ? Grouping.SHUFFLE : grouping, true);
                }
                subscribe(b.setBolt("report", new NoopBolt(), p), "count", grouping);
                selectivity.put("count", 0.2);
            }
            case "sol" -> {
                // SOL (one spout, five bolts), as in TurboStream §VI-B.
                b.setSpout("spout", new NoopSpout(), p);
                String prev = "spout";
                for (int i = 1; i <= 5; i++) {
                    subscribe(b.setBolt("bolt" + i, new NoopBolt(), p), prev, grouping);
                    prev = "bolt" + i;
                }
            }
            case "random-dag" -> {
                Random random = new Random(seed);
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
                            subscribe(d, from, grouping);
                        }
                    }
                    // Skewed edge weights: selectivities from a heavy-tailed distribution (0.1x to 10x).
                    selectivity.put(name, Math.exp(random.nextGaussian() * 1.2));
                    names.add(name);
                }
            }
            default -> throw new IllegalArgumentException("unknown family " + family);
        }
        return new Generated(family, b.createTopology(), selectivity);
    }

    private static void subscribe(BoltDeclarer bolt, String source, Grouping grouping) {
        subscribe(bolt, source, grouping, false);
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
            case SKEWED -> bolt.fieldsGrouping(source, new Fields("k"));
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
