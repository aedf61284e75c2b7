package io.jetstream.core.internal.transport.outbound;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.TransportOptions.Reliability;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.core.internal.metrics.SenderCounters;
import io.jetstream.core.model.BatchController;
import io.jetstream.core.model.BatchListener;
import io.jetstream.core.model.FlushPolicy;
import io.jetstream.core.model.ThroughputCurve;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The end-of-send hint in adaptive mode, in virtual time: the open batch leaves at once when the
 * link is observed idle (nothing waiting in the outbox, a route with nothing queued), even when the
 * controller's model, fitted on a slow or busy link, predicts the link still busy; it keeps filling
 * while a route really has bytes queued. A stock transport flushes at the end of every send: a
 * sender that holds a batch while its link is idle only adds delay.
 */
class EndOfSendTest {
    private static final byte[] RECORD = new byte[64];
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final List<OutboundBatch> written = new ArrayList<>();
    private final FakeRoute route = new FakeRoute();
    private Outbox outbox;
    private RecordAccumulator accumulator;

    /** A TCP-like route: takes every batch; reports what the test says is queued in front of the socket. */
    private final class FakeRoute implements Route {
        volatile long queued;

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
        public long queuedBytes() {
            return queued;
        }

        @Override
        public String kind() {
            return "test";
        }
    }

    @AfterEach
    void close() {
        if (accumulator != null) {
            accumulator.close(); // an open batch's frame goes back too
        }
        if (outbox != null) {
            outbox.close("test over");
        }
    }

    private RecordAccumulator accumulator(FlushPolicy policy, BatchController controller) {
        TransportSettings settings = TransportSettings.from(JetStreamConfig.load(ConfigScope.STORM,
                Map.of("jetstream.transport.reliability", "best-effort"), TransportSettings.GROUPS));
        SenderCounters metrics = new SenderCounters();
        outbox = Outbox.builder("test")
                .reliability(Reliability.BEST_EFFORT)
                .limits(settings.windowBytes(), settings.memoryBytes(), settings.maxFrameBytes(), settings.batch().maxEventDelayNanos())
                .clock(clock::get)
                .alloc(UnpooledByteBufAllocator.DEFAULT)
                .metrics(metrics)
                .batching(policy, controller)
                .build();
        RecordAccumulator accumulator = new RecordAccumulator(settings.maxFrameBytes(), true, UnpooledByteBufAllocator.DEFAULT,
                clock::get, System::currentTimeMillis, policy, controller, null, metrics, outbox, at -> {});
        outbox.setDrainListener(accumulator);
        outbox.setStreamFailure(accumulator);
        outbox.onRouteReady(route, 0);
        this.accumulator = accumulator;
        return accumulator;
    }

    /** A controller whose fitted link takes 20 ms per send, just told that a batch went out: busy for 20 ms by its model. */
    private static BatchController slowLinkJustUsed(FlushPolicy policy, long now) {
        TransportSettings settings = TransportSettings.from(JetStreamConfig.load(ConfigScope.STORM, Map.of(), TransportSettings.GROUPS));
        BatchController controller = settings.batch().newController(policy, 2, BatchListener.NONE);
        for (int i = 0; i < 16; i++) {
            controller.onTransfer(100, 0.020);
            controller.onTransfer(10_000, 0.021);
        }
        ThroughputCurve link = controller.monitor().link(null);
        assertTrue(link != null && link.transferSeconds(100) > 0.01, "a slow link fitted: " + link);
        controller.onSent(controller.wireBytes(100), now);
        assertTrue(!controller.linkIdle(now + 1_000_000), "the model believes the link busy");
        return controller;
    }

    private static FlushPolicy policy() {
        return TransportSettings.from(JetStreamConfig.load(ConfigScope.STORM, Map.of(), TransportSettings.GROUPS)).batch().newFlushPolicy();
    }

    /** The flush policy as a decision for heavy traffic leaves it: batches of 32 KiB, at most 100 ms old. */
    private static void heavyTrafficTargets(FlushPolicy policy) {
        policy.setTargets(32 << 10, 100_000_000L);
    }

    private static String reasons(FlushPolicy policy) {
        StringBuilder b = new StringBuilder();
        for (FlushPolicy.Reason r : FlushPolicy.Reason.values()) {
            b.append(r).append('=').append(policy.flushes(r)).append(' ');
        }
        return b + "target " + policy.targetBytes();
    }

    @Test
    void anIdleLinkTakesTheBatchAtTheEndOfASendWhateverTheModelPredicts() {
        FlushPolicy policy = policy();
        RecordAccumulator accumulator = accumulator(policy, slowLinkJustUsed(policy, clock.get()));
        heavyTrafficTargets(policy);
        clock.addAndGet(1_000_000); // 1 ms later: the model says busy for 19 ms more

        assertEquals(OutboundStream.ACCEPTED, accumulator.offer(0, RECORD, 0, RECORD.length));
        accumulator.endOfSend();

        assertEquals(1, policy.flushes(FlushPolicy.Reason.END_OF_SEND), () -> "sealed at the end of the send: " + reasons(policy));
        assertEquals(1, written.size(), "and written to the idle route at once");
    }

