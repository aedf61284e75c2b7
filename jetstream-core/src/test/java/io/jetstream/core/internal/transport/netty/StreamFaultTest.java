package io.jetstream.core.internal.transport.netty;

import static io.jetstream.core.internal.transport.netty.TransportTestSupport.await;
import static io.jetstream.core.internal.transport.netty.TransportTestSupport.record;
import static io.jetstream.core.internal.transport.netty.TransportTestSupport.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.internal.transport.journal.JournalException;
import io.jetstream.core.internal.transport.netty.TransportTestSupport.Collector;
import io.jetstream.core.testing.LeakRecorder;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failures of one stream stay with that stream: a stream whose batch cannot be journaled while the
 * deadline flusher seals it is failed with the cause, and the other streams of the transport keep
 * flushing; a journal failure on the producer's path reaches the caller, leaks no buffer and loses
 * nothing the stream accepted.
 */
@Tag("journal")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StreamFaultTest {
    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private NettyTransport transport(String peer, Map<String, ?> options) {
        NettyTransport t = new NettyTransport(settings(options), peer);
        open.add(t);
        return t;
    }

    private static int unusedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** A regular file where the stream's journal directory should be: the journal cannot be created. */
    private Path blockJournal(Path journals, String peer, String stream) throws Exception {
        Files.createDirectories(journals);
        return Files.writeString(journals.resolve(peer + "-" + stream), "not a directory");
    }

    @Test
    void aStreamFailingInTheDeadlineFlusherFailsAloneAndTheOthersKeepFlushing() throws Exception {
        LeakRecorder.reset();
        Path journals = dir.resolve("journals");
        Path blocked = blockJournal(journals, "sender", "broken");
        Map<String, Object> o = Map.of("transport.reliability", "acknowledged", "transport.journal.dir", journals.toString(),
                "transport.memory-bytes", 1024L, "batch.mode", "fixed", "batch.fixed.target-bytes", 1 << 20,
                "batch.max-event-delay-ms", 10L);
        Collector c = new Collector();
        StreamReceiver r = transport("receiver", Map.of()).bind(0, c, t -> true, SequenceStore.inMemory());
        NettyTransport sending = transport("sender", o);
        StreamSender healthy = sending.openSender("healthy", new InetSocketAddress("127.0.0.1", r.localAddress().getPort()),
                ControlListener.NONE);
        // Nobody listens for "broken": what it seals stays unacknowledged and spills at once.
        StreamSender broken = sending.openSender("broken", new InetSocketAddress("127.0.0.1", unusedPort()), ControlListener.NONE);
        await("healthy ready", 10, healthy::isReady);
        for (int i = 0; i < 30; i++) {
            byte[] rec = record(i, 100);
            assertEquals(OutboundStream.ACCEPTED, broken.offer(0, rec, 0, rec.length));
        }
        // Only the deadline flusher seals it (its target is 1 MiB): the spill fails on the flusher's thread.
        await("the broken stream failed", 10, () -> broken.failure().isPresent());
        Throwable cause = broken.failure().get();
        assertTrue(cause instanceof JournalException && cause.getMessage().contains(blocked.toString()), cause.toString());
        byte[] more = record(30, 100);
        assertEquals(OutboundStream.FAILED, broken.offer(0, more, 0, more.length), "a failed stream takes no more");

        for (int i = 0; i < 50; i++) {
            byte[] rec = record(i, 100);
            assertEquals(OutboundStream.ACCEPTED, healthy.offer(1, rec, 0, rec.length));
        }
        // No flush: only the deadline flusher, which must still be running, makes these leave.
        await("the healthy stream's records, flushed by their deadline", 10, () -> c.size() == 50);
        assertEquals(0, healthy.metrics().recordsDropped());
        broken.close();
        healthy.close();
        LeakRecorder.assertNoLeaks();
    }

    @Test
    void aJournalFailureReachesTheCallerLeaksNothingAndLosesNothingAccepted() throws Exception {
        LeakRecorder.reset();
        Path journals = dir.resolve("journals");
        blockJournal(journals, "sender", "s");
        int port = unusedPort();
        Map<String, Object> o = Map.of("transport.reliability", "acknowledged", "transport.journal.dir", journals.toString(),
                "transport.memory-bytes", 4096L, "batch.mode", "fixed", "batch.fixed.target-bytes", 512,
                "transport.close-timeout-ms", 10_000L);
        StreamSender s = transport("sender", o).openSender("s", new InetSocketAddress("127.0.0.1", port), ControlListener.NONE);
        List<Long> accepted = new ArrayList<>();
        int result = OutboundStream.ACCEPTED;
        for (long i = 0; i < 1_000 && result == OutboundStream.ACCEPTED; i++) {
            byte[] rec = record(i, 100);
            result = s.offer(0, rec, 0, rec.length);
            if (result == OutboundStream.ACCEPTED) {
                accepted.add(i);
            }
        }
        if (result == OutboundStream.ACCEPTED) {
            byte[] rec = record(accepted.size(), 100);
            result = s.offer(0, rec, 0, rec.length);
        }
        assertEquals(OutboundStream.FAILED, result, "the offer after the failure says so");
        assertTrue(s.failure().orElseThrow() instanceof JournalException, s.failure().toString());
        assertTrue(accepted.size() > 4096 / 108, "more was accepted than memory holds: the spill was tried");

        // What was accepted is still delivered once a receiver appears.
        Collector c = new Collector();
        StreamReceiver r = transport("receiver", Map.of()).bind(port, c, t -> true, SequenceStore.inMemory());
        await("every accepted record", 20, () -> c.size() >= accepted.size(),
                () -> c.size() + " of " + accepted.size() + " delivered; " + s.metrics());
        assertEquals(accepted, c.indexes(), "exactly the accepted records, once, in order");
        assertEquals(accepted.size(), new HashSet<>(c.indexes()).size());
        s.close();
        r.close();
        LeakRecorder.assertNoLeaks();
    }
}
