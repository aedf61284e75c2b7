package io.jetstream.storm.cluster.topology;

import io.jetstream.harness.report.PhaseRecorder;
import io.jetstream.harness.report.RunControl;
import io.jetstream.harness.report.TaskReport;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Map;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Values;

/**
 * Emits numbered tuples with a payload, each anchored to a message id that carries its emit time and
 * phase; replays what fails; measures each tuple's complete latency (ack time − emit time, both read
 * on this executor's thread) in the phase it was emitted in ({@link PhaseRecorder}). A payload of 8
 * bytes or more starts with the emit time ({@link #emitNanos}, {@code System.nanoTime}, which is one
 * clock for every process of a host): the relay measures the first hop by it.
 *
 * <p>Pacing is open loop: at a rate r a spout emits the tuples due since the phase started (up to 64
 * per call), so after a stall it catches up rather than shifting its schedule; the topology's
 * max.spout.pending still bounds what is in flight.
 *
 * <p>Reports every 200 ms to {@code source-<task>} in the results directory: process id, sequence
 * numbers issued, tuples emitted (with replays), acked (distinct), failed, the contiguous prefix of
 * acked sequence numbers (every tuple below it was acked) and the phase. With a control file
 * ({@link RunControl}) a benchmark moves the spout through phases; each finished phase is written by
 * the {@link PhaseRecorder}.
 *
 * <p>Storm calls a spout from its executor thread only.
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

    /** The message id of one emitted tuple: kept by the spout's executor, never serialized. */
    private record Emitted(long sequence, long nanos, int phase) {}

    @Override
    public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
        this.collector = collector;
        Path results = Path.of((String) conf.get(CrossWorkerTopology.RESULTS_DIR));
        String task = "source-" + context.getThisTaskId();
        Object controlFile = conf.get(CrossWorkerTopology.CONTROL_FILE);
        this.control = controlFile == null ? null : new RunControl.Reader(Path.of((String) controlFile), 0);
        this.pid = ProcessHandle.current().pid();
        this.payload = new byte[(int) CrossWorkerTopology.longOf(conf, CrossWorkerTopology.PAYLOAD_BYTES, 64)];
        Arrays.fill(payload, (byte) 'x');
        this.acked = new BitSet();
        this.replay = new ArrayDeque<>();
        this.report = new TaskReport(results, task, 200);
        this.phase = new PhaseRecorder(results, task);
        phase.start(0, CrossWorkerTopology.longOf(conf, CrossWorkerTopology.RATE_PER_SPOUT, 0), System.nanoTime());
    }

    @Override
    public void nextTuple() {
        long now = System.nanoTime();
        RunControl.Instruction next = control == null ? null : control.poll(now);
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
        byte[] stamped = payload.clone();
        if (stamped.length >= Long.BYTES) {
            ByteBuffer.wrap(stamped).putLong(0, nanos);
        }
        collector.emit(new Values(sequence, stamped), new Emitted(sequence, nanos, phase.phase()));
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

    /** The emit time a payload carries, or -1 when it is too short to carry one. */
    public static long emitNanos(byte[] payload) {
        return payload != null && payload.length >= Long.BYTES ? ByteBuffer.wrap(payload).getLong(0) : -1;
    }

    private String reportLine() {
        return "pid=" + pid + " issued=" + nextSequence + " emitted=" + emitted + " acked=" + ackedCount + " failed=" + failed
                + " contiguous=" + acked.nextClearBit(0) + " phase=" + phase.phase();
    }
}
