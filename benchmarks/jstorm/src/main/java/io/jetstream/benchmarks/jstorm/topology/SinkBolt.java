package io.jetstream.benchmarks.jstorm.topology;

import backtype.storm.task.OutputCollector;
import backtype.storm.task.TopologyContext;
import backtype.storm.topology.OutputFieldsDeclarer;
import backtype.storm.topology.base.BaseRichBolt;
import backtype.storm.tuple.Tuple;
import java.util.Map;

/** Acks each tuple; counts where its input came from. */
public final class SinkBolt extends BaseRichBolt {
    private static final long serialVersionUID = 1L;
    private transient OutputCollector collector;
    private transient CrossingCount crossing;

    @Override
    @SuppressWarnings("rawtypes")
    public void prepare(Map conf, TopologyContext context, OutputCollector collector) {
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
