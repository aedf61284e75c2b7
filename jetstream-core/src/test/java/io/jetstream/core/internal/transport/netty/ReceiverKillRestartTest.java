package io.jetstream.core.internal.transport.netty;

import static io.jetstream.core.internal.transport.netty.TransportTestSupport.await;
import static io.jetstream.core.internal.transport.netty.TransportTestSupport.record;
import static io.jetstream.core.internal.transport.netty.TransportTestSupport.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.ControlListener;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults with real processes: the receiver is a separate JVM, killed with SIGKILL mid-stream and
 * started again on the same port. Acknowledged: every record arrives exactly once (the receiver's
 * output is its commit log). Best-effort: nothing is duplicated, the losses are counted, and the
 * sender neither hangs nor keeps anything.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReceiverKillRestartTest {
    private static final int RECORDS = 60_000;

    @TempDir
    Path dir;

    @org.junit.jupiter.params.ParameterizedTest(name = "ring {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void acknowledgedDeliveryIsExactlyOnceAcrossAKilledReceiver(boolean ring) throws Exception {
        Map<String, Long> counts = run("acknowledged", ring);
        assertEquals(RECORDS, counts.size(), "distinct records delivered");
        counts.forEach((index, n) -> assertEquals(1L, n, "deliveries of record " + index));
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "ring {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void bestEffortDeliveryCountsWhatTheKilledReceiverLost(boolean ring) throws Exception {
        Map<String, Long> counts = run("best-effort", ring);
        counts.forEach((index, n) -> assertEquals(1L, n, "deliveries of record " + index));
        assertTrue(counts.size() < RECORDS, "a killed receiver loses something in best-effort mode");
    }

    private Map<String, Long> run(String reliability, boolean ring) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path output = dir.resolve("delivered.txt");
        List<String> options = List.of("transport.reliability=" + reliability, "transport.ring.enabled=" + ring,
                "ring.directory=" + dir.resolve("rings"), "batch.mode=fixed",
                "batch.fixed.target-bytes=2048", "batch.max-event-delay-ms=5");
        Process receiver = start(port, output, options, "first");
        Map<String, Object> o = new HashMap<>();
        options.forEach(kv -> o.put(kv.split("=")[0], kv.split("=")[1]));
        try (NettyTransport t = new NettyTransport(settings(o), "sender-process")) {
            StreamSender s = t.openSender("s", new InetSocketAddress("127.0.0.1", port), ControlListener.NONE);
            await("connected", 20, s::isReady);
            for (int i = 0; i < RECORDS; i++) {
                if (i == RECORDS / 3) {
                    receiver.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    await("the sender sees the loss", 10, () -> !s.isReady());
                }
                if (i == RECORDS / 2) {
                    receiver = start(port, output, options, "second");
                }
                byte[] r = record(i, 64);
                s.send(0, r, 0, r.length);
                if (i % 100 == 0) {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(500)); // ~0.2 M records/s: the kill lands mid-stream
                }
            }
            s.flush();
            if (reliability.equals("acknowledged")) {
                await("everything acknowledged", 60, () -> s.batchesInFlight() == 0);
                assertEquals(0, s.metrics().recordsDropped());
                assertTrue(s.metrics().batchesReplayed() + s.metrics().reconnects() > 0, s.metrics().toString());
            } else {
                await("nothing left in flight", 30, () -> s.batchesInFlight() == 0);
                assertTrue(s.metrics().recordsDropped() > 0, "losses counted: " + s.metrics());
            }
            assertEquals(ring, s.ringBatches() > 0, "batches over the ring: " + s.ringBatches());
            long dropped = s.metrics().recordsDropped();
            long start = System.nanoTime();
            s.close();
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10), "close does not hang");
            Map<String, Long> counts = counts(output);
            assertTrue(counts.size() + dropped >= RECORDS,
                    counts.size() + " delivered + " + dropped + " counted as dropped < " + RECORDS + " sent");
            return counts;
        } finally {
            receiver.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static Map<String, Long> counts(Path output) throws Exception {
        Map<String, Long> counts = new HashMap<>();
        for (String line : Files.readAllLines(output)) {
            String[] f = line.split(" ");
            if (f.length == 3) {
                for (String index : f[2].split(",")) {
                    if (!index.isEmpty()) {
                        counts.merge(index, 1L, Long::sum);
                    }
                }
            }
        }
        return counts;
    }

    private Process start(int port, Path output, List<String> options, String name) throws Exception {
        List<String> args = new ArrayList<>(List.of(Integer.toString(port), output.toString()));
        args.addAll(options);
        return ChildJvm.start(ReceiverProcessMain.class, dir.resolve("receiver-" + name + ".log"), args).process;
    }
}
