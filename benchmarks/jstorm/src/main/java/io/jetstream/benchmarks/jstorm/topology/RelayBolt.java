package io.jetstream.benchmarks.jstorm.topology;

import backtype.storm.task.OutputCollector;
import backtype.storm.task.TopologyContext;
import backtype.storm.topology.OutputFieldsDeclarer;
import backtype.storm.topology.base.BaseRichBolt;
import backtype.storm.tuple.Fields;
import backtype.storm.tuple.Tuple;
import backtype.storm.tuple.Values;
import java.util.Map;

/** Passes each tuple on, anchored, then acks it; counts where its input came from. */
public final class RelayBolt extends BaseRichBolt {
    private static final long serialVersionUID = 1L;
    private transient OutputCollector collector;
    private transient CrossingCount crossing;

    @Override
    @SuppressWarnings("rawtypes")
    public void prepare(Map conf, TopologyContext context, OutputCollector collector) {
        this.collector = collector;
        this.crossing = new CrossingCount(conf, context, "relay");
    }

    @Override
    public void execute(Tuple input) {
        crossing.count(input);
        collector.emit(input, new Values(input.getValue(0), input.getValue(1)));
        collector.ack(input);
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        declarer.declare(new Fields("sequence", "payload"));
    }
}
