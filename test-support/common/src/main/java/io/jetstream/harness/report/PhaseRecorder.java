package io.jetstream.harness.report;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;

/**
 * One task's counts and latency samples in the current phase (a spout's complete latencies, a bolt's
 * hop latencies), written to the results directory when the phase ends: {@code phase-<p>-<task>.lat} (a count, then that many nanosecond
 * values, big-endian) and then {@code phase-<p>-<task>.txt} ({@code emitted= acked= failed= nanos=
 * rate=}); a reader takes a phase as finished once its {@code .txt} exists. Samples beyond 4 Mi per
 * phase are counted but not kept.
 *
 * <p>Used by its task's executor thread only; records nothing per sample but a {@code long}.
 */
public final class PhaseRecorder {
    private static final int MAX_SAMPLES = 4 << 20;

    private final Path dir;
    private final String task;
    private int phase;
    private long rate;
    private long startNanos;
    private long emitted;
    private long acked;
    private long failed;
    private long[] samples = new long[1024];
    private int sampleCount;

    /** @param task the task's name in file names, for example {@code source-13} */
    public PhaseRecorder(Path dir, String task) {
        this.dir = dir;
        this.task = task;
    }

    /** Starts {@code phase} (forgetting the previous one's figures). */
    public void start(int phase, long rate, long nowNanos) {
        this.phase = phase;
        this.rate = rate;
        this.startNanos = nowNanos;
        this.emitted = 0;
        this.acked = 0;
        this.failed = 0;
        this.sampleCount = 0;
    }

    public int phase() {
        return phase;
    }

    /** Tuples per second per spout task in this phase (0 = unpaced, negative = paused). */
    public long rate() {
        return rate;
    }

    public long startNanos() {
        return startNanos;
    }

    public long emitted() {
        return emitted;
    }

    public void onEmit() {
        emitted++;
    }

    /** An ack of a tuple emitted in this phase, {@code latencyNanos} after its emit. */
    public void onAck(long latencyNanos) {
        acked++;
        onSample(latencyNanos);
    }

    /** A latency sample that is not an ack (a bolt's hop from the spout). */
    public void onSample(long latencyNanos) {
        if (sampleCount == samples.length && samples.length < MAX_SAMPLES) {
            samples = Arrays.copyOf(samples, samples.length * 2);
        }
        if (sampleCount < samples.length) {
            samples[sampleCount++] = latencyNanos;
        }
    }

    public void onFail() {
        failed++;
    }

    /** Writes the phase's files. */
    public void finish(long nowNanos) {
        String name = "phase-" + phase + "-" + task;
        try {
            try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(dir.resolve(name + ".lat"))))) {
                out.writeInt(sampleCount);
                for (int i = 0; i < sampleCount; i++) {
                    out.writeLong(samples[i]);
                }
            }
            Path tmp = dir.resolve(name + ".txt.tmp");
            Files.writeString(tmp, "emitted=" + emitted + " acked=" + acked + " failed=" + failed + " nanos=" + (nowNanos - startNanos)
                    + " rate=" + rate + "\n");
            Files.move(tmp, dir.resolve(name + ".txt"), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
