package io.jetstream.core.internal.transport.inbound;

import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.FLAG_ACKNOWLEDGED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.TransportOptions.Ordering;
import io.jetstream.core.internal.metrics.ReceiverCounters;
import io.jetstream.core.internal.transport.protocol.Frames;
import io.jetstream.core.internal.transport.protocol.ProtocolException;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The admission rules of a receiver's streams, in virtual time: the stream limit holds under
 * concurrent HELLOs, closed and idle streams are forgotten (their watermark kept in the sequence
 * store), and an unauthenticated HELLO can neither skip a live stream's sequences nor replace its
 * incarnation, while an authenticated one can.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StreamRegistryTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final ReceiverCounters metrics = new ReceiverCounters();
    private final SequenceStore store = SequenceStore.inMemory();

    private StreamRegistry registry(int maxStreams) {
        return new StreamRegistry((stream, sequence, records) -> { }, store, metrics, Ordering.STRICT, maxStreams, 1 << 20,
                TimeUnit.SECONDS.toNanos(60), now::get, System::currentTimeMillis, PooledByteBufAllocator.DEFAULT);
    }

    private static Frames.Hello hello(String peer, long epoch, long first) {
        return new Frames.Hello(FLAG_ACKNOWLEDGED, epoch, first, 0, 1, peer, "s", new byte[16], new byte[16], new byte[0],
                new byte[0]);
    }

    /** A connection whose liveness the test sets. */
    private static final class Connection implements InboundConnection {
        volatile boolean active = true;
        final List<String> closed = new ArrayList<>();

        @Override
        public void acknowledge(long watermark) {}

        @Override
        public void reportLatency(long nanos) {}

        @Override
        public void ringFailed(long watermark, String reason) {}

        @Override
        public synchronized void close(String reason) {
            closed.add(reason);
            active = false;
        }

        @Override
        public boolean isActive() {
            return active;
        }
    }

    @Test
    void theStreamLimitHoldsUnderConcurrentHellos() throws Exception {
        StreamRegistry r = registry(10);
        int threads = 8;
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 25; i++) {
                    try {
                        r.admit(hello("peer-" + id + "-" + i, 1, 1), false, new Connection(), false);
                        admitted.incrementAndGet();
                    } catch (ProtocolException e) {
                        refused.incrementAndGet();
                    }
                }
            });
            thread.start();
            all.add(thread);
        }
        start.countDown();
        for (Thread t : all) {
            t.join(10_000);
        }
        assertEquals(10, admitted.get(), "exactly the limit was admitted");
        assertEquals(10, r.size());
        assertEquals(threads * 25 - 10, refused.get());
        assertEquals(threads * 25 - 10, metrics.hellosRefused());
    }

    @Test
    void closedStreamsAreForgottenAtOnceAndIdleOnesAfterTheTimeout() {
        StreamRegistry r = registry(100);
        Connection closing = new Connection();
        InboundStream a = r.admit(hello("a", 1, 1), false, closing, false).stream();
        Connection idle = new Connection();
        InboundStream b = r.admit(hello("b", 1, 1), false, idle, false).stream();
        store.delivered(b.key(), 41);

        a.onClose();
        closing.active = false;
        r.onRouteClosed(a, closing);
        assertEquals(1, r.size(), "a stream its sender closed is forgotten once its routes are gone");

        idle.active = false;
        r.onRouteClosed(b, idle);
        assertEquals(1, r.size(), "an idle stream is kept for the idle timeout");
        now.addAndGet(TimeUnit.SECONDS.toNanos(59));
        assertEquals(0, r.prune());
        now.addAndGet(TimeUnit.SECONDS.toNanos(2));
        assertEquals(1, r.prune());
        assertEquals(0, r.size());
        assertEquals(41, r.admit(hello("b", 1, 1), false, new Connection(), false).watermark(),
                "the watermark outlives the stream's state, in the sequence store");
    }

    @Test
    void anUnauthenticatedHelloCannotSkipALiveStreamsSequences() {
        StreamRegistry r = registry(100);
        Connection live = new Connection();
        InboundStream s = r.admit(hello("p", 7, 1), false, live, false).stream();
        store.delivered(s.key(), 0);
        ProtocolException e = assertThrows(ProtocolException.class, () -> r.admit(hello("p", 7, 1_000), false, new Connection(), false));
        assertTrue(e.getMessage().contains("would skip sequences 1..999") && e.getMessage().contains("unauthenticated"), e.getMessage());
        assertEquals(0, s.watermark(), "the watermark did not move");
        assertEquals(1, metrics.hellosRefused());

        // The same HELLO authenticated, or once no route of the stream is live, is the sender's word.
        Connection second = new Connection();
        assertEquals(999, r.admit(hello("p", 7, 1_000), true, second, false).watermark());
        live.active = false;
        second.active = false;
        assertEquals(1_999, r.admit(hello("p", 7, 2_000), false, new Connection(), false).watermark());
    }

    @Test
    void anUnauthenticatedNewEpochCannotReplaceALiveIncarnation() {
        StreamRegistry r = registry(100);
        Connection live = new Connection();
        InboundStream old = r.admit(hello("p", 7, 1), false, live, false).stream();
        ProtocolException e = assertThrows(ProtocolException.class, () -> r.admit(hello("p", 8, 1), false, new Connection(), false));
        assertTrue(e.getMessage().contains("would replace incarnation 7"), e.getMessage());
        assertTrue(live.closed.isEmpty(), "the live incarnation keeps its connection");

        InboundStream replacement = r.admit(hello("p", 8, 1), true, new Connection(), false).stream();
        assertEquals(8, replacement.key().epoch());
        assertEquals(1, live.closed.size(), "an authenticated new incarnation closes the old one's connections");
        assertFalse(old == replacement);
        assertSame(replacement, r.admit(hello("p", 8, 1), false, new Connection(), false).stream(), "its routes join it");
    }

    @Test
    void aHelloOfTheSameIncarnationMustKeepItsFlags() {
        StreamRegistry r = registry(100);
        r.admit(hello("p", 7, 1), false, new Connection(), false);
        Frames.Hello bestEffort = new Frames.Hello(0, 7, 1, 0, 1, "p", "s", new byte[16], new byte[16], new byte[0], new byte[0]);
        ProtocolException e = assertThrows(ProtocolException.class, () -> r.admit(bestEffort, true, new Connection(), false));
        assertTrue(e.getMessage().contains("flags"), e.getMessage());
    }
}
