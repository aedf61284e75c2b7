package io.jetstream.storm.transport;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseRichBolt;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;

/**
 * A reliable topology for transport ITCases: one spout emits ids 0..n-1 (anchored, replayed on
 * failure), a fields-grouped bolt of parallelism 2 records which worker saw each id. LocalCluster
 * runs workers in this JVM, so the record is static.
 */
final class SequenceTopology {
    static final Map<Long, Integer> WORKER_PORT_BY_ID = new ConcurrentHashMap<>();
    static final AtomicInteger SPOUT_WORKER_PORT = new AtomicInteger(-1);
    static volatile CountDownLatch allSeen = new CountDownLatch(0);

    private SequenceTopology() {}

    static StormTopology build(long count) {
        WORKER_PORT_BY_ID.clear();
        SPOUT_WORKER_PORT.set(-1);
        allSeen = new CountDownLatch((int) count);
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("sequence", new SequenceSpout(count), 1);
        builder.setBolt("record", new RecordingBolt(), 2).fieldsGrouping("sequence", new Fields("id"));
        return builder.createTopology();
    }

    /** Tuples processed by a bolt in another worker than the spout's: they crossed the transport. */
    static long crossWorkerTuples() {
        int spoutPort = SPOUT_WORKER_PORT.get();
        return WORKER_PORT_BY_ID.values().stream().filter(port -> port != spoutPort).count();
    }

    static final class SequenceSpout extends BaseRichSpout {
        private static final long serialVersionUID = 1L;
        private final long count;
        private transient SpoutOutputCollector collector;
        private transient long next;
        private transient Set<Long> failed;

        SequenceSpout(long count) {
            this.count = count;
        }

        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
            this.collector = collector;
            this.failed = ConcurrentHashMap.newKeySet();
            SPOUT_WORKER_PORT.set(context.getThisWorkerPort());
        }

        @Override
        public void nextTuple() {
            if (!failed.isEmpty()) {
                Long id = failed.iterator().next();
                failed.remove(id);
                collector.emit(new Values(id), id);
            } else if (next < count) {
                collector.emit(new Values(next), next);
                next++;
            }
        }

        @Override
        public void fail(Object msgId) {
            failed.add((Long) msgId);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("id"));
        }
    }

    static final class RecordingBolt extends BaseRichBolt {
        private static final long serialVersionUID = 1L;
        private transient OutputCollector collector;
        private transient int workerPort;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
            this.workerPort = context.getThisWorkerPort();
        }

        @Override
        public void execute(Tuple input) {
            long id = input.getLongByField("id");
            if (WORKER_PORT_BY_ID.putIfAbsent(id, workerPort) == null) {
                allSeen.countDown();
            }
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {}
    }
}
