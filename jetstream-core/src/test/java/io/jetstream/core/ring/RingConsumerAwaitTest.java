package io.jetstream.core.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RingConsumer#pollOrAwait}: a consumer thread that serves other work blocks on the wake-up
 * socket and is woken by a producer's commit or by {@link RingConsumer#wake()}. Blocks are given 60 s,
 * the test 20 s: returning at all proves the wake-up (no timing is asserted). And
 * {@link RingConsumer#hasRecordAtHead}, what a consumer spinning towards that block reads instead of polling.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class RingConsumerAwaitTest {
    private static final long LONG_BLOCK_MS = 60_000;

    @TempDir
    Path tempDir;

    @Test
    void aCommitWakesABlockedConsumer() throws Exception {
        RingSettings s = RingTestSupport.settings(RingTestSupport.privateDir(tempDir), 64 * 1024).withWakeup(true, 100);
        try (RingConsumer consumer = RingConsumer.create(s, "await");
                RingProducer producer = RingProducer.attach(s, "await")) {
            int[] seen = new int[1];
            CompletableFuture<Integer> blocked = CompletableFuture.supplyAsync(() -> {
                int delivered = 0;
                // A block may also end without a record (the producer's wake-up connection being
                // accepted): block again until a commit's record came (the class timeout bounds it).
                while (delivered == 0) {
                    delivered = consumer.pollOrAwait((t, b, o, l) -> seen[0]++, 16, LONG_BLOCK_MS)
                            + consumer.poll((t, b, o, l) -> seen[0]++, 16);
                }
                return delivered;
            });
            // Commit until the blocked consumer returns (the first commit may precede its block).
            while (!blocked.isDone()) {
                int index = producer.claim(7, 8);
                producer.buffer().putLong(index, 42);
                producer.commit();
                try {
                    blocked.get(50, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException notYet) {
                    // commit again
                }
            }
            assertTrue(blocked.get() >= 1, "the commit was delivered after the wake-up");
        }
    }

    @Test
    void wakeBeforeOrDuringTheBlockReturnsIt() throws Exception {
        RingSettings s = RingTestSupport.settings(RingTestSupport.privateDir(tempDir), 64 * 1024).withWakeup(true, 100);
        try (RingConsumer consumer = RingConsumer.create(s, "wake")) {
            consumer.wake(); // before: the next block returns at once
            assertEquals(0, consumer.pollOrAwait((t, b, o, l) -> {}, 16, LONG_BLOCK_MS));
            CompletableFuture<Integer> blocked = CompletableFuture.supplyAsync(
                    () -> consumer.pollOrAwait((t, b, o, l) -> {}, 16, LONG_BLOCK_MS));
            while (!blocked.isDone()) {
                consumer.wake();
                try {
                    blocked.get(50, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException notYet) {
                    // wake again
                }
            }
            assertEquals(0, blocked.get());
        }
    }

    @Test
    void theHeadShowsAWrittenRecordUntilItIsPolledAndAClaimOnlyOnceItsHeaderIsWritten() throws Exception {
        RingSettings s = RingTestSupport.settings(RingTestSupport.privateDir(tempDir), 64 * 1024);
        try (RingConsumer consumer = RingConsumer.create(s, "head");
                RingProducer producer = RingProducer.attach(s, "head")) {
            assertTrue(!consumer.hasRecordAtHead(), "empty ring");
            int index = producer.claim(7, 8);
            producer.buffer().putLong(index, 42);
            producer.commit();
            assertTrue(consumer.hasRecordAtHead(), "a committed record");
            assertEquals(1, consumer.poll((t, b, o, l) -> {}, 16));
            assertTrue(!consumer.hasRecordAtHead(), "polled and freed");
            producer.claim(7, 8);
            assertTrue(consumer.hasRecordAtHead(), "a claim being written has its header (status WRITING)");
            producer.abort();
            assertEquals(0, consumer.poll((t, b, o, l) -> {}, 16), "an aborted claim delivers nothing");
            assertTrue(!consumer.hasRecordAtHead(), "and is freed");
        }
    }
}