    @Test
    void aRouteWithBytesQueuedLetsTheBatchFill() {
        FlushPolicy policy = policy();
        RecordAccumulator accumulator = accumulator(policy, slowLinkJustUsed(policy, clock.get()));
        heavyTrafficTargets(policy);
        clock.addAndGet(1_000_000);
        route.queued = 64 << 10; // the socket is not keeping up

        assertEquals(OutboundStream.ACCEPTED, accumulator.offer(0, RECORD, 0, RECORD.length));
        accumulator.endOfSend();

        assertEquals(0, policy.flushes(FlushPolicy.Reason.END_OF_SEND), "the batch keeps filling while the link is busy");
        assertEquals(0, written.size(), () -> reasons(policy));
        assertEquals(1, policy.pendingRecords());
    }

    @Test
    void theRecordsOfOneSendTravelInOneBatchWhenTheyPassTheTarget() {
        FlushPolicy policy = policy();
        RecordAccumulator accumulator = accumulator(policy, slowLinkJustUsed(policy, clock.get()));
        policy.setTargets(3 * RECORD.length, 100_000_000L); // a small target: a few records
        clock.addAndGet(1_000_000);
        route.queued = 64 << 10; // the link is busy: only the size target may seal

        accumulator.offer(0, RECORD, 0, RECORD.length);
        accumulator.endOfSend(); // the producer hands over its records in sends
        assertEquals(0, written.size(), () -> "below the target, the batch keeps filling: " + reasons(policy));

        for (int i = 0; i < 40; i++) {
            assertEquals(OutboundStream.ACCEPTED, accumulator.offer(0, RECORD, 0, RECORD.length));
        }
        assertEquals(0, written.size(), () -> "nothing sealed within the send: " + reasons(policy));
        accumulator.endOfSend();
        assertEquals(1, policy.flushes(FlushPolicy.Reason.SIZE), () -> reasons(policy));
        assertEquals(41, written.get(written.size() - 1).records(), "the send's records and the one before, in one batch");
    }

    @Test
    void aProducerThatNeverEndsASendIsSealedAtTheTargetAsItsRecordsCome() {
        FlushPolicy policy = policy();
        RecordAccumulator accumulator = accumulator(policy, slowLinkJustUsed(policy, clock.get()));
        policy.setTargets(3 * RECORD.length, 100_000_000L);
        clock.addAndGet(1_000_000);
        route.queued = 64 << 10;

        for (int i = 0; i < 40; i++) {
            accumulator.offer(0, RECORD, 0, RECORD.length);
        }
        // 40 records of 64 B are several times any target the controller sets for them.
        assertTrue(policy.flushes(FlushPolicy.Reason.SIZE) >= 2, () -> "sealed at the target: " + reasons(policy));
        assertEquals(policy.flushes(FlushPolicy.Reason.SIZE), written.size(), "each sealed as its records came");
    }

    /**
     * A producer that hands its records over in bursts (a Storm transfer thread: 40 tuples within
     * 8 µs, then 2 ms of nothing) and ends its sends: the controller is fed once per send, and sees
     * the rate the sends make (20,000 records/s), not a step up at every burst and a step down after
     * it. In one second of virtual time it decides about once per decision interval (50 ms), not at
     * every early-reaction window (5 ms).
     */
    @Test
    void burstsOfSendsAreDecidedOnAtTheirRateNotAtEveryBurst() {
        FlushPolicy policy = policy();
        TransportSettings settings = TransportSettings.from(JetStreamConfig.load(ConfigScope.STORM, Map.of(), TransportSettings.GROUPS));
        AtomicLong decisions = new AtomicLong();
        BatchController controller = settings.batch().newController(policy, 2, d -> decisions.incrementAndGet());
        RecordAccumulator accumulator = accumulator(policy, controller);
        for (int i = 0; i < 16; i++) { // a fitted link: decisions are taken from the first events on
            controller.onTransfer(100, 0.000_05);
            controller.onTransfer(10_000, 0.000_2);
        }
        long end = clock.get() + 1_000_000_000L;
        long sends = 0;
        while (clock.get() - end < 0) {
            for (int i = 0; i < 40; i++) {
                assertEquals(OutboundStream.ACCEPTED, accumulator.offer(0, RECORD, 0, RECORD.length));
                clock.addAndGet(200);
            }
            accumulator.endOfSend();
            sends++;
            clock.addAndGet(2_000_000);
        }
        long d = decisions.get();
        assertTrue(sends > 400, sends + " sends");
        assertTrue(d >= 10 && d <= 40, d + " decisions in one second of sends in bursts (about one per 50 ms interval expected)");
    }
}
