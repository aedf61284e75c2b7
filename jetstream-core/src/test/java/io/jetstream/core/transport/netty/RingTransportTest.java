package io.jetstream.core.transport.netty;

import static io.jetstream.core.transport.netty.TransportTestSupport.await;
import static io.jetstream.core.transport.netty.TransportTestSupport.record;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.transport.ControlListener;
import io.jetstream.core.transport.SequenceStore;
import io.jetstream.core.transport.netty.TransportTestSupport.Collector;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * The contract when both ends share a host: the handshake moves the data onto the receiver's
 * shared-memory ring (acknowledgements and control stay on TCP), and what waited in the ring
 * together is acknowledged together.
 */
class RingTransportTest extends TransportContractTest {
    @Override
    Map<String, Object> path() {
        return Map.of("transport.ring.enabled", true);
    }

    @Test
    void batchesThatPiledUpInTheRingAreAcknowledgedOncePerPoll() throws Exception {
        Map<String, Object> o = Map.of("transport.reliability", "acknowledged", "batch.mode", "fixed");
        CountDownLatch stall = new CountDownLatch(1);
        Collector c = stalledUntil(stall);
        StreamReceiver r = transport("receiver", o).bind(0, c, t -> true, SequenceStore.inMemory());
        StreamSender s = transport("sender", o).openSender("s", at(r), ControlListener.NONE);
        await("route ready", 10, s::isReady);
        int batches = 200;
        for (int i = 0; i < batches; i++) {
            byte[] rec = record(i, 64);
            s.send(0, rec, 0, rec.length);
            s.flush(); // one batch per record
        }
        // The first delivery holds the ring thread: the other batches wait in the ring.
        await("every batch written", 10, () -> s.metrics().batchesSent() >= batches);
        stall.countDown();
        await("every batch delivered and acknowledged", 30, () -> c.size() >= batches && s.unacknowledgedBatches() == 0);
        assertInOrder(c, batches);
        long acks = r.metrics().acknowledgementsSent();
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
        assertEquals(batches, s.unacknowledgedBatches(), "batches the sender still holds");
        receiverClock.addAndGet(io.jetstream.core.transport.inbound.RingInboundAccess.ACK_INTERVAL_NANOS);
        await("every batch acknowledged", 10, () -> s.unacknowledgedBatches() == 0);
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
        int batches = (int) (io.jetstream.core.transport.inbound.RingInboundAccess.ACK_BYTES / (8 << 10)); // with their headers, just over
        for (int i = 0; i < batches; i++) {
            byte[] rec = record(i, 8 << 10);
            s.send(0, rec, 0, rec.length);
            s.flush();
        }
        await("every batch acknowledged with the clock standing still", 10, () -> s.unacknowledgedBatches() == 0);
        assertInOrder(c, batches);
    }

    @Override
    void assertPath(StreamSender sender) {
        assertTrue(sender.peerOnSameHost(), "the handshake shows one host");
        assertEquals(sender.metrics().batchesSent(), sender.ringBatches(), "every batch went over the ring");
    }
}
