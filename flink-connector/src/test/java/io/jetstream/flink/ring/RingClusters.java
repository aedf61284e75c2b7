package io.jetstream.flink.ring;

import io.jetstream.core.internal.ring.RingDescriptor;
import io.jetstream.core.ring.RingDirectory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/** Test helpers around the ring files and threads of the TaskManagers of this JVM. */
final class RingClusters {
    private RingClusters() {}

    /** Ring files of Flink TaskManagers whose consumer is this JVM (other engineers' runs are left out). */
    static List<Path> ownRingFiles() throws IOException {
        Path directory = RingDirectory.defaultDirectory();
        List<Path> own = new ArrayList<>();
        if (!Files.isDirectory(directory)) {
            return own;
        }
        long self = ProcessHandle.current().pid();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "flink-tm-*.ring")) {
            for (Path file : files) {
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                    ByteBuffer pid = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
                    if (channel.read(pid, RingDescriptor.CONSUMER_PID_OFFSET) == 8 && pid.getLong(0) == self) {
                        own.add(file);
                    }
                } catch (IOException vanished) {
                    // deleted while we looked
                }
            }
        }
        return own;
    }

    /** Ring files of Flink TaskManagers whose consumer is one of {@code pids}. */
    static List<Path> ringFilesOf(List<Long> pids) throws IOException {
        Path directory = RingDirectory.defaultDirectory();
        List<Path> found = new ArrayList<>();
        if (!Files.isDirectory(directory)) {
            return found;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "flink-tm-*.ring")) {
            for (Path file : files) {
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                    ByteBuffer pid = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
                    if (channel.read(pid, RingDescriptor.CONSUMER_PID_OFFSET) == 8 && pids.contains(pid.getLong(0))) {
                        found.add(file);
                    }
                } catch (IOException vanished) {
                    // deleted while we looked
                }
            }
        }
        return found;
    }

    /** Marks a ring failed in its file, as its consumer would (state and reason), through the shared mapping. */
    static void markFailed(Path ring, String reason) throws IOException {
        try (FileChannel channel = FileChannel.open(ring, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            byte[] text = reason.getBytes(StandardCharsets.UTF_8);
            channel.write(ByteBuffer.wrap(text), RingDescriptor.FAILURE_REASON_OFFSET);
            ByteBuffer length = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(0, text.length);
            channel.write(length, RingDescriptor.FAILURE_LENGTH_OFFSET);
            ByteBuffer state = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(0, RingDescriptor.STATE_FAILED);
            channel.write(state, RingDescriptor.STATE_OFFSET);
        }
    }

    /** Waits (joins, at most 10 s in all) for the ring I/O threads of this JVM; returns the names of those still alive. */
    static List<String> ringThreadsAfterJoin() throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        List<Thread> threads = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("jetstream-ring-"))
                .toList();
        for (Thread t : threads) {
            t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        }
        return threads.stream().filter(Thread::isAlive).map(Thread::getName).toList();
    }
}
