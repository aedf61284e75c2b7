package io.jetstream.benchmarks.storm.placement;

import io.jetstream.harness.report.TaskReport;
import io.jetstream.storm.cluster.topology.CrossWorkerTopology;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseRichBolt;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;

/**
 * Counts its input by source task and, as a relay, passes each tuple on anchored; acks it. Reports
 * every 200 ms to {@code <component>-<task>} in the results directory: {@code pid=… received=…
 * from<task>=<count> …}; the driver maps tasks to workers and hosts from Nimbus's assignment, so the
 * counts say how many tuples crossed workers and hosts independently of the transport and the
 * scheduler.
 *
 * <p>Storm calls a bolt from its executor thread only.
 */
public final class CountingBolt extends BaseRichBolt {
    private static final long serialVersionUID = 1L;
    private final boolean relay;
    private transient OutputCollector collector;
    private transient TaskReport report;
    private transient Map<Integer, long[]> bySource;
    private transient long received;
    private transient long pid;

    CountingBolt(boolean relay) {
        this.relay = relay;
    }

    @Override
    public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
        this.collector = collector;
        this.bySource = new TreeMap<>();
        this.pid = ProcessHandle.current().pid();
        this.report = new TaskReport(Path.of((String) conf.get(CrossWorkerTopology.RESULTS_DIR)),
                context.getThisComponentId() + "-" + context.getThisTaskId(), 200);
    }

    @Override
    public void execute(Tuple input) {
        received++;
        bySource.computeIfAbsent(input.getSourceTask(), t -> new long[1])[0]++;
        if (relay) {
            collector.emit(input, new Values(input.getValue(0), input.getValue(1)));
        }
        collector.ack(input);
        report.maybeWrite(received == 1, this::line);
    }

    private String line() {
        StringBuilder s = new StringBuilder("pid=").append(pid).append(" received=").append(received);
        bySource.forEach((task, count) -> s.append(" from").append(task).append('=').append(count[0]));
        return s.toString();
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        if (relay) {
            declarer.declare(new Fields("sequence", "payload"));
        }
    }
}
