package io.jetstream.core.ring;

import static io.jetstream.core.ring.RingTestSupport.checkPayload;
import static io.jetstream.core.ring.RingTestSupport.writePayload;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Randomized multi-thread stress of the claim/commit/wrap/window protocol: producers with random
 * record sizes, random aborts, batches and random pauses inside claims (so the consumer's window
 * really slides past records being written) into a small ring that wraps thousands of times. Every
 * committed tuple must arrive exactly once, in its producer's order, with its bytes intact.
 * Bounded in count and time; seeded, and the seed is printed on failure.
 */
class RingStressTest {
    private static final int PRODUCERS = 4;
    private static final int RECORDS_PER_PRODUCER = 60_000;
    private static final int REPETITIONS = 5;
    /** Claims per producer held open until the consumer reads past them (or {@link #LINGER_LIMIT_NANOS}). */
    private static final int LONG_LINGERS = 3;
    private static final long LINGER_LIMIT_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    @TempDir
    Path tempDir;

    @RepeatedTest(value = REPETITIONS, name = "seeded run {currentRepetition} of {totalRepetitions}")
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void concurrentProducersNeverLoseReorderOrCorruptRecords() throws Exception {
        long seed = System.nanoTime();
        RingSettings settings = RingTestSupport.settings(RingTestSupport.privateDir(tempDir), 16 * 1024)
                .withCapacity(16 * 1024, 2048, 4096);
        long[] expectedTuples = new long[PRODUCERS + 1];
        long[] next = new long[PRODUCERS + 1];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (RingConsumer consumer = RingConsumer.create(settings, "stress")) {
            List<Thread> threads = new ArrayList<>();
            for (int id = 1; id <= PRODUCERS; id++) {
                int producerId = id;
                SplittableRandom random = new SplittableRandom(seed + id);
                Thread t = new Thread(() -> {
                    try (RingProducer producer = RingProducer.attach(settings, "stress")) {
                        expectedTuples[producerId] = produce(producer, producerId, random,
                                () -> consumer.metrics().readAhead());
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "producer-" + id);
                threads.add(t);
                t.start();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(100);
            RecordHandler checker = (target, buffer, offset, length) -> {
                long sequence = checkPayload(buffer, offset, target, length);
                if (sequence != next[target]) {
                    throw new AssertionError("seed " + seed + ": producer " + target + " record " + sequence
                            + " delivered, expected " + next[target]);
                }
                next[target]++;
            };
            while (threads.stream().anyMatch(Thread::isAlive) || consumer.poll(checker, 1000) > 0) {
                consumer.poll(checker, 1000);
                assertTrue(System.nanoTime() < deadline, "seed " + seed + ": stress did not finish in time");
                if (failure.get() != null) {
                    throw new AssertionError("seed " + seed + ": producer failed", failure.get());
                }
            }
            for (int id = 1; id <= PRODUCERS; id++) {
                assertEquals(expectedTuples[id], next[id], "seed " + seed + ": tuples of producer " + id);
            }
            assertTrue(consumer.metrics().aborted() > 0 && consumer.metrics().readAhead() > 0,
                    "the run exercised aborts and read-ahead: " + consumer.metrics());
            assertEquals(0, consumer.metrics().skipped());
            assertEquals(0, consumer.metrics().corrupt());
        }
    }

    /** Returns the number of tuples committed (sequence numbers 0..n-1). */
    private static long produce(RingProducer producer, int id, SplittableRandom random, LongSupplier readAhead) {
        UnsafeBuffer tuple = new UnsafeBuffer(new byte[512]);
        long sequence = 0;
        int longLingers = LONG_LINGERS;
        for (int i = 0; i < RECORDS_PER_PRODUCER; i++) {
            int kind = random.nextInt(100);
            if (kind < 10) {
                if (!producer.beginBatch(id, sequence, 200 + random.nextInt(1500))) {
                    throw new AssertionError("back-pressured");
                }
                int tuples = random.nextInt(8);
                for (int t = 0; t < tuples; t++) {
                    int length = 12 + random.nextInt(120);
                    writePayload(tuple, 0, id, sequence, length);
                    if (!producer.append(id, tuple, 0, length)) {
                        break;
                    }
                    sequence++;
                }
                producer.commitBatch();
                continue;
            }
            int length = kind < 15 ? 12 + random.nextInt(2000 - 12) : 12 + random.nextInt(200);
            int index = producer.claim(id, length);
            if (index < 0) {
                throw new AssertionError("back-pressured");
            }
            if (kind < 20) {
                producer.abort();
                continue;
            }
            writePayload(producer.buffer(), index, id, sequence, length);
            if (kind < 22 && longLingers > 0) {
                // Hold the claim open until the consumer has delivered another producer's record past
                // it, so every run covers read-ahead however the threads happen to be scheduled.
                longLingers--;
                long before = readAhead.getAsLong();
                long end = System.nanoTime() + LINGER_LIMIT_NANOS;
                while (readAhead.getAsLong() == before && System.nanoTime() < end) {
                    Thread.yield();
                }
            } else if (kind < 22) {
                Thread.yield(); // linger inside the claim so the consumer's right edge may pass us
            }
            producer.commit();
            sequence++;
        }
        return sequence;
    }
}
