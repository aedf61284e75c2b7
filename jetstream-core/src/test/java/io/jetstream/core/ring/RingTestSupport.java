package io.jetstream.core.ring;

import io.jetstream.core.internal.ring.RecordDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** Shared helpers of the ring tests: settings in a private directory, the payload format, a dead pid. */
final class RingTestSupport {
    private RingTestSupport() {}

    static RingSettings settings(Path dir, int capacity) {
        int maxRecord = Math.min(RingOptions.MAX_RECORD.defaultValue(), capacity / 2 - RecordDescriptor.HEADER_LENGTH);
        int window = Math.min(RingOptions.WINDOW.defaultValue(), capacity);
        return RingSettings.defaults(dir).withCapacity(capacity, maxRecord, window).withProducerWait(TimeUnit.SECONDS.toNanos(20));
    }

    static Path privateDir(Path tempDir) throws IOException {
        Path dir = tempDir.resolve("rings");
        Files.createDirectories(dir, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(RingDirectory.OWNER_ONLY_DIR));
        return dir;
    }

    /** Payload: producer id, sequence number, then bytes derived from both. */
    static void writePayload(MutableDirectBuffer buffer, int offset, int producer, long sequence, int length) {
        if (length >= 12) {
            buffer.putInt(offset, producer);
            buffer.putLong(offset + 4, sequence);
            for (int i = 12; i < length; i++) {
                buffer.putByte(offset + i, (byte) (producer * 31 + sequence + i));
            }
        } else {
            for (int i = 0; i < length; i++) {
                buffer.putByte(offset + i, (byte) (producer * 31 + sequence + i));
            }
        }
    }

    /** Checks a payload written by {@link #writePayload}; returns its sequence number. */
    static long checkPayload(DirectBuffer buffer, int offset, int producer, int length) {
        if (length < 12) {
            throw new AssertionError("payload too short to check: " + length);
        }
        int p = buffer.getInt(offset);
        long sequence = buffer.getLong(offset + 4);
        if (p != producer) {
            throw new AssertionError("payload of producer " + p + " delivered for target " + producer);
        }
        for (int i = 12; i < length; i++) {
            if (buffer.getByte(offset + i) != (byte) (producer * 31 + sequence + i)) {
                throw new AssertionError("corrupt byte " + i + " of producer " + producer + " record " + sequence);
            }
        }
        return sequence;
    }

    /** The pid of a process that has exited (so the ring's liveness check finds it dead). */
    static long deadPid() throws Exception {
        Process process = new ProcessBuilder("true").start();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new AssertionError("'true' did not exit");
        }
        return process.pid();
    }

    /** A child JVM with this test class path and no JVM flag (the ring needs none). */
    static Process startJava(Class<?> main, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx128m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }
}
