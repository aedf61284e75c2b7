package io.jetstream.storm.cluster.topology;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
 * Emits numbered tuples with a payload, each anchored to a message id that carries its emit time
 * and phase; replays what fails; measures each tuple's complete latency (ack time − emit time, both
 * on this executor's thread) in the phase it was emitted in.
 *
 * <p>Reports every 200 ms to {@code source-<task>} in the results directory: process id, sequence
 * numbers issued, tuples emitted (with replays), acked (distinct), failed, the contiguous prefix of
 * acked sequence numbers (every tuple below it was acked) and the phase. When a control file moves the spout to another
 * phase, the previous phase's counts and latency samples go to {@code phase-<p>-source-<task>.txt}
 * and {@code .lat}.
 *
 * <p>Storm calls a spout from its executor thread only.
 */
public final class SequenceSpout extends BaseRichSpout {
    private static final long serialVersionUID = 1L;
    private static final long CONTROL_CHECK_NANOS = 100_000_000L;
    private static final int MAX_BURST = 64;
    private static final int MAX_SAMPLES = 4 << 20;

    private transient SpoutOutputCollector collector;
    private transient TaskReport report;
    private transient Path results;
    private transient Path control;
    private transient int task;
    private transient long pid;
    private transient byte[] payload;
    private transient BitSet acked;
    private transient ArrayDeque<Long> replay;
    private transient long nextSequence;
    private transient long emitted;
    private transient long ackedCount;
    private transient long failed;
    // The current phase.
    private transient int phase;
    private transient long rate;
    private transient long phaseStart;
    private transient long emittedInPhase;
    private transient long ackedInPhase;
    private transient long failedInPhase;
    private transient long[] samples;
    private transient int sampleCount;
    private transient long lastControlCheck;

    /** The message id of one emitted tuple: local to the spout's executor, never serialized. */
    private record Emitted(long sequence, long nanos, int phase) {}

    @Override
    public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
        this.collector = collector;
        this.results = Path.of((String) conf.get(CrossWorkerTopology.RESULTS_DIR));
        Object controlFile = conf.get(CrossWorkerTopology.CONTROL_FILE);
        this.control = controlFile == null ? null : Path.of((String) controlFile);
        this.task = context.getThisTaskId();
        this.pid = ProcessHandle.current().pid();
        this.payload = new byte[(int) CrossWorkerTopology.longOf(conf, CrossWorkerTopology.PAYLOAD_BYTES, 64)];
        Arrays.fill(payload, (byte) 'x');
        this.acked = new BitSet();
        this.replay = new ArrayDeque<>();
        this.report = new TaskReport(results, "source-" + task, 200);
        this.samples = new long[1024];
        startPhase(0, CrossWorkerTopology.longOf(conf, CrossWorkerTopology.RATE_PER_SPOUT, 0), System.nanoTime());
    }

    @Override
    public void nextTuple() {
        long now = System.nanoTime();
        if (control != null && now - lastControlCheck >= CONTROL_CHECK_NANOS) {
            lastControlCheck = now;
            readControl(now);
        }
        if (rate < 0) {
            // paused
        } else if (!replay.isEmpty()) {
            emit(replay.poll(), now);
        } else if (rate == 0) {
            emit(nextSequence++, now);
        } else {
            long due = (now - phaseStart) * rate / 1_000_000_000L - emittedInPhase;
            for (long i = Math.min(due, MAX_BURST); i > 0; i--) {
                emit(nextSequence++, System.nanoTime());
            }
        }
        report.maybeWrite(false, this::reportLine);
    }

    private void emit(long sequence, long nanos) {
        collector.emit(new Values(sequence, payload), new Emitted(sequence, nanos, phase));
        emitted++;
        emittedInPhase++;
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
        if (e.phase() == phase) {
            ackedInPhase++;
            if (sampleCount == samples.length && samples.length < MAX_SAMPLES) {
                samples = Arrays.copyOf(samples, samples.length * 2);
            }
            if (sampleCount < samples.length) {
                samples[sampleCount++] = now - e.nanos();
            }
        }
    }

    @Override
    public void fail(Object msgId) {
        Emitted e = (Emitted) msgId;
        failed++;
        if (e.phase() == phase) {
            failedInPhase++;
        }
        replay.add(e.sequence());
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        declarer.declare(new Fields("sequence", "payload"));
    }

    private String reportLine() {
        return "pid=" + pid + " issued=" + nextSequence + " emitted=" + emitted + " acked=" + ackedCount + " failed=" + failed
                + " contiguous=" + acked.nextClearBit(0) + " phase=" + phase;
    }

    private void readControl(long now) {
        String line;
        try {
            if (!Files.exists(control)) {
                return;
            }
            line = Files.readString(control, StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            return; // being replaced: read again at the next check
        }
        String[] fields = line.split("\\s+");
        if (fields.length != 2) {
            return;
        }
        int newPhase = Integer.parseInt(fields[0]);
        if (newPhase != phase) {
            writePhase(now);
            startPhase(newPhase, Long.parseLong(fields[1]), now);
            report.maybeWrite(true, this::reportLine);
        }
    }

    private void startPhase(int newPhase, long newRate, long now) {
        phase = newPhase;
        rate = newRate;
        phaseStart = now;
        emittedInPhase = 0;
        ackedInPhase = 0;
        failedInPhase = 0;
        sampleCount = 0;
    }

    /** The finished phase: its counts, then its latency samples (a count and that many nanosecond values). */
    private void writePhase(long now) {
        String name = "phase-" + phase + "-source-" + task;
        try {
            Path lat = results.resolve(name + ".lat");
            try (DataOutputStream out = new DataOutputStream(new java.io.BufferedOutputStream(Files.newOutputStream(lat)))) {
                out.writeInt(sampleCount);
                for (int i = 0; i < sampleCount; i++) {
                    out.writeLong(samples[i]);
                }
            }
            // The .txt file last: the driver reads a phase once its .txt exists.
            Path tmp = results.resolve(name + ".txt.tmp");
            Files.writeString(tmp, "emitted=" + emittedInPhase + " acked=" + ackedInPhase + " failed=" + failedInPhase
                    + " nanos=" + (now - phaseStart) + " rate=" + rate + "\n");
            Files.move(tmp, results.resolve(name + ".txt"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
