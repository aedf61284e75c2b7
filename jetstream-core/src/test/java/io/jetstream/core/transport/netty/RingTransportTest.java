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

    @Override
    void assertPath(StreamSender sender) {
        assertTrue(sender.peerOnSameHost(), "the handshake shows one host");
        assertEquals(sender.metrics().batchesSent(), sender.ringBatches(), "every batch went over the ring");
    }
}
