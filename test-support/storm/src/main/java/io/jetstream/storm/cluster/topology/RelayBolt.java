package io.jetstream.storm.cluster.topology;

import io.jetstream.harness.report.PhaseRecorder;
import io.jetstream.harness.report.RunControl;
import java.nio.file.Path;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseRichBolt;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;
import org.apache.storm.utils.TupleUtils;

/**
 * Passes each tuple on, anchored, then acks it; reports to {@code relay-<task>} how many tuples it
 * received and how many came from a task in another worker. With a control file ({@link RunControl})
 * it also measures the first hop of every tuple from another worker (arrival − the emit time the
 * spout stamped into the payload, {@link SequenceSpout#emitNanos}) per phase, written as
 * {@code phase-<p>-relay-<task>} by a {@link PhaseRecorder} when the phase ends; a tick tuple every
 * second lets it see the end of the last phase, when no more tuples come.
 *
 * <p>Storm calls a bolt from its executor thread only.
 */
public final class RelayBolt extends BaseRichBolt {
    private static final long serialVersionUID = 1L;
    private transient OutputCollector collector;
    private transient CrossingCount crossing;
    private transient RunControl.Reader control;
    private transient PhaseRecorder hops;

    @Override
    public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
        this.collector = collector;
        this.crossing = new CrossingCount(conf, context, "relay");
        Object controlFile = conf.get(CrossWorkerTopology.CONTROL_FILE);
        if (controlFile != null) {
            this.control = new RunControl.Reader(Path.of((String) controlFile), 0);
            this.hops = new PhaseRecorder(Path.of((String) conf.get(CrossWorkerTopology.RESULTS_DIR)),
                    "relay-" + context.getThisTaskId());
            hops.start(0, 0, System.nanoTime());
        }
    }

    @Override
    public void execute(Tuple input) {
        long now = System.nanoTime();
        if (control != null) {
            RunControl.Instruction next = control.poll(now);
            if (next != null) {
                hops.finish(now);
                hops.start(next.phase(), next.rate(), now);
            }
        }
        if (TupleUtils.isTick(input)) {
            return;
        }
        boolean fromElsewhere = crossing.count(input);
        if (hops != null && fromElsewhere) {
            long emitted = SequenceSpout.emitNanos((byte[]) input.getValue(1));
            if (emitted >= 0) {
                hops.onSample(now - emitted);
            }
        }
        collector.emit(input, new Values(input.getValue(0), input.getValue(1)));
        collector.ack(input);
    }

    @Override
    public Map<String, Object> getComponentConfiguration() {
        // Ticks only matter with a control file, but the configuration is fixed before prepare: a tick a second is cheap.
        return Map.of(Config.TOPOLOGY_TICK_TUPLE_FREQ_SECS, 1);
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        declarer.declare(new Fields("sequence", "payload"));
    }
}
