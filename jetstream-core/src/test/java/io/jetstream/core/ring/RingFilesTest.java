package io.jetstream.core.ring;

import static io.jetstream.core.ring.RingTestSupport.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.core.internal.ring.RingDescriptor;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ring files and directories: permissions, foreign or corrupt files, stale files, clean removal. */
class RingFilesTest {
    @TempDir
    Path tempDir;

    Path dir;
    RingSettings settings;

    @BeforeEach
    void setUp() throws Exception {
        dir = RingTestSupport.privateDir(tempDir);
        settings = settings(dir, 8192);
    }

    private Path validRingFile(String name) throws Exception {
        // A ring whose consumer is "gone": create it, then rewrite its consumer pid to a dead one.
        RingConsumer consumer = RingConsumer.create(settings, name);
        Path file = consumer.file();
        Path copy = dir.resolve(name + ".copy");
        Files.copy(file, copy);
        consumer.close();
        Files.move(copy, file);
        writeLong(file, RingDescriptor.CONSUMER_PID_OFFSET, RingTestSupport.deadPid());
        return file;
    }

    private static void writeLong(Path file, int offset, long value) throws Exception {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, value), offset);
        }
    }

    private static void writeInt(Path file, int offset, int value) throws Exception {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(0, value), offset);
        }
    }

    @Test
    void ringFilesAreOwnerOnlyAndRemovedOnClose() throws Exception {
        Path file;
        try (RingConsumer consumer = RingConsumer.create(settings, "perms")) {
            file = consumer.file();
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            assertEquals(RingDescriptor.fileLength(8192), Files.size(file));
        }
        assertFalse(Files.exists(file));
    }

    @Test
    void aTerminatedJvmRemovesTheRingItNeverClosed() throws Exception {
        Process consumer = RingTestSupport.startJava(RingConsumerMain.class, dir.toString(), "never-closed");
        try (var out = new java.io.BufferedReader(new java.io.InputStreamReader(consumer.getInputStream()))) {
            String ready = out.readLine();
            for (int lines = 0; ready != null && !ready.startsWith("READY ") && lines < 100; lines++) {
                ready = out.readLine(); // the child's log lines come first
            }
            assertTrue(ready != null && ready.startsWith("READY "), "the consumer JVM created its ring: " + ready);
            Path file = Path.of(ready.substring("READY ".length()));
            assertTrue(Files.exists(file) && Files.exists(RingWakeup.socketOf(file)), "ring file and wake-up socket exist");
            consumer.toHandle().destroy(); // SIGTERM (keeping its output open): shutdown hooks run, the ring is never closed
            assertTrue(consumer.waitFor(30, java.util.concurrent.TimeUnit.SECONDS), "the consumer JVM exits on SIGTERM");
            String rest = out.lines().collect(java.util.stream.Collectors.joining("\n"));
            assertFalse(Files.exists(file), "ring file removed when the JVM shut down; the JVM printed: " + rest);
            assertFalse(Files.exists(RingWakeup.socketOf(file)), "wake-up socket removed when the JVM shut down");
        } finally {
            consumer.destroyForcibly();
        }
    }

    @Test
    void directoryIsCreatedOwnerOnlyAndAnOpenOneIsRefused() throws Exception {
        Path fresh = tempDir.resolve("fresh/rings");
        RingDirectory.prepare(fresh);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(fresh)));
        Path open = Files.createDirectory(tempDir.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        RingFileException e = assertThrows(RingFileException.class, () -> RingDirectory.prepare(open));
        assertTrue(e.getMessage().contains("writable by group or others"), e.getMessage());
    }

    @Test
    void fileOfAnotherUserIsRefusedRunAsRoot() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "giving a file to another user (chown to nobody) needs root; skipped for other users");
        Path file = validRingFile("foreign");
        UserPrincipal nobody = file.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        Files.setOwner(file, nobody);
        RingFileException e = assertThrows(RingFileException.class, () -> RingProducer.attach(settings, "foreign"));
        assertTrue(e.getMessage().contains("owned by nobody"), e.getMessage());
    }

    @Test
    void notARingWrongVersionAndTruncatedFilesAreRefusedWithoutMapping() throws Exception {
        Path junk = RingDirectory.fileOf(dir, "junk");
        Files.write(junk, new byte[RingDescriptor.HEADER_LENGTH + 8192]);
        assertTrue(assertThrows(RingFileException.class, () -> RingProducer.attach(settings, "junk"))
                .getMessage().contains("not a JetStream ring"));

        Path versioned = validRingFile("versioned");
        writeInt(versioned, RingDescriptor.VERSION_OFFSET, RingDescriptor.VERSION + 1);
        assertTrue(assertThrows(RingFileException.class, () -> RingProducer.attach(settings, "versioned"))
                .getMessage().contains("version " + (RingDescriptor.VERSION + 1)));

        Path truncated = validRingFile("truncated");
        try (RandomAccessFile raf = new RandomAccessFile(truncated.toFile(), "rw")) {
            raf.setLength(RingDescriptor.HEADER_LENGTH + 100);
        }
        assertTrue(assertThrows(RingFileException.class, () -> RingProducer.attach(settings, "truncated"))
                .getMessage().contains("truncated"));

        Path tiny = RingDirectory.fileOf(dir, "tiny");
        Files.write(tiny, new byte[10]);
        assertTrue(assertThrows(RingFileException.class, () -> RingProducer.attach(settings, "tiny"))
                .getMessage().contains("truncated"));

        Path corrupt = validRingFile("corrupt");
        writeInt(corrupt, RingDescriptor.CAPACITY_OFFSET, 12345);
        assertTrue(assertThrows(RingFileException.class, () -> RingProducer.attach(settings, "corrupt"))
                .getMessage().contains("corrupt header"));

        assertThrows(RingFileException.class, () -> RingProducer.attach(settings, "missing"));
        assertThrows(IllegalArgumentException.class, () -> RingDirectory.fileOf(dir, "../escape"));
    }

    @Test
    void ringOfALiveConsumerCannotBeTakenOverButAStaleOneIsReplaced() throws Exception {
        try (RingConsumer live = RingConsumer.create(settings, "taken")) {
            assertTrue(assertThrows(RingFileException.class, () -> RingConsumer.create(settings, "taken"))
                    .getMessage().contains("in use by a live consumer"));
        }
        validRingFile("stale");
        try (RingConsumer replaced = RingConsumer.create(settings, "stale");
                RingProducer producer = RingProducer.attach(settings, "stale")) {
            assertTrue(producer.tryClaim(1, 10) >= 0);
        }
    }

    @Test
    void staleFilesOfDeadConsumersAreReclaimedAndOthersLeftAlone() throws Exception {
        validRingFile("dead-1");
        validRingFile("dead-2");
        Path junk = RingDirectory.fileOf(dir, "not-a-ring");
        Files.write(junk, new byte[100]);
        try (RingConsumer live = RingConsumer.create(settings, "alive")) {
            assertEquals(2, RingDirectory.reclaimStale(dir));
            assertTrue(Files.exists(live.file()));
            assertTrue(Files.exists(junk), "files that are not rings are reported, not deleted");
        }
    }

    /** A consumer killed while it wrote its new ring's pages leaves {@code .<name>.init-<pid>}: reclaimed once that pid is gone. */
    @Test
    void halfWrittenRingsOfDeadCreatorsAreReclaimed() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path abandoned = dir.resolve(".rx-worker.init-" + gone.pid());
        Files.write(abandoned, new byte[4096]);
        Path creating = dir.resolve(".rx-other.init-" + ProcessHandle.current().pid());
        Files.write(creating, new byte[4096]);

        assertEquals(1, RingDirectory.reclaimStale(dir));
        assertTrue(!Files.exists(abandoned), "the dead creator's file is gone");
        assertTrue(Files.exists(creating), "a live creator's file stays");
    }

    @Test
    void producerCannotAttachToARingWhoseConsumerIsGone() throws Exception {
        validRingFile("orphan");
        writeInt(RingDirectory.fileOf(dir, "orphan"), RingDescriptor.STATE_OFFSET, RingDescriptor.STATE_OPEN);
        assertThrows(RingClosedException.class, () -> RingProducer.attach(settings, "orphan"));
    }

    @Test
    void ringOptionsAreValidatedAgainstEachOther() {
        Map<String, Object> conf = Map.of(
                "jetstream.ring.capacity-bytes", 65536,
                "jetstream.ring.max-record-bytes", 1024,
                "jetstream.ring.window-bytes", 131072);
        InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class,
                () -> RingSettings.from(JetStreamConfig.load(ConfigScope.STORM, conf, RingOptions.GROUP)));
        assertEquals("jetstream.ring.window-bytes", e.key());
        assertEquals("jetstream.ring.max-record-bytes", assertThrows(InvalidConfigurationException.class,
                () -> RingSettings.from(JetStreamConfig.load(ConfigScope.STORM,
                        Map.of("jetstream.ring.capacity-bytes", 65536), RingOptions.GROUP))).key(),
                "the default 1 MiB record does not fit a 64 KiB ring");
        assertThrows(InvalidConfigurationException.class, () -> JetStreamConfig.load(
                ConfigScope.STORM, Map.of("jetstream.ring.capacity-bytes", 100_000), RingOptions.GROUP));
        RingSettings ok = RingSettings.from(JetStreamConfig.load(ConfigScope.STORM,
                Map.of("jetstream.ring.directory", dir.toString(), "jetstream.ring.capacity-bytes", 65536,
                        "jetstream.ring.max-record-bytes", 1024, "jetstream.ring.window-bytes", 4096), RingOptions.GROUP));
        assertEquals(65536, ok.capacity());
        assertEquals(dir, ok.directory());
    }
}
