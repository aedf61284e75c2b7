package io.jetstream.core.internal.transport.outbound;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.TransportOptions.Reliability;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.core.internal.metrics.SenderCounters;
import io.jetstream.core.internal.qos.ChannelMeasurements;
import io.jetstream.core.internal.transport.journal.JournalException;
import io.jetstream.core.internal.transport.journal.StreamJournal;
import io.jetstream.core.model.BatchController;
import io.jetstream.core.model.BatchListener;
import io.jetstream.core.model.FlushPolicy;
import io.jetstream.core.testing.LogCapture;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LogEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The record path of a stream, in virtual time: a record in the middle of a batch reads no clock,
 * whatever the stream measures (adaptive control, producer load, a latency constraint); and a
 * failure of the outbox that no caller can be told of (reading spilled batches back, on the thread
 * of an acknowledgement) fails the stream, logged once at ERROR, instead of being thrown.
 */
class RecordPathTest {
    private static final byte[] RECORD = new byte[64];
    private final AtomicLong time = new AtomicLong(1_000_000_000L);
    private final List<OutboundBatch> written = new ArrayList<>();
    private Outbox outbox;
    private RecordAccumulator accumulator;

    /** A route that takes every batch. */
    private final Route route = new Route() {
        @Override
        public int index() {
            return 0;
        }

        @Override
        public int write(OutboundBatch batch) {
            written.add(batch);
            return WRITTEN;
        }

        @Override
        public void probe(long id, int bytes) {}

        @Override
        public String kind() {
            return "test";
        }
    };

    @AfterEach
    void close() {
        if (accumulator != null) {
            accumulator.close();
        }
        if (outbox != null) {
            outbox.close("test over");
        }
    }

    private static TransportSettings settings(Map<String, Object> options) {
        return TransportSettings.from(JetStreamConfig.load(ConfigScope.STORM, options, TransportSettings.GROUPS));
    }

    private RecordAccumulator accumulator(TransportSettings settings, FlushPolicy policy, BatchController controller,
            ChannelMeasurements qos, StreamJournal journal, LongSupplier accumulatorClock) {
        SenderCounters metrics = new SenderCounters();
        outbox = Outbox.builder("test->peer")
                .reliability(settings.reliability())
                .limits(settings.windowBytes(), settings.memoryBytes(), settings.maxFrameBytes(), settings.batch().maxEventDelayNanos())
                .clock(time::get)
                .alloc(UnpooledByteBufAllocator.DEFAULT)
                .metrics(metrics)
                .batching(policy, controller)
                .journal(journal)
                .build();
        accumulator = new RecordAccumulator(settings.maxFrameBytes(), true, UnpooledByteBufAllocator.DEFAULT, accumulatorClock,
                System::currentTimeMillis, policy, controller, qos, metrics, outbox, at -> {});
        outbox.setDrainListener(accumulator);
        outbox.setStreamFailure(accumulator);
        return accumulator;
    }

    @Test
    void aRecordInTheMiddleOfABatchReadsNoClockWhateverTheStreamMeasures() {
        TransportSettings settings = settings(Map.of("jetstream.transport.reliability", "best-effort"));
        FlushPolicy policy = settings.batch().newFlushPolicy();
        BatchController controller = settings.batch().newController(policy, 2, BatchListener.NONE);
        AtomicLong reads = new AtomicLong();
        RecordAccumulator a = accumulator(settings, policy, controller, new ChannelMeasurements("test", 1_000_000L),
                null, () -> {
                    reads.incrementAndGet();
                    return time.get();
                });
        outbox.onRouteReady(route, 0);
        int records = 6_400;
        long midBatchOffers = 0;
        long midBatchReads = 0;
        for (int i = 0; i < records; i++) {
            long readsBefore = reads.get();
            int sealedBefore = written.size();
            int pendingBefore = policy.pendingRecords();
            assertEquals(OutboundStream.ACCEPTED, a.offer(0, RECORD, 0, RECORD.length));
            if (pendingBefore > 0 && written.size() == sealedBefore && policy.pendingRecords() == pendingBefore + 1) {
                midBatchOffers++; // neither opened nor sealed a batch
                midBatchReads += reads.get() - readsBefore;
            }
            time.addAndGet(10_000); // 10 µs a record: tags fall due, the load window passes, the controller decides
        }
        assertTrue(midBatchOffers >= 100, "records in the middle of batches: " + midBatchOffers + " (" + written.size()
                + " batches sealed)");
        // Only the load sample reads the clock there: twice (entry and exit) in one offer in 64.
        // A clock read per record would make it at least one per such offer.
        long allowed = 2L * (records / ProducerLoadSampler.SAMPLE_EVERY + 1);
        assertTrue(midBatchReads <= allowed, midBatchReads + " clock readings in " + midBatchOffers
                + " offers in the middle of a batch; at most " + allowed);
    }

