package io.jetstream.core.internal.transport.netty;

import static io.jetstream.core.internal.transport.netty.TransportTestSupport.await;
import static io.jetstream.core.internal.transport.netty.TransportTestSupport.record;
import static io.jetstream.core.internal.transport.netty.TransportTestSupport.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.DeliveryHandler;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.StreamKey;
import io.jetstream.core.internal.transport.journal.JournalException;
import io.jetstream.core.internal.transport.netty.TransportTestSupport.Collector;
import io.jetstream.core.testing.LeakRecorder;
import io.jetstream.core.testing.LogCapture;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LogEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failures of one stream stay with that stream: a stream whose batch cannot be journaled while the
 * deadline flusher seals it is failed with the cause, and the other streams of the transport keep
 * flushing; a journal failure on the producer's path reaches the caller, leaks no buffer and loses
 * nothing the stream accepted. A stream that fails logs its cause once, at ERROR, naming the stream
 * and its peer, whichever side it fails on.
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

    @Test
    void aSenderStreamThatFailsLogsItsCauseOnceAtErrorNamingTheStreamAndItsPeer() throws Exception {
        Path journals = dir.resolve("journals");
        blockJournal(journals, "sender", "s");
        int port = unusedPort();
        Map<String, Object> o = Map.of("transport.reliability", "acknowledged", "transport.journal.dir", journals.toString(),
                "transport.memory-bytes", 4096L, "batch.mode", "fixed", "batch.fixed.target-bytes", 512,
                "transport.close-timeout-ms", 100L);
        try (LogCapture log = LogCapture.start()) {
            StreamSender s = transport("sender", o).openSender("s", new InetSocketAddress("127.0.0.1", port), ControlListener.NONE);
            int result = OutboundStream.ACCEPTED;
            for (long i = 0; i < 1_000 && result == OutboundStream.ACCEPTED; i++) {
                byte[] rec = record(i, 100);
                result = s.offer(0, rec, 0, rec.length);
            }
            assertEquals(OutboundStream.FAILED, result, "the journal failed: " + s.metrics());
            for (long i = 0; i < 10; i++) { // what the failed stream is asked afterwards logs nothing more
                byte[] rec = record(i, 100);
                assertEquals(OutboundStream.FAILED, s.offer(0, rec, 0, rec.length));
            }
            s.flush();
            s.close();

            List<LogEvent> errors = log.at(Level.ERROR, m -> m.contains("sender/s->"));
            assertEquals(1, errors.size(), "one ERROR for the failure; logged:\n" + log.describe());
            String message = errors.get(0).getMessage().getFormattedMessage();
            assertTrue(message.contains("127.0.0.1:" + port), "names the peer: " + message);
            assertTrue(errors.get(0).getThrown() instanceof JournalException, "carries the cause: " + errors.get(0).getThrown());
        }
    }

    @Test
    void aReceiverStreamWhoseDeliveryFailsLogsItsCauseOnceAtErrorNamingTheStreamAndItsPeer() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        DeliveryHandler failing = new DeliveryHandler() {
            @Override
            public void deliver(StreamKey stream, long sequence, DeliveryHandler.DeliveredBatch records) {
                calls.incrementAndGet();
                throw new IllegalStateException("the application's handler is broken");
            }
        };
        try (LogCapture log = LogCapture.start()) {
            StreamReceiver r = transport("receiver", Map.of("transport.ring.enabled", false))
                    .bind(0, failing, t -> true, SequenceStore.inMemory());
            StreamSender s = transport("sender", Map.of("transport.reliability", "acknowledged", "transport.ring.enabled", false,
                    "transport.close-timeout-ms", 100L))
                    .openSender("s", new InetSocketAddress("127.0.0.1", r.localAddress().getPort()), ControlListener.NONE);
            await("sender ready", 10, s::isReady);
            byte[] rec = record(0, 100);
            assertEquals(OutboundStream.ACCEPTED, s.offer(0, rec, 0, rec.length));
            s.flush();
            // The sender resends the unacknowledged batch after each reconnection: the handler fails again.
            await("the handler failed twice", 10, () -> calls.get() >= 2);
            await("the failures were logged", 10,
                    () -> log.events().stream().filter(e -> e.getThrown() != null || e.getMessage().getFormattedMessage()
                            .contains("failed again")).count() >= 2, log::describe);
            List<LogEvent> errors = log.at(Level.ERROR, m -> m.contains("sender/s#"));
            assertEquals(1, errors.size(), "one ERROR for the stream's failure; logged:\n" + log.describe());
            assertTrue(errors.get(0).getThrown() instanceof IllegalStateException, "carries the cause: " + errors.get(0).getThrown());
            assertTrue(errors.get(0).getMessage().getFormattedMessage().contains("127.0.0.1:"), "names the peer: "
                    + errors.get(0).getMessage().getFormattedMessage());
            s.close();
        }
    }
}
