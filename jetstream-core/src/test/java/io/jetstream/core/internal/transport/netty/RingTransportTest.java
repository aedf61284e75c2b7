package io.jetstream.core.internal.transport.netty;

import static io.jetstream.core.internal.transport.netty.TransportTestSupport.await;
import static io.jetstream.core.internal.transport.netty.TransportTestSupport.record;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.internal.transport.netty.TransportTestSupport.Collector;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The contract when both ends share a host: the handshake moves the data onto the receiver's
 * shared-memory ring (acknowledgements and control stay on TCP), and what waited in the ring
 * together is acknowledged together; a best-effort stream's ring batches need no acknowledgement.
 */
class RingTransportTest extends TransportContractTest {
    @Override
    Map<String, Object> path() {
        return Map.of("transport.ring.enabled", true);
    }

    @Test
    void batchesThatPiledUpInTheRingAreAcknowledgedOncePerPoll() throws Exception {
        StalledPair p = stalledPair(Map.of("transport.reliability", "acknowledged", "batch.mode", "fixed"));
        StreamSender s = p.sender();
        Collector c = p.delivered();
        int batches = 200;
        for (int i = 0; i < batches; i++) {
            byte[] rec = record(i, 64);
            s.send(0, rec, 0, rec.length);
            s.flush(); // one batch per record
        }
        // The first delivery holds the ring thread: the other batches wait in the ring.
        await("every batch written", 10, () -> s.metrics().batchesSent() >= batches);
        p.stall().countDown();
        // The receiver counts an acknowledgement after writing it: the sender may have it first.
        await("every batch delivered and acknowledged", 30, () -> c.size() >= batches && s.batchesInFlight() == 0
                && p.receiver().metrics().acknowledgementsSent() >= 1);
        assertInOrder(c, batches);
        long acks = p.receiver().metrics().acknowledgementsSent();
        assertTrue(acks >= 1 && acks <= batches / 4, acks + " acknowledgements for " + batches
                + " batches that waited in the ring together (expected one per poll)");
        assertPath(s);
    }

    /**
     * Ring batches are delivered at once but acknowledged at most once per stream per interval
     * (unless 64 KiB are owed), in virtual time: while the receiver's clock stands still, small
     * batches delivered one at a time are not acknowledged; when it passes the interval, the idle
     * consumer acknowledges them all with one cumulative acknowledgement, with nothing more sent.
     */
    @Test
    void ringBatchesAreAcknowledgedOncePerIntervalNotPerBatch() throws Exception {
        java.util.concurrent.atomic.AtomicLong receiverClock = new java.util.concurrent.atomic.AtomicLong(1_000_000_000L);
        Map<String, Object> o = Map.of("transport.reliability", "acknowledged", "batch.mode", "fixed");
        Collector c = new Collector();
        StreamReceiver r = transport("receiver", o, receiverClock::get).bind(0, c, t -> true, SequenceStore.inMemory());
        StreamSender s = transport("sender", o).openSender("s", at(r), ControlListener.NONE);
        await("route ready", 10, s::isReady);
        long acksBefore = r.metrics().acknowledgementsSent();
        int batches = 20;
        for (int i = 0; i < batches; i++) {
            byte[] rec = record(i, 64);
            s.send(0, rec, 0, rec.length);
            s.flush(); // one batch per record
            int delivered = i + 1;
            await("batch " + i + " delivered", 10, () -> c.size() >= delivered); // one at a time: a poll each
        }
        assertEquals(acksBefore, r.metrics().acknowledgementsSent(), "acknowledgements while the interval has not passed");
        assertEquals(batches, s.batchesInFlight(), "batches the sender still holds");
        receiverClock.addAndGet(io.jetstream.core.internal.transport.inbound.RingInboundAccess.ACK_INTERVAL_NANOS);
        await("every batch acknowledged", 10, () -> s.batchesInFlight() == 0 && r.metrics().acknowledgementsSent() > acksBefore);
        assertEquals(acksBefore + 1, r.metrics().acknowledgementsSent(), "one cumulative acknowledgement for the interval");
        assertInOrder(c, batches);
        assertPath(s);
    }

