package io.jetstream.storm.cluster.topology;

import java.util.Map;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseRichBolt;
import org.apache.storm.tuple.Tuple;

/**
 * Acks each tuple; reports to {@code sink-<task>} how many it received and how many came from a
 * task in another worker.
 *
 * <p>Storm calls a bolt from its executor thread only.
 */
public final class SinkBolt extends BaseRichBolt {
    private static final long serialVersionUID = 1L;
    private transient OutputCollector collector;
    private transient CrossingCount crossing;

    @Override
    public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
        this.collector = collector;
        this.crossing = new CrossingCount(conf, context, "sink");
    }

    @Override
    public void execute(Tuple input) {
        crossing.count(input);
        collector.ack(input);
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {}
}
