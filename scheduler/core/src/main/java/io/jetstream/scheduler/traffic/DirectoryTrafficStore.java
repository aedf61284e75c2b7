package io.jetstream.scheduler.traffic;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Traffic records in a directory shared by the workers (writers) and Nimbus (reader):
 * {@code <root>/<topology id>/task-<id>.traffic}, each replaced atomically (written to a temporary
 * file, then renamed), so the reader sees a whole old or a whole new record.
 *
 * <p>Thread-safe: writes of different tasks go to different files; a reader never sees a partial file.
 */
public final class DirectoryTrafficStore implements TrafficStore {
    private static final Logger LOG = LoggerFactory.getLogger(DirectoryTrafficStore.class);
    private static final String SUFFIX = ".traffic";
    /** A record is a few lines per target; anything larger than this is not one of ours. */
    static final long MAX_RECORD_BYTES = (long) TrafficRecordFormat.MAX_TARGETS * 48 + 4096;

    private final Path root;

    public DirectoryTrafficStore(Path root) {
        this.root = root;
    }

    @Override
    public String location() {
        return root.toString();
    }

    private Path topologyDir(String topologyId) {
        return root.resolve(TrafficStore.checkedTopologyId(topologyId));
    }

    @Override
    public void write(String topologyId, TaskTraffic traffic) throws IOException {
        Path dir = topologyDir(topologyId);
        Files.createDirectories(dir);
        Path target = dir.resolve("task-" + traffic.taskId() + SUFFIX);
        Path temp = Files.createTempFile(dir, ".task-" + traffic.taskId() + "-", ".tmp");
        try {
            try (Writer out = Files.newBufferedWriter(temp, StandardCharsets.US_ASCII)) {
                TrafficRecordFormat.write(traffic, out);
            }
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    @Override
    public TrafficSnapshot read(String topologyId, long nowMillis, long staleAfterMillis) {
        Path dir = topologyDir(topologyId);
        if (!Files.isDirectory(dir)) {
            return TrafficSnapshot.EMPTY;
        }
        List<TaskTraffic> tasks = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "task-*" + SUFFIX)) {
            for (Path file : files) {
                TaskTraffic record = readOne(file);
                if (record != null && record.windowEndMillis() >= nowMillis - staleAfterMillis) {
                    tasks.add(record);
                }
            }
        } catch (NoSuchFileException e) {
            return TrafficSnapshot.EMPTY;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list traffic records in " + dir, e);
        }
        return new TrafficSnapshot(tasks);
    }

    private static TaskTraffic readOne(Path file) {
        try {
            long size = Files.size(file);
            if (size > MAX_RECORD_BYTES) {
                LOG.warn("Ignoring traffic record {}: {} bytes, larger than any record ({} bytes)", file, size,
                        MAX_RECORD_BYTES);
                return null;
            }
            try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
                return TrafficRecordFormat.read(file.toString(), in);
            }
        } catch (NoSuchFileException e) {
            return null; // replaced or removed while listing
        } catch (CorruptTrafficRecordException e) {
            LOG.warn("Ignoring {}", e.getMessage());
            return null;
        } catch (IOException | RuntimeException e) {
            LOG.warn("Ignoring unreadable traffic record {}: {}", file, e.toString());
            return null;
        }
    }

    @Override
    public void prune(Set<String> live) {
        if (!Files.isDirectory(root)) {
            return;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root, Files::isDirectory)) {
            for (Path dir : dirs) {
                String id = dir.getFileName().toString();
                if (!live.contains(id) && SAFE_TOPOLOGY_ID.matcher(id).matches()) {
                    deleteRecords(dir);
                }
            }
        } catch (IOException e) {
            LOG.warn("Cannot prune traffic records under {}: {}", root, e.toString());
        }
    }

    private static void deleteRecords(Path dir) throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                Files.deleteIfExists(f);
            }
        }
        Files.deleteIfExists(dir);
        LOG.info("Removed traffic records of finished topology {}", dir.getFileName());
    }
}
