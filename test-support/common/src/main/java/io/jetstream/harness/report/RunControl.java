package io.jetstream.harness.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The driver's instruction to a topology's spouts, in a file: one line {@code "<phase> <rate>"}, the
 * phase number and the tuples per second each spout task emits in it (0 = as fast as the topology's
 * max.spout.pending allows, negative = emit nothing). A benchmark moves the spouts through phases by
 * rewriting the file; each spout reads it at most every 100 ms.
 *
 * <p>{@link #write} is called by the driver; a {@link Reader} belongs to one spout's executor thread.
 */
public final class RunControl {
    private RunControl() {}

    /** One instruction. */
    public record Instruction(int phase, long rate) {}

    /** Replaces the instruction atomically. */
    public static void write(Path file, int phase, long ratePerSpout) {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.writeString(tmp, phase + " " + ratePerSpout + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A spout's view of the file: reports a new instruction once its phase differs from the last one seen. */
    public static final class Reader {
        private static final long CHECK_NANOS = 100_000_000L;
        private final Path file;
        private int phase;
        private long lastCheck;

        /** Starts in {@code phase} (a spout's configured phase before any instruction). */
        public Reader(Path file, int phase) {
            this.file = file;
            this.phase = phase;
        }

        /** A new instruction, or {@code null} when there is none or it is not time to look again. */
        public Instruction poll(long nowNanos) {
            if (nowNanos - lastCheck < CHECK_NANOS) {
                return null;
            }
            lastCheck = nowNanos;
            String line;
            try {
                if (!Files.exists(file)) {
                    return null;
                }
                line = Files.readString(file, StandardCharsets.UTF_8).trim();
            } catch (IOException beingReplaced) {
                return null;
            }
            String[] fields = line.split("\\s+");
            if (fields.length != 2) {
                return null;
            }
            int newPhase = Integer.parseInt(fields[0]);
            if (newPhase == phase) {
                return null;
            }
            phase = newPhase;
            return new Instruction(newPhase, Long.parseLong(fields[1]));
        }
    }
}
