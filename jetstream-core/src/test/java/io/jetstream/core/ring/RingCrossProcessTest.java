package io.jetstream.core.ring;

import static io.jetstream.core.ring.RingTestSupport.checkPayload;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Producers in other JVMs, the consumer in this one. */
class RingCrossProcessTest {
    @TempDir
    Path tempDir;

    Path dir;
    final List<Process> children = new ArrayList<>();
    /** Next expected sequence number per producer id. */
    final Map<Integer, Long> next = new HashMap<>();

    @BeforeEach
    void setUp() throws Exception {
        dir = RingTestSupport.privateDir(tempDir);
    }

    @AfterEach
    void killChildren() {
        children.forEach(Process::destroyForcibly);
    }

    private Process producer(int capacity, String name, int id, long count, int length, String mode) throws Exception {
        Process p = RingTestSupport.startJava(RingProducerMain.class,
                dir.toString(), Integer.toString(capacity), name, Integer.toString(id), Long.toString(count),
                Integer.toString(length), mode);
        children.add(p);
        return p;
    }

    /** Exactly once, in order per producer: every delivered record must be the next of its producer. */
    private final RecordHandler checker = (target, buffer, offset, length) -> {
        long sequence = checkPayload(buffer, offset, target, length);
        long expected = next.getOrDefault(target, 0L);
        if (sequence != expected) {
            throw new AssertionError("producer " + target + ": got record " + sequence + ", expected " + expected);
        }
        next.put(target, expected + 1);
    };

    private void pollUntil(RingConsumer consumer, java.util.function.BooleanSupplier done, long timeoutSeconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out; delivered so far: " + next);
            if (consumer.poll(checker, 1024) == 0) {
                LockSupport.parkNanos(10_000);
            }
        }
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void everyRecordOfSeveralProducerProcessesArrivesOnceAndInOrder() throws Exception {
        int capacity = 256 * 1024;
        long perProducer = 50_000;
        int producers = 3;
        try (RingConsumer consumer = RingConsumer.create(RingTestSupport.settings(dir, capacity), "multi")) {
            List<Process> started = new ArrayList<>();
            for (int id = 1; id <= producers; id++) {
                started.add(producer(capacity, "multi", id, perProducer, 12 + id * 50, "send"));
            }
            pollUntil(consumer, () -> next.values().stream().mapToLong(Long::longValue).sum() == producers * perProducer, 150);
            for (Process p : started) {
                assertTrue(p.waitFor(30, TimeUnit.SECONDS));
                assertEquals(0, p.exitValue());
            }
            for (int id = 1; id <= producers; id++) {
                assertEquals(perProducer, next.get(id));
            }
            assertEquals(producers * perProducer, consumer.metrics().messages());
            assertEquals(0, consumer.metrics().skipped());
        }
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void producerKilledInsideARecordLosesOnlyThatRecord() throws Exception {
        int capacity = 1 << 20;
        try (RingConsumer consumer = RingConsumer.create(RingTestSupport.settings(dir, capacity), "kill")) {
            Process victim = producer(capacity, "kill", 1, 1_000, 100, "die-mid-record");
            // Wait until the victim holds a half-written record, consuming meanwhile.
            pollUntil(consumer, () -> hasLine(victim, "CLAIMED"), 60);
            Process other = producer(capacity, "kill", 2, 5_000, 60, "send");
            // The right edge keeps consuming the other producer behind the victim's stuck record.
            pollUntil(consumer, () -> next.getOrDefault(2, 0L) == 5_000, 60);
            assertEquals(1_000, next.get(1));
            assertTrue(consumer.metrics().readAhead() > 0, "records delivered past the stuck one");
            assertEquals(0, consumer.metrics().skipped(), "the victim is alive: its record is waited for");

            victim.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            Process after = producer(capacity, "kill", 3, 1_000, 60, "send");
            pollUntil(consumer, () -> next.getOrDefault(3, 0L) == 1_000, 60);
            assertEquals(1, consumer.metrics().skipped(), "only the record the victim was writing is lost");
            assertEquals(1_000, next.get(1), "none of the victim's committed records lost or repeated");
            assertEquals(5_000, next.get(2));
            assertTrue(other.waitFor(30, TimeUnit.SECONDS) && after.waitFor(30, TimeUnit.SECONDS));
            // The space behind the dead record was freed: a producer can fill the ring again.
            Process filler = producer(capacity, "kill", 4, 20_000, 200, "send");
            pollUntil(consumer, () -> next.getOrDefault(4, 0L) == 20_000, 60);
            assertTrue(filler.waitFor(30, TimeUnit.SECONDS));
        }
    }

    private final Map<Process, List<String>> seenLines = new HashMap<>();

    private boolean hasLine(Process p, String line) {
        List<String> seen = seenLines.computeIfAbsent(p, k -> new ArrayList<>());
        try {
            var in = p.getInputStream();
            while (in.available() > 0) {
                StringBuilder sb = new StringBuilder();
                int c;
                while ((c = in.read()) != -1 && c != '\n') {
                    sb.append((char) c);
                }
                seen.add(sb.toString());
            }
        } catch (java.io.IOException e) {
            return false;
        }
        return seen.contains(line);
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void fullRingMakesTheProducerWaitAndAPausedConsumerThenDrainsEverything() throws Exception {
        int capacity = 64 * 1024;
        long count = 20_000;
        try (RingConsumer consumer = RingConsumer.create(RingTestSupport.settings(dir, capacity), "paused")) {
            Process p = producer(capacity, "paused", 1, count, 256, "send");
            // The consumer is away for 3 s: 5 MB cannot fit in a 64 KiB ring.
            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(3));
            assertTrue(p.isAlive(), "the producer must be waiting, not finished or failed");
            pollUntil(consumer, () -> next.getOrDefault(1, 0L) == count, 120);
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, p.exitValue());
            String done = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            assertTrue(done.startsWith("DONE waits="), done);
            assertTrue(Long.parseLong(done.substring("DONE waits=".length())) > 0, "the producer waited for space: " + done);
        }
    }
}
