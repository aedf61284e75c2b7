package io.jetstream.benchmarks.jstorm.topology;

import backtype.storm.spout.SpoutOutputCollector;
import backtype.storm.task.TopologyContext;
import backtype.storm.topology.OutputFieldsDeclarer;
import backtype.storm.topology.base.BaseRichSpout;
import backtype.storm.tuple.Fields;
import backtype.storm.tuple.Values;
import io.jetstream.harness.report.PhaseRecorder;
import io.jetstream.harness.report.RunControl;
import io.jetstream.harness.report.TaskReport;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Map;

/**
 * Emits numbered tuples, anchored to message ids carrying their emit time and phase; replays what
 * fails; records complete latency per phase ({@link PhaseRecorder}), moved through phases by the
 * driver's run-control file; pacing open loop (up to 64 due tuples per call). Reports like the Storm
 * topology's spout, to {@code source-<task>}.
 *
 * <p>Run with {@code spout.single.thread: true}: JStorm then calls {@code nextTuple}, {@code ack} and
 * {@code fail} from one thread, as Storm does.
 */
public final class SequenceSpout extends BaseRichSpout {
    private static final long serialVersionUID = 1L;
    private static final int MAX_BURST = 64;

    private transient SpoutOutputCollector collector;
    private transient TaskReport report;
    private transient PhaseRecorder phase;
    private transient RunControl.Reader control;
    private transient long pid;
    private transient byte[] payload;
    private transient BitSet acked;
    private transient ArrayDeque<Long> replay;
    private transient long nextSequence;
    private transient long emitted;
    private transient long ackedCount;
    private transient long failed;

    /** The message id of one emitted tuple: kept by the spout's task, never serialized. */
    private record Emitted(long sequence, long nanos, int phase) {}

    @Override
    @SuppressWarnings("rawtypes")
    public void open(Map conf, TopologyContext context, SpoutOutputCollector collector) {
        this.collector = collector;
        Path results = Path.of((String) conf.get(JStormCrossWorkerTopology.RESULTS_DIR));
        String task = "source-" + context.getThisTaskId();
        this.control = new RunControl.Reader(Path.of((String) conf.get(JStormCrossWorkerTopology.CONTROL_FILE)), 0);
        this.pid = ProcessHandle.current().pid();
        this.payload = new byte[(int) JStormCrossWorkerTopology.longOf(conf, JStormCrossWorkerTopology.PAYLOAD_BYTES, 64)];
        Arrays.fill(payload, (byte) 'x');
        this.acked = new BitSet();
        this.replay = new ArrayDeque<>();
        this.report = new TaskReport(results, task, 200);
        this.phase = new PhaseRecorder(results, task);
        phase.start(0, -1, System.nanoTime());
    }

    @Override
    public void nextTuple() {
        long now = System.nanoTime();
        RunControl.Instruction next = control.poll(now);
        if (next != null) {
            phase.finish(now);
            phase.start(next.phase(), next.rate(), now);
            report.maybeWrite(true, this::reportLine);
        }
        long rate = phase.rate();
        if (rate < 0) {
            // paused
        } else if (!replay.isEmpty()) {
            emit(replay.poll(), now);
        } else if (rate == 0) {
            emit(nextSequence++, now);
        } else {
            long due = (now - phase.startNanos()) * rate / 1_000_000_000L - phase.emitted();
            for (long i = Math.min(due, MAX_BURST); i > 0; i--) {
                emit(nextSequence++, System.nanoTime());
            }
        }
        report.maybeWrite(false, this::reportLine);
    }

    private void emit(long sequence, long nanos) {
        collector.emit(new Values(sequence, payload), new Emitted(sequence, nanos, phase.phase()));
        emitted++;
        phase.onEmit();
    }

    @Override
    public void ack(Object msgId) {
        long now = System.nanoTime();
        Emitted e = (Emitted) msgId;
        int index = (int) e.sequence();
        if (!acked.get(index)) {
            acked.set(index);
            ackedCount++;
        }
        if (e.phase() == phase.phase()) {
            phase.onAck(now - e.nanos());
        }
    }

    @Override
    public void fail(Object msgId) {
        Emitted e = (Emitted) msgId;
        failed++;
        if (e.phase() == phase.phase()) {
            phase.onFail();
        }
        replay.add(e.sequence());
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        declarer.declare(new Fields("sequence", "payload"));
    }

    private String reportLine() {
        return "pid=" + pid + " issued=" + nextSequence + " emitted=" + emitted + " acked=" + ackedCount + " failed=" + failed
                + " contiguous=" + acked.nextClearBit(0) + " phase=" + phase.phase();
    }
}
