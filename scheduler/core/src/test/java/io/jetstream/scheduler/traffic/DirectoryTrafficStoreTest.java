package io.jetstream.scheduler.traffic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectoryTrafficStoreTest {
    @TempDir
    Path dir;

    @Test
    void recordsRoundTripAndStaleOnesAreIgnored() throws Exception {
        DirectoryTrafficStore store = new DirectoryTrafficStore(dir);
        store.write("topo-1-100", new TaskTraffic(3, 10_000, 5e6, Map.of(4, 12.5, 5, 1.0)));
        store.write("topo-1-100", new TaskTraffic(4, 1_000, 0, Map.of()));
        TrafficSnapshot fresh = store.read("topo-1-100", 10_500, 5_000);
        assertEquals(1, fresh.tasks().size(), "task 4's record ended 9.5 s ago, stale after 5 s");
        TaskTraffic t = fresh.tasks().get(0);
        assertEquals(new TaskTraffic(3, 10_000, 5e6, Map.of(4, 12.5, 5, 1.0)), t);
        assertEquals(13.5, fresh.totalTuplesPerSecond(), 1e-9);
        assertTrue(store.read("other-topology", 0, 1).isEmpty());
    }

    @Test
    void corruptRecordsAreSkippedAndTheRestStillCounts() throws Exception {
        DirectoryTrafficStore store = new DirectoryTrafficStore(dir);
        store.write("t", new TaskTraffic(1, 100, 0, Map.of(2, 3.0)));
        Path t = dir.resolve("t");
        Files.writeString(t.resolve("task-2.traffic"), "jetstream-traffic 1\ntask 2\nwindow-end-ms 100\n");
        Files.writeString(t.resolve("task-3.traffic"), "garbage");
        Files.write(t.resolve("task-4.traffic"), new byte[(int) DirectoryTrafficStore.MAX_RECORD_BYTES + 1]);
        TrafficSnapshot s = store.read("t", 100, 1_000);
        assertEquals(1, s.tasks().size());
        assertEquals(1, s.tasks().get(0).taskId());
    }

    @Test
    void formatErrorsNameTheSourceTheLineAndTheProblem() {
        CorruptTrafficRecordException e = assertThrows(CorruptTrafficRecordException.class,
                () -> TrafficRecordFormat.read("f", new BufferedReader(new StringReader(
                        "jetstream-traffic 1\ntask 2\nwindow-end-ms 5\ncpu-ns-per-s 0\nto 3 -1\n"))));
        assertEquals("corrupt traffic record f line 5: rate must be finite and >= 0: -1", e.getMessage());
        e = assertThrows(CorruptTrafficRecordException.class,
                () -> TrafficRecordFormat.read("f", new BufferedReader(new StringReader("x".repeat(10_000)))));
        assertTrue(e.getMessage().contains("line 1: line longer than 256 characters"), e.getMessage());
        e = assertThrows(CorruptTrafficRecordException.class,
                () -> TrafficRecordFormat.read("f", new BufferedReader(new StringReader(
                        "jetstream-traffic 1\ntask 2\nwindow-end-ms 5\ncpu-ns-per-s 0\nto 3 1\nto 3 2\n"))));
        assertTrue(e.getMessage().contains("target 3 named twice"), e.getMessage());
    }

    @Test
    void unsafeTopologyIdsAreRefusedAndFinishedTopologiesPruned() throws Exception {
        DirectoryTrafficStore store = new DirectoryTrafficStore(dir);
        assertThrows(IllegalArgumentException.class, () -> store.write("../etc", new TaskTraffic(1, 1, 0, Map.of())));
        store.write("live-1", new TaskTraffic(1, 1, 0, Map.of()));
        store.write("dead-1", new TaskTraffic(1, 1, 0, Map.of()));
        store.prune(Set.of("live-1"));
        assertTrue(Files.isDirectory(dir.resolve("live-1")));
        assertFalse(Files.exists(dir.resolve("dead-1")));
    }
}
