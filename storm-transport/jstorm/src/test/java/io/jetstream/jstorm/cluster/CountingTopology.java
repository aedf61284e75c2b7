package io.jetstream.jstorm.cluster;

import backtype.storm.generated.StormTopology;
import backtype.storm.spout.SpoutOutputCollector;
import backtype.storm.task.OutputCollector;
import backtype.storm.task.TopologyContext;
import backtype.storm.topology.OutputFieldsDeclarer;
import backtype.storm.topology.TopologyBuilder;
import backtype.storm.topology.base.BaseRichBolt;
import backtype.storm.topology.base.BaseRichSpout;
import backtype.storm.tuple.Fields;
import backtype.storm.tuple.Tuple;
import backtype.storm.tuple.Values;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A reliable three-stage topology for a real JStorm cluster: {@code source} spouts emit numbered
 * tuples (replaying any that fail) → local-or-shuffle → {@code forward} → fields grouping on the
 * word → {@code count}. Its tasks run in worker JVMs, so they report to files in the directory named
 * by {@link #RESULTS_DIR}: each spout task its acked and failed tuples, each count task what it
 * received and how much of it came from tasks in other workers.
 */
public final class CountingTopology {
    /** Topology configuration key: the directory the tasks report to. */
    public static final String RESULTS_DIR = "it.results.dir";
    /** Topology configuration key: tuples each spout task emits. */
    public static final String TUPLES_PER_SPOUT = "it.tuples.per.spout";
    private static final long REPORT_EVERY_MS = 200;
    private static final Fields WORD_AND_NUMBER = new Fields("word", "n");

    private CountingTopology() {}

    public static StormTopology build(int sources, int forwards, int counts) {
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("source", new NumberSpout(), sources);
        builder.setBolt("forward", new ForwardBolt(), forwards).localOrShuffleGrouping("source");
        builder.setBolt("count", new CountBolt(), counts).fieldsGrouping("forward", new Fields("word"));
        return builder.createTopology();
    }

    /** One task's report file, rewritten at most every {@value #REPORT_EVERY_MS} ms (atomically, for the test to read). */
    static final class Report {
        private final Path file;
        private long last;

        Report(Map<?, ?> conf, String name) {
            this.file = Path.of((String) conf.get(RESULTS_DIR)).resolve(name);
        }

        synchronized void maybeWrite(boolean force, Supplier<String> line) {
            long now = System.currentTimeMillis();
            if (!force && now - last < REPORT_EVERY_MS) {
                return;
            }
            last = now;
            try {
                Path tmp = Files.writeString(file.resolveSibling(file.getFileName() + ".tmp"), line.get());
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * Emits its numbers once each, replays the failed ones, and reports acked and failed counts.
     * JStorm calls {@code nextTuple} and {@code ack}/{@code fail} from different threads
     * ({@code MultipleThreadSpoutExecutors}): they synchronize.
     */
    public static final class NumberSpout extends BaseRichSpout {
        private static final long serialVersionUID = 1L;
        private transient SpoutOutputCollector collector;
        private transient BitSet acked;
        private transient ArrayDeque<Long> replay;
        private transient Report report;
        private long total;
        private long next;
        private long ackedCount;
        private long failed;

        @Override
        @SuppressWarnings("rawtypes")
        public void open(Map conf, TopologyContext context, SpoutOutputCollector collector) {
            this.collector = collector;
            this.total = ((Number) conf.get(TUPLES_PER_SPOUT)).longValue();
            this.acked = new BitSet();
            this.replay = new ArrayDeque<>();
            this.report = new Report(conf, "source-" + context.getThisTaskId());
        }

        @Override
        public synchronized void nextTuple() {
            Long id = replay.poll();
            if (id == null && next < total) {
                id = next++;
            }
            if (id != null) {
                collector.emit(new Values("word-" + (id % 101), id), id);
            }
            maybeReport();
        }

        @Override
        public synchronized void ack(Object id) {
            int n = (int) (long) (Long) id;
            if (!acked.get(n)) {
                acked.set(n);
                ackedCount++;
            }
            maybeReport();
        }

        @Override
        public synchronized void fail(Object id) {
            failed++;
            replay.add((Long) id);
        }

        private void maybeReport() {
            report.maybeWrite(ackedCount == total, () -> ackedCount + " " + failed + " " + total);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(WORD_AND_NUMBER);
        }
    }

    /** Passes each tuple on, anchored. */
    public static final class ForwardBolt extends BaseRichBolt {
        private static final long serialVersionUID = 1L;
        private transient OutputCollector collector;

        @Override
        @SuppressWarnings("rawtypes")
        public void prepare(Map conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void execute(Tuple input) {
            collector.emit(input, new Values(input.getString(0), input.getLong(1)));
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(WORD_AND_NUMBER);
        }
    }

    /**
     * What JetStream carried in this worker process so far: records sent, records received, ring
     * batches, TCP batches, dropped (zeros when the worker's context is not JetStream's).
     */
    static String jetstreamTotals() {
        io.jetstream.jstorm.transport.JetStreamJStormContext.ProcessTotals t =
                io.jetstream.jstorm.transport.JetStreamJStormContext.processTotals();
        return t.sentRecords() + " " + t.receivedRecords() + " " + t.ringBatches() + " " + t.tcpBatches() + " " + t.dropped();
    }

    /**
     * Counts what it receives, and what of it came from tasks in other workers; its report line is
     * {@code received fromOtherWorkers port} and then this worker's {@link #jetstreamTotals()}.
     */
    public static final class CountBolt extends BaseRichBolt {
        private static final long serialVersionUID = 1L;
        private transient OutputCollector collector;
        private transient Set<Integer> workerTasks;
        private transient Report report;
        private transient int port;
        private long received;
        private long fromOtherWorkers;

        @Override
        @SuppressWarnings("rawtypes")
        public void prepare(Map conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
            this.workerTasks = new HashSet<>(context.getThisWorkerTasks());
            this.report = new Report(conf, "count-" + context.getThisTaskId());
            this.port = context.getThisWorkerPort();
        }

        @Override
        public void execute(Tuple input) {
            received++;
            if (!workerTasks.contains(input.getSourceTask())) {
                fromOtherWorkers++;
            }
            collector.ack(input);
            report.maybeWrite(false, () -> received + " " + fromOtherWorkers + " " + port + " " + jetstreamTotals());
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {}
    }
}
