package io.jetstream.core.ring;

import static io.jetstream.core.ring.RingTestSupport.privateDir;
import static io.jetstream.core.ring.RingTestSupport.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.internal.ring.RecordDescriptor;
import io.jetstream.core.internal.ring.RingDescriptor;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The consumer loop never ends silently: whatever ends it — a corrupt record, a wake-up socket that
 * fails while the consumer blocks on it — first marks the ring failed with the cause, so producers
 * stop writing into a ring nobody reads and learn why.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RingConsumerFailureTest {
    @TempDir
    Path temp;

    private static Thread consume(RingConsumer consumer, AtomicReference<Throwable> ended) {
        Thread t = new Thread(() -> {
            try {
                consumer.run((target, buffer, offset, length) -> { }, () -> true);
            } catch (Throwable e) {
                ended.set(e);
            }
        }, "consumer");
        t.start();
        return t;
    }

    @Test
    void aFailingWakeupSocketFailsTheRingAndNamesTheCause() throws Exception {
        RingSettings s = settings(privateDir(temp), 64 * 1024).withWakeup(true, 60_000).withIdle(0, 0, 1_000, 1_000);
        try (RingConsumer consumer = RingConsumer.create(s, "wake"); RingProducer producer = RingProducer.attach(s, "wake")) {
            AtomicReference<Throwable> ended = new AtomicReference<>();
            Thread t = consume(consumer, ended);
            UnsafeBuffer header = new UnsafeBuffer(producer.buffer().addressOffset(), RingDescriptor.HEADER_LENGTH);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (header.getIntVolatile(RingDescriptor.CONSUMER_PARKED_OFFSET) == 0) {
                assertTrue(System.nanoTime() < deadline, "the idle consumer blocks on its wake-up socket");
                Thread.onSpinWait();
            }
            consumer.wakeupListener().close(); // the socket fails under the blocked consumer
            t.join(10_000);
            assertTrue(ended.get() instanceof UncheckedIOException, "the loop ended with the socket's error: " + ended.get());
            assertTrue(consumer.isFailed(), "the ring is marked failed");
            RingClosedException e = assertThrows(RingClosedException.class, () -> producer.tryClaim(1, 8));
            assertTrue(e.getMessage().contains("wake-up socket"), e.getMessage());
        }
    }

    @Test
    void aCorruptRecordFailsTheRingAndNamesThePosition() throws Exception {
        RingSettings s = settings(privateDir(temp), 64 * 1024);
        try (RingConsumer consumer = RingConsumer.create(s, "corrupt"); RingProducer producer = RingProducer.attach(s, "corrupt")) {
            int index = producer.tryClaim(1, 8);
            producer.commit();
            ((UnsafeBuffer) producer.buffer()).putLongVolatile(index - RecordDescriptor.HEADER_LENGTH,
                    RecordDescriptor.header(8, RecordDescriptor.STATUS_READY, 7, 0)); // no such record type
            AtomicReference<Throwable> ended = new AtomicReference<>();
            Thread t = consume(consumer, ended);
            t.join(10_000);
            assertTrue(ended.get() instanceof RingCorruptedException, String.valueOf(ended.get()));
            assertTrue(ended.get().getMessage().contains("at position 0"), ended.get().getMessage());
            assertTrue(consumer.isFailed());
            RingClosedException e = assertThrows(RingClosedException.class, () -> producer.tryClaim(1, 8));
            assertTrue(e.getMessage().contains("its consumer failed") && e.getMessage().contains("corrupt"), e.getMessage());
            assertEquals(1, RingDirectory.reclaimStale(s.directory()), "a failed ring is reclaimed as stale");
        }
    }
}
