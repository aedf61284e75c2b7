package io.jetstream.core.ring;

import io.jetstream.core.internal.ring.RecordDescriptor;
import io.jetstream.core.internal.ring.RingDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-user directory of ring files, and the checks made on a ring file before it is mapped:
 * reading the header through a file channel first means a truncated or foreign file is refused with
 * an exception, never touched through a mapping (which would crash the JVM with SIGBUS).
 *
 * <p>Stateless and thread-safe.
 */
public final class RingDirectory {
    private static final Logger LOG = LoggerFactory.getLogger(RingDirectory.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
    static final String SUFFIX = ".ring";
    static final Set<PosixFilePermission> OWNER_ONLY_DIR = PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> OWNER_ONLY_FILE = PosixFilePermissions.fromString("rw-------");

    private RingDirectory() {}

    /** /dev/shm/jetstream-USER where /dev/shm exists, else TMPDIR/jetstream-USER. */
    public static Path defaultDirectory() {
        String user = System.getProperty("user.name", "unknown").replaceAll("[^A-Za-z0-9._-]", "_");
        Path shm = Path.of("/dev/shm");
        Path base = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        return base.resolve("jetstream-" + user);
    }

    /** Creates the directory owner-only if missing; refuses one owned by another user or writable by others. */
    public static Path prepare(Path directory) {
        try {
            if (!Files.exists(directory, LinkOption.NOFOLLOW_LINKS)) {
                try {
                    Files.createDirectories(directory, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
                } catch (FileAlreadyExistsException raced) {
                    // created concurrently by another JVM of this user: checked below
                }
            }
            if (!Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)) {
                throw new RingFileException(directory, "not a directory (or a symbolic link)");
            }
            checkOwner(directory);
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(directory, LinkOption.NOFOLLOW_LINKS);
            if (perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
                throw new RingFileException(directory, "writable by group or others (" + PosixFilePermissions.toString(perms)
                        + "); ring directories must be owner-only");
            }
            return directory;
        } catch (IOException e) {
            throw new RingFileException(directory, "cannot prepare ring directory: " + e, e);
        }
    }

    /** The file of ring {@code name}; names are letters, digits, '.', '_' and '-', at most 128. */
    public static Path fileOf(Path directory, String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("invalid ring name '" + name + "': use [A-Za-z0-9._-], at most 128, not starting with '.' '_' '-'");
        }
        return directory.resolve(name + SUFFIX);
    }

    static void checkOwner(Path path) throws IOException {
        UserPrincipal owner = Files.getOwner(path, LinkOption.NOFOLLOW_LINKS);
        UserPrincipal me = path.getFileSystem().getUserPrincipalLookupService()
                .lookupPrincipalByName(System.getProperty("user.name"));
        if (!owner.equals(me)) {
            throw new RingFileException(path, "owned by " + owner.getName() + ", not by " + me.getName());
        }
    }

    /** What the header of a ring file says, read without mapping it. */
    record Header(int capacity, int maxPayload, ProcessIdentity consumer, int state) {}

