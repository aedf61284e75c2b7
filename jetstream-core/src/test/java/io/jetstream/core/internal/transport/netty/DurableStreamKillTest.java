package io.jetstream.core.internal.transport.netty;

import static io.jetstream.core.internal.transport.netty.TransportTestSupport.await;
import static io.jetstream.core.internal.transport.netty.TransportTestSupport.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.JournalRuntime;
import io.jetstream.core.api.SequenceStore;
import java.net.ServerSocket;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durable delivery with real processes and SIGKILL: a durable sender killed mid-stream and started
 * again (same peer and stream id, same journal) resumes its incarnation, replays what its receiver
 * had not acknowledged, and its application resumes after the last record the journal holds — 0
 * records lost, 0 duplicated. Then the same with the receiver killed too, its delivered output
 * being its commit log.
 */
@Tag("journal")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DurableStreamKillTest {
    private static final long RECORDS = 60_000;
    private static final String PAUSE_MICROS = "300"; // about 0.3 M records/s: the kills land mid-stream

    @TempDir
    Path dir;

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private ChildJvm sender(int port, String name) throws Exception {
        return ChildJvm.start(JournalRuntime.launcherFlags(), SenderProcessMain.class, dir.resolve("sender-" + name + ".log"),
                List.of(Integer.toString(port), dir.resolve("journal").toString(), Long.toString(RECORDS), PAUSE_MICROS,
                        "ring.directory=" + dir.resolve("rings"), "batch.mode=fixed", "batch.fixed.target-bytes=2048",
                        "batch.max-event-delay-ms=5"));
    }

    @Test
    void aKilledDurableSenderRestartsAndNothingIsLostOrDuplicated() throws Exception {
        Map<Long, Integer> counts = new ConcurrentHashMap<>();
        Map<String, Object> o = new HashMap<>(Map.of("transport.reliability", "acknowledged", "ring.directory",
                dir.resolve("rings").toString()));
        try (NettyTransport receiving = new NettyTransport(settings(o), "receiver")) {
            StreamReceiver r = receiving.bind(0, (stream, sequence, records) -> records.forEach((target, buffer, offset, length) ->
                    counts.merge(buffer.getLong(offset, ByteOrder.BIG_ENDIAN), 1, Integer::sum)), t -> true, SequenceStore.inMemory());
            int port = r.localAddress().getPort();
            ChildJvm first = sender(port, "first");
            assertEquals("0", first.ready, "a new journal starts at record 0");
            await("a third of the records", 60, () -> counts.size() >= RECORDS / 3);
            first.kill();
            ChildJvm second = sender(port, "second");
            long resumedAt = Long.parseLong(second.ready);
            assertTrue(resumedAt > 0 && resumedAt < RECORDS, "resumes after the journal's last record: " + resumedAt);
            assertEquals(0, second.awaitExit(120), "the restarted sender finished:\n" + second.log());
            await("every record", 30, () -> counts.size() >= RECORDS);
            assertExactlyOnce(counts);
            assertTrue(second.log().contains("resumes incarnation"), "the restarted sender resumed its incarnation");
        }
    }

    @Test
    void aKilledReceiverAndAKilledSenderRestartAndNothingIsLostOrDuplicated() throws Exception {
        int port = freePort();
        Path output = dir.resolve("delivered.txt");
        List<String> receiverArgs = List.of(Integer.toString(port), output.toString(), "transport.reliability=acknowledged",
                "ring.directory=" + dir.resolve("rings"));
        ChildJvm receiver = ChildJvm.start(ReceiverProcessMain.class, dir.resolve("receiver-first.log"), receiverArgs);
        ChildJvm sender = sender(port, "first");
        try {
            await("a third of the records", 60, () -> lines(output) >= RECORDS / 3 / 30);
            receiver.kill();
            sender.kill();
            receiver = ChildJvm.start(ReceiverProcessMain.class, dir.resolve("receiver-second.log"), receiverArgs);
            sender = sender(port, "second");
            assertEquals(0, sender.awaitExit(120), "the restarted sender finished:\n" + sender.log());
        } finally {
            receiver.kill();
            sender.kill();
        }
        Map<Long, Integer> counts = new HashMap<>();
        for (String line : Files.readAllLines(output)) {
            String[] f = line.split(" ");
            if (f.length == 3) {
                for (String index : f[2].split(",")) {
                    if (!index.isEmpty()) {
                        counts.merge(Long.parseLong(index), 1, Integer::sum);
                    }
                }
            }
        }
        assertExactlyOnce(counts);
    }

    private static long lines(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file).size() : 0;
        } catch (java.io.IOException e) {
            return 0;
        }
    }

    private static void assertExactlyOnce(Map<Long, Integer> counts) {
        long lost = 0;
        long duplicated = 0;
        for (long i = 0; i < RECORDS; i++) {
            int n = counts.getOrDefault(i, 0);
            lost += n == 0 ? 1 : 0;
            duplicated += Math.max(0, n - 1);
        }
        assertEquals(0, lost, "records lost");
        assertEquals(0, duplicated, "records duplicated");
        assertEquals(RECORDS, counts.size(), "no record outside 0.." + (RECORDS - 1));
    }
}