    /** A journal whose spilled batches cannot be read back. */
    private static final class UnreadableJournal implements StreamJournal {
        long spilled;

        @Override
        public boolean writesAhead() {
            return false;
        }

        @Override
        public boolean hasRoomFor(int bytes) {
            return true;
        }

        @Override
        public void append(ByteBuf frame, long sequence, boolean spill) {
            if (spill) {
                spilled++;
            }
        }

        @Override
        public ByteBuf pollSpilled(ByteBufAllocator alloc) {
            throw new JournalException(Path.of("/nonexistent/journal"), "read", new java.io.IOException("the disk went away"));
        }

        @Override
        public long spilledFrames() {
            return spilled;
        }

        @Override
        public void acknowledged(long sequence) {}

        @Override
        public void close() {}
    }

    @Test
    void aJournalThatCannotBeReadBackFailsTheStreamOnceAndIsNotThrownToTheAcknowledgingThread() {
        TransportSettings settings = settings(Map.of("jetstream.transport.reliability", "acknowledged",
                "jetstream.transport.memory-bytes", 4096L, "jetstream.batch.mode", "fixed"));
        FlushPolicy policy = settings.batch().newFlushPolicy();
        UnreadableJournal journal = new UnreadableJournal();
        RecordAccumulator a = accumulator(settings, policy, null, null, journal, time::get);
        // No route yet: batches fill memory, then spill.
        for (int i = 0; i < 200 && journal.spilled == 0; i++) {
            assertEquals(OutboundStream.ACCEPTED, a.offer(0, RECORD, 0, RECORD.length));
            assertEquals(OutboundStream.ACCEPTED, a.flush());
        }
        assertTrue(journal.spilled > 0, "batches spilled");

        try (LogCapture log = LogCapture.start()) {
            assertDoesNotThrow(() -> outbox.onRouteReady(route, 0));
            assertTrue(!written.isEmpty(), "memory's batches went out");
            long last = written.get(written.size() - 1).sequence;
            // The acknowledgement frees memory: the spilled batches are read back, and that fails.
            assertDoesNotThrow(() -> outbox.onAck(last), "an I/O thread is not the place for the journal's failure");
            assertTrue(a.failure().orElseThrow() instanceof JournalException, a.failure().toString());
            assertEquals(OutboundStream.FAILED, a.offer(0, RECORD, 0, RECORD.length), "the failed stream takes no more");
            assertDoesNotThrow(() -> outbox.onAck(last)); // moving the outbox again neither throws nor logs again

            List<LogEvent> errors = log.at(Level.ERROR, m -> m.contains("test->peer"));
            assertEquals(1, errors.size(), "one ERROR for the failure; logged:\n" + log.describe());
            assertTrue(errors.get(0).getThrown() instanceof JournalException, String.valueOf(errors.get(0).getThrown()));
            assertTrue(errors.get(0).getMessage().getFormattedMessage().contains("spilled"),
                    errors.get(0).getMessage().getFormattedMessage());
        }
    }

    @Test
    void aJournalThatFailsWhileAClosedStreamDrainsIsLoggedOnceToo() {
        TransportSettings settings = settings(Map.of("jetstream.transport.reliability", "acknowledged",
                "jetstream.transport.memory-bytes", 4096L, "jetstream.batch.mode", "fixed"));
        UnreadableJournal journal = new UnreadableJournal();
        RecordAccumulator a = accumulator(settings, settings.batch().newFlushPolicy(), null, null, journal, time::get);
        for (int i = 0; i < 200 && journal.spilled == 0; i++) {
            a.offer(0, RECORD, 0, RECORD.length);
            a.flush();
        }
        assertTrue(journal.spilled > 0, "batches spilled");
        a.close(); // the producer is done; the outbox still drains what was sealed

        try (LogCapture log = LogCapture.start()) {
            assertDoesNotThrow(() -> outbox.onRouteReady(route, 0));
            long last = written.get(written.size() - 1).sequence;
            assertDoesNotThrow(() -> outbox.onAck(last));
            assertTrue(a.failure().orElseThrow() instanceof JournalException, a.failure().toString());
            List<LogEvent> errors = log.at(Level.ERROR, m -> m.contains("test->peer"));
            assertEquals(1, errors.size(), "one ERROR for the failure; logged:\n" + log.describe());
            assertTrue(errors.get(0).getThrown() instanceof JournalException, String.valueOf(errors.get(0).getThrown()));
        }
    }
}