    /**
     * Reads and checks a ring file's header: owner, magic, version, header length, capacity, and the
     * file's size against the capacity.
     */
    static Header readHeader(Path file) {
        try {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                throw new RingFileException(file, "no such ring file (or not a regular file)");
            }
            checkOwner(file);
            long size = Files.size(file);
            if (size < RingDescriptor.HEADER_LENGTH) {
                throw new RingFileException(file, "truncated: " + size + " bytes, shorter than the "
                        + RingDescriptor.HEADER_LENGTH + "-byte header");
            }
            ByteBuffer header = ByteBuffer.allocate(64).order(ByteOrder.nativeOrder());
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                while (header.hasRemaining() && channel.read(header, header.position()) > 0) {
                    // read fully
                }
            }
            long magic = header.getLong(RingDescriptor.MAGIC_OFFSET);
            if (magic != RingDescriptor.MAGIC) {
                throw new RingFileException(file, String.format("not a JetStream ring (magic 0x%016x)", magic));
            }
            int version = header.getInt(RingDescriptor.VERSION_OFFSET);
            if (version != RingDescriptor.VERSION) {
                throw new RingFileException(file, "ring layout version " + version + ", this JetStream reads version "
                        + RingDescriptor.VERSION + " (mixed JetStream versions on one host?)");
            }
            int headerLength = header.getInt(RingDescriptor.HEADER_LENGTH_OFFSET);
            int capacity = header.getInt(RingDescriptor.CAPACITY_OFFSET);
            int maxPayload = header.getInt(RingDescriptor.MAX_PAYLOAD_OFFSET);
            if (headerLength != RingDescriptor.HEADER_LENGTH || capacity < RingDescriptor.MIN_CAPACITY
                    || capacity > RingDescriptor.MAX_CAPACITY || Integer.bitCount(capacity) != 1
                    || maxPayload < 0 || RecordDescriptor.recordLength(maxPayload) > capacity / 2) {
                throw new RingFileException(file, "corrupt header (header length " + headerLength + ", capacity "
                        + capacity + ", max payload " + maxPayload + ")");
            }
            if (size != RingDescriptor.fileLength(capacity)) {
                throw new RingFileException(file, "truncated or padded: " + size + " bytes, the header says "
                        + RingDescriptor.fileLength(capacity));
            }
            ProcessIdentity consumer = new ProcessIdentity(
                    header.getLong(RingDescriptor.CONSUMER_PID_OFFSET), header.getLong(RingDescriptor.CONSUMER_START_OFFSET));
            return new Header(capacity, maxPayload, consumer, header.getInt(RingDescriptor.STATE_OFFSET));
        } catch (IOException e) {
            throw new RingFileException(file, "cannot read ring header: " + e, e);
        }
    }

    /**
     * Deletes ring files left by consumers that died without closing them, or closed without removing
     * them. Files that are not valid rings of this user are reported and left alone. Returns how many
     * were removed.
     */
    public static int reclaimStale(Path directory) {
        int removed = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(prepare(directory), "*" + SUFFIX)) {
            for (Path file : files) {
                String reason = null;
                try {
                    Header header = readHeader(file);
                    if (!header.consumer().isAlive()) {
                        reason = "its consumer (pid " + header.consumer().pid() + ") is gone";
                    } else if (header.state() == RingDescriptor.STATE_CLOSED) {
                        reason = "it was closed";
                    } else if (header.state() == RingDescriptor.STATE_FAILED) {
                        reason = "its consumer marked it failed";
                    }
                } catch (RingFileException e) {
                    LOG.warn("Leaving {} alone: {}", file, e.getMessage());
                }
                if (reason != null && Files.deleteIfExists(file)) {
                    Files.deleteIfExists(RingWakeup.socketOf(file));
                    removed++;
                    LOG.info("Reclaimed stale ring file {}: {}", file, reason);
                }
            }
        } catch (IOException e) {
            throw new RingFileException(directory, "cannot scan ring directory: " + e, e);
        }
        return removed + reclaimAbandonedCreations(directory);
    }

    /**
     * Deletes the half-written files of ring creations whose process died before renaming them
     * ({@code .<name>.init-<pid>}, see {@code RingConsumer.create}): a consumer killed while it
     * wrote its ring's pages. Files of a live process (or of a pid now reused) are left alone.
     */
    private static int reclaimAbandonedCreations(Path directory) {
        int removed = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, ".*.init-*")) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                long pid;
                try {
                    pid = Long.parseLong(name.substring(name.lastIndexOf("-") + 1));
                } catch (NumberFormatException notOurs) {
                    continue;
                }
                if (ProcessHandle.of(pid).isEmpty() && Files.deleteIfExists(file)) {
                    removed++;
                    LOG.info("Reclaimed {}: the process creating it (pid {}) is gone", file, pid);
                }
            }
        } catch (IOException e) {
            throw new RingFileException(directory, "cannot scan ring directory: " + e, e);
        }
        return removed;
    }
}
