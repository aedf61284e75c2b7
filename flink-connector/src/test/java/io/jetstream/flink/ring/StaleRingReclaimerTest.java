package io.jetstream.flink.ring;

import static io.jetstream.flink.ring.RingMessageDescriptor.ringName;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.ring.RingConsumer;
import io.jetstream.core.ring.RingDirectory;
import io.jetstream.core.ring.RingSettings;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stale-ring cleanup removes the file of a TaskManager whose process was killed (SIGKILL: no shutdown
 * hook ran) and leaves a live TaskManager's file alone; a directory it cannot scan is reported, not
 * thrown.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class StaleRingReclaimerTest {
    private static final int LIVE_PORT = 33_001;
    private static final int KILLED_PORT = 33_002;

    @TempDir
    Path temp;

    @Test
    void removesOnlyTheRingOfAKilledTaskManager() throws Exception {
        Path dir = temp.resolve("rings");
        RingSettings settings = RingSettings.defaults(dir).withCapacity(64 << 10, 16 << 10, 64 << 10);
        try (RingConsumer live = RingConsumer.create(settings, ringName(LIVE_PORT))) {
            Path killed = RingDirectory.fileOf(dir, ringName(KILLED_PORT));
            Process owner = startRingOwner(dir, KILLED_PORT);
            try {
                awaitLine(owner, "READY");
            } finally {
                owner.destroyForcibly();
            }
            assertTrue(owner.waitFor(30, TimeUnit.SECONDS), "the owner process ended");
            assertTrue(Files.exists(killed), "a killed owner leaves its ring file behind");

            assertEquals(1, new StaleRingReclaimer(dir).reclaim(), "one file reclaimed");
            assertFalse(Files.exists(killed), "the killed owner's file is gone");
            assertTrue(Files.exists(live.file()), "the live owner's file stays");
            assertEquals(0, new StaleRingReclaimer(dir).reclaim(), "nothing more to reclaim");
        }
    }

    @Test
    void aDirectoryItCannotScanIsReportedNotThrown() throws IOException {
        Path notADirectory = Files.writeString(temp.resolve("a-file"), "x");
        assertEquals(0, new StaleRingReclaimer(notADirectory).reclaim());
        assertTrue(Files.isRegularFile(notADirectory), "left as it was");
    }

    /** {@link RingPeerProcessMain}: creates the ring of {@code port} in {@code dir}, prints READY. */
    private static Process startRingOwner(Path dir, int port) throws IOException {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx64m",
                "-cp", System.getProperty("java.class.path"), RingPeerProcessMain.class.getName(), dir.toString(),
                Integer.toString(port));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /** Reads the child's output until {@code expected}; bounded by lines and by the child's end. */
    private static void awaitLine(Process process, String expected) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        for (int lines = 0; lines < 1_000; lines++) {
            String line = out.readLine();
            if (line == null) {
                throw new AssertionError("the ring owner ended before printing " + expected);
            }
            if (line.equals(expected)) {
                return;
            }
        }
        throw new AssertionError("no " + expected + " in 1000 lines");
    }
}