    /** 64 KiB owed to one stream are acknowledged at once, whatever the interval (the sender's memory is bounded). */
    @Test
    void ringBatchesOwingManyBytesAreAcknowledgedAtOnce() throws Exception {
        java.util.concurrent.atomic.AtomicLong receiverClock = new java.util.concurrent.atomic.AtomicLong(1_000_000_000L);
        Map<String, Object> o = Map.of("transport.reliability", "acknowledged", "batch.mode", "fixed");
        Collector c = new Collector();
        StreamReceiver r = transport("receiver", o, receiverClock::get).bind(0, c, t -> true, SequenceStore.inMemory());
        StreamSender s = transport("sender", o).openSender("s", at(r), ControlListener.NONE);
        await("route ready", 10, s::isReady);
        int batches = (int) (io.jetstream.core.internal.transport.inbound.RingInboundAccess.ACK_BYTES / (8 << 10)); // with their headers, just over
        for (int i = 0; i < batches; i++) {
            byte[] rec = record(i, 8 << 10);
            s.send(0, rec, 0, rec.length);
            s.flush();
        }
        await("every batch acknowledged with the clock standing still", 10, () -> s.batchesInFlight() == 0);
        assertInOrder(c, batches);
    }

    /**
     * A best-effort stream frees its ring batches when the ring's consumer has delivered them, and its
     * receiver sends no acknowledgement for them: while the first delivery is stalled every batch is
     * still held (the consumer's head has not passed them); once delivered they are freed although
     * the producer sends nothing more and no acknowledgement came.
     */
    @Test
    void bestEffortRingBatchesAreFreedWhenTheConsumerHasDeliveredThemWithoutAcknowledgements() throws Exception {
        StalledPair p = stalledPair(Map.of("batch.mode", "fixed"));
        StreamSender s = p.sender();
        Collector c = p.delivered();
        long acksBefore = p.receiver().metrics().acknowledgementsSent();
        int batches = 50;
        for (int i = 0; i < batches; i++) {
            byte[] rec = record(i, 64);
            assertEquals(OutboundStream.ACCEPTED, s.offer(0, rec, 0, rec.length));
            s.flush(); // one batch per record
        }
        await("every batch written", 10, () -> s.metrics().batchesSent() >= batches);
        assertEquals(batches, s.batchesInFlight(), "batches held while the consumer's first delivery is stalled");
        p.stall().countDown();
        await("every batch delivered", 10, () -> c.size() >= batches);
        await("every batch freed, with nothing more sent", 10, () -> s.batchesInFlight() == 0);
        assertEquals(acksBefore, p.receiver().metrics().acknowledgementsSent(), "acknowledgements for best-effort ring batches");
        assertInOrder(c, batches);
        assertPath(s);
    }

    /**
     * A best-effort producer pushed back while the consumer is stalled (its outbox full of ring batches
     * not yet delivered) is let in again once the consumer delivers them, with no acknowledgement:
     * pushed back, not dropping, and nothing is lost.
     */
    @Test
    void bestEffortProducerPushedBackByAStalledRingResumesWhenTheConsumerDelivers() throws Exception {
        StalledPair p = stalledPair(Map.of("transport.memory-bytes", 64L << 10, "transport.send-timeout-ms", 200L,
                "batch.mode", "fixed", "batch.fixed.target-bytes", 4096));
        StreamSender s = p.sender();
        Collector c = p.delivered();
        long acksBefore = p.receiver().metrics().acknowledgementsSent();
        long accepted = offerUntilRefused(s);
        assertTrue(s.isBackPressured(), "pushed back, not dropping");
        p.stall().countDown();
        byte[] more = record(accepted, 100);
        s.send(0, more, 0, more.length); // waits until the delivered batches are freed
        s.flush();
        long total = accepted + 1;
        await(total + " records after the stall", 30, () -> c.size() >= total);
        assertInOrder(c, total);
        assertEquals(0, s.metrics().recordsDropped(), "records dropped");
        assertEquals(acksBefore, p.receiver().metrics().acknowledgementsSent(), "acknowledgements for best-effort ring batches");
        assertPath(s);
    }

    @Override
    void assertPath(StreamSender sender) {
        assertTrue(sender.peerOnSameHost(), "the handshake shows one host");
        assertEquals(sender.metrics().batchesSent(), sender.ringBatches(), "every batch went over the ring");
    }
}
