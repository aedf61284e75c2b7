package io.jetstream.core.ring;

import static io.jetstream.core.ring.RingTestSupport.checkPayload;
import static io.jetstream.core.ring.RingTestSupport.settings;
import static io.jetstream.core.ring.RingTestSupport.writePayload;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.internal.ring.RecordDescriptor;
import io.jetstream.core.internal.ring.RingDescriptor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The claim/commit/wrap/window protocol of the ring, in one process. */
class RingProtocolTest {
    @TempDir
    Path tempDir;

    Path dir;

    @BeforeEach
    void setUp() throws Exception {
        dir = RingTestSupport.privateDir(tempDir);
    }

    record Delivered(int target, int length, long sequence) {}

    private static List<Delivered> drain(RingConsumer consumer, int expected) {
        List<Delivered> out = new ArrayList<>();
        for (int round = 0; round < 10_000 && out.size() < expected; round++) {
            consumer.poll((target, buffer, offset, length) ->
                    out.add(new Delivered(target, length, length >= 12 ? checkPayload(buffer, offset, target, length) : -1)), 1_000);
        }
        return out;
    }

    private static void send(RingProducer producer, int target, long sequence, int length) {
        int index = producer.tryClaim(target, length);
        assertTrue(index >= 0, "ring unexpectedly full");
        writePayload(producer.buffer(), index, target, sequence, length);
        producer.commit();
    }

    @Test
    void deliversRecordsInOrderWithTheirTargetsIncludingEmptyAndMaximalOnes() {
        RingSettings s = settings(dir, 64 * 1024);
        try (RingConsumer consumer = RingConsumer.create(s, "order");
                RingProducer producer = RingProducer.attach(s, "order")) {
            int max = producer.maxRecordLength();
            int[] lengths = {12, 0, 13, 100, max, 12, 1, 64};
            for (int i = 0; i < lengths.length; i++) {
                send(producer, 7 + i, i, lengths[i]);
            }
            List<Delivered> got = drain(consumer, lengths.length);
            assertEquals(lengths.length, got.size());
            for (int i = 0; i < lengths.length; i++) {
                assertEquals(7 + i, got.get(i).target());
                assertEquals(lengths[i], got.get(i).length());
                if (lengths[i] >= 12) {
                    assertEquals(i, got.get(i).sequence());
                }
            }
            assertThrows(IllegalArgumentException.class, () -> producer.tryClaim(1, max + 1));
            assertThrows(IllegalArgumentException.class, () -> producer.tryClaim(1, -1));
            assertEquals(lengths.length, consumer.metrics().messages());
        }
    }

    @Test
    void wrapsCorrectlyFromEveryBoundaryOffset() {
        int capacity = 4096;
        RingSettings s = settings(dir, capacity);
        for (int start = 0; start < capacity; start += RecordDescriptor.ALIGNMENT) {
            try (RingConsumer consumer = RingConsumer.create(s, "wrap");
                    RingProducer producer = RingProducer.attach(s, "wrap")) {
                // Move the tail to `start` with fillers, consumed at once.
                int remaining = start;
                long sequence = 0;
                while (remaining > 0) {
                    int record = Math.min(remaining, RecordDescriptor.recordLength(producer.maxRecordLength()));
                    send(producer, 1, sequence++, record - RecordDescriptor.HEADER_LENGTH);
                    remaining -= record;
                }
                assertEquals(sequence, drain(consumer, (int) sequence).size());
                int toEnd = capacity - start;
                int[] lengths = {toEnd - 16, toEnd, toEnd + 16, 12, producer.maxRecordLength()};
                int expected = 0;
                for (int length : lengths) {
                    if (length < 12 || length > producer.maxRecordLength()) {
                        continue;
                    }
                    send(producer, 2, length, length);
                    List<Delivered> got = drain(consumer, 1);
                    assertEquals(1, got.size(), "start " + start + ", length " + length);
                    assertEquals(new Delivered(2, length, length), got.get(0), "start " + start);
                    expected++;
                }
                assertTrue(expected > 0);
            }
        }
    }

    @Test
    void fullRingBackPressuresAndNeverOverwritesUnreadData() {
        RingSettings s = settings(dir, 4096).withProducerWait(TimeUnit.MILLISECONDS.toNanos(50));
        try (RingConsumer consumer = RingConsumer.create(s, "full");
                RingProducer producer = RingProducer.attach(s, "full")) {
            int sent = 0;
            while (true) {
                int index = producer.tryClaim(3, 100);
                if (index < 0) {
                    assertEquals(RingProducer.BACK_PRESSURED, index);
                    break;
                }
                writePayload(producer.buffer(), index, 3, sent++, 100);
                producer.commit();
            }
            assertEquals(4096 / RecordDescriptor.recordLength(100), sent, "every byte used, none overwritten");
            assertEquals(RingProducer.BACK_PRESSURED, producer.claim(3, 100), "claim gives up after the wait");
            assertTrue(producer.waits() > 0);
            List<Delivered> got = drain(consumer, sent);
            for (int i = 0; i < sent; i++) {
                assertEquals(i, got.get(i).sequence());
            }
            send(producer, 3, sent, 100);
            assertEquals(sent, drain(consumer, 1).get(0).sequence());
        }
    }

    @Test
    void abortedRecordsAreSkipped() {
        RingSettings s = settings(dir, 8192);
        try (RingConsumer consumer = RingConsumer.create(s, "abort");
                RingProducer producer = RingProducer.attach(s, "abort")) {
            send(producer, 1, 0, 20);
            producer.tryClaim(1, 40);
            producer.abort();
            send(producer, 1, 1, 20);
            List<Delivered> got = drain(consumer, 2);
            assertEquals(List.of(new Delivered(1, 20, 0), new Delivered(1, 20, 1)), got);
            assertEquals(1, consumer.metrics().aborted());
            assertThrows(IllegalStateException.class, producer::commit);
        }
    }

    @Test
    void batchRecordsDeliverEveryTupleAndReleaseUnusedSpace() {
        RingSettings s = settings(dir, 8192);
        UnsafeBuffer tuple = new UnsafeBuffer(new byte[64]);
        try (RingConsumer consumer = RingConsumer.create(s, "batch");
                RingProducer producer = RingProducer.attach(s, "batch")) {
            assertTrue(producer.beginBatch(9, 1L, 1000));
            int appended = 0;
            for (int i = 0; i < 10; i++) {
                writePayload(tuple, 0, 9, i, 40);
                assertTrue(producer.append(9, tuple, 0, 40));
                appended++;
            }
            producer.commitBatch();
            assertTrue(producer.beginBatch(9, 2L, 50));
            writePayload(tuple, 0, 9, 10, 40);
            assertTrue(producer.append(9, tuple, 0, 40));
            assertFalse(producer.append(9, tuple, 0, 40), "second tuple does not fit in 50 bytes");
            producer.commitBatch();
            send(producer, 9, 11, 30);
            List<Delivered> got = drain(consumer, appended + 2);
            assertEquals(12, got.size());
            for (int i = 0; i < 12; i++) {
                assertEquals(i, got.get(i).sequence());
            }
            // Everything was freed: three quarters of the ring can be claimed again, wherever the tail is.
            for (int i = 0; i < 3; i++) {
                send(producer, 9, 100 + i, 2000);
            }
        }
    }

    @Test
    void rightEdgeConsumesPastARecordStillBeingWritten() {
        RingSettings s = settings(dir, 64 * 1024);
        try (RingConsumer consumer = RingConsumer.create(s, "window");
                RingProducer slow = RingProducer.attach(s, "window");
                RingProducer fast = RingProducer.attach(s, "window")) {
            int slowIndex = slow.tryClaim(1, 50);
            writePayload(slow.buffer(), slowIndex, 1, 0, 25); // half written
            for (int i = 0; i < 10; i++) {
                send(fast, 2, i, 30);
            }
            List<Delivered> got = drain(consumer, 10);
            assertEquals(10, got.size(), "the fast producer's records are not held behind the slow one");
            assertTrue(got.stream().allMatch(d -> d.target() == 2));
            assertEquals(10, consumer.metrics().readAhead());
            assertTrue(consumer.metrics().stalls() > 0);
            assertEquals(0, consumer.poll((t, b, o, l) -> {
                throw new AssertionError("read-ahead records delivered twice");
            }, 100));

            writePayload(slow.buffer(), slowIndex, 1, 0, 50);
            slow.commit();
            got = drain(consumer, 1);
            assertEquals(List.of(new Delivered(1, 50, 0)), got);
            // All space came back: a record of half the ring fits.
            send(fast, 2, 10, fast.maxRecordLength());
            send(fast, 2, 11, 1000);
        }
    }

    @Test
    void readAheadStopsAtTheWindow() {
        RingSettings s = settings(dir, 64 * 1024).withCapacity(64 * 1024, 1024, 1024);
        try (RingConsumer consumer = RingConsumer.create(s, "bounded");
                RingProducer slow = RingProducer.attach(s, "bounded");
                RingProducer fast = RingProducer.attach(s, "bounded")) {
            int slowIndex = slow.tryClaim(1, 12);
            for (int i = 0; i < 100; i++) {
                send(fast, 2, i, 48); // 64-byte records
            }
            List<Delivered> got = drain(consumer, 100);
            int windowRecords = (1024 - 32) / 64 + 1;
            assertEquals(windowRecords, got.size(), "read-ahead bounded by the 1 KiB window");
            writePayload(slow.buffer(), slowIndex, 1, 0, 12);
            slow.commit();
            assertEquals(100 - windowRecords + 1, drain(consumer, 100).size());
        }
    }

    @Test
    void recordOfAProducerThatDiedIsSkippedOnceTheLivenessCheckSaysSo() throws Exception {
        AtomicLong clock = new AtomicLong(1);
        long interval = TimeUnit.MILLISECONDS.toNanos(100);
        RingSettings s = settings(dir, 64 * 1024).withClock(clock::get, interval);
        Process victim = new ProcessBuilder("sleep", "60").start();
        try (RingConsumer consumer = RingConsumer.create(s, "dead");
                RingProducer dying = RingProducer.attach(s, "dead");
                RingProducer other = RingProducer.attach(s, "dead")) {
            // Make `dying`'s slot belong to the victim process, as if it had attached from there.
            UnsafeBuffer raw = (UnsafeBuffer) dying.buffer();
            int slotOffset = findSlotWithClaim(raw, -1, 0);
            ProcessIdentity victimIdentity = ProcessIdentity.of(victim.toHandle());
            raw.putLong(slotOffset + RingDescriptor.SLOT_PID_OFFSET, victimIdentity.pid());
            raw.putLong(slotOffset + RingDescriptor.SLOT_START_OFFSET, victimIdentity.startMillis());

            dying.tryClaim(1, 40);
            send(other, 2, 0, 40);
            assertEquals(1, drain(consumer, 1).size());
            assertEquals(0, consumer.metrics().skipped(), "victim alive: its record is waited for");

            victim.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            send(other, 2, 1, 40);
            assertEquals(1, drain(consumer, 1).size());
            assertEquals(0, consumer.metrics().skipped(), "within the liveness interval the last check stands");

            clock.addAndGet(interval);
            consumer.poll((t, b, o, l) -> {}, 10);
            assertEquals(1, consumer.metrics().skipped(), "after the interval the death is seen");
            send(other, 2, 2, 40);
            assertEquals(List.of(new Delivered(2, 40, 2)), drain(consumer, 1));
        } finally {
            victim.destroyForcibly();
        }
    }

    @Test
    void recordCommittedWhileItsProducerIsFoundDeadIsDeliveredNotSkipped() throws Exception {
        // The consumer reads the header (WRITING), then checks the producer. If the producer commits
        // and dies (or closes) in between, the check says dead but the record is complete: it must
        // be delivered, not overwritten with FAILED. The clock the liveness check reads is the hook
        // that commits at exactly that moment.
        AtomicReference<Runnable> onLivenessCheck = new AtomicReference<>();
        LongSupplier clock = () -> {
            Runnable action = onLivenessCheck.getAndSet(null);
            if (action != null) {
                action.run();
            }
            return 1;
        };
        RingSettings s = settings(dir, 64 * 1024).withClock(clock, TimeUnit.MILLISECONDS.toNanos(100));
        try (RingConsumer consumer = RingConsumer.create(s, "lastcommit");
                RingProducer producer = RingProducer.attach(s, "lastcommit")) {
            UnsafeBuffer raw = (UnsafeBuffer) producer.buffer();
            int slotOffset = findSlotWithClaim(raw, -1, 0);
            raw.putLong(slotOffset + RingDescriptor.SLOT_PID_OFFSET, RingTestSupport.deadPid());
            int index = producer.tryClaim(3, 40);
            writePayload(producer.buffer(), index, 3, 0, 40);
            onLivenessCheck.set(producer::commit);

            assertEquals(List.of(new Delivered(3, 40, 0)), drain(consumer, 1));
            assertEquals(0, consumer.metrics().skipped());
            assertNull(onLivenessCheck.get(), "the commit happened inside the liveness check");
        }
    }

    /** Offset of the first active slot whose generation is at least {@code minGeneration}. */
    private static int findSlotWithClaim(UnsafeBuffer raw, long claimPosition, int minGeneration) {
        for (int slot = 0; slot < RingDescriptor.MAX_PRODUCERS; slot++) {
            int offset = RingDescriptor.slotOffset(slot);
            if (raw.getInt(offset + RingDescriptor.SLOT_STATE_OFFSET) == RingDescriptor.SLOT_ACTIVE
                    && raw.getLong(offset + RingDescriptor.SLOT_CLAIM_POSITION_OFFSET) == claimPosition
                    && raw.getInt(offset + RingDescriptor.SLOT_GENERATION_OFFSET) > minGeneration) {
                return offset;
            }
        }
        throw new AssertionError("no such slot");
    }

    @Test
    void spaceClaimedByAProducerThatDiedBeforeWritingItsHeaderIsSkipped() throws Exception {
        RingSettings s = settings(dir, 64 * 1024);
        try (RingConsumer consumer = RingConsumer.create(s, "gap");
                RingProducer producer = RingProducer.attach(s, "gap")) {
            UnsafeBuffer raw = (UnsafeBuffer) producer.buffer();
            // A producer in slot 40 announced and won a 64-byte claim at position 0, then died.
            int slot = RingDescriptor.slotOffset(40);
            raw.putLong(slot + RingDescriptor.SLOT_PID_OFFSET, RingTestSupport.deadPid());
            raw.putInt(slot + RingDescriptor.SLOT_GENERATION_OFFSET, 1);
            raw.putInt(slot + RingDescriptor.SLOT_CLAIM_LENGTH_OFFSET, 64);
            raw.putLong(slot + RingDescriptor.SLOT_CLAIM_POSITION_OFFSET, 0);
            raw.putIntVolatile(slot + RingDescriptor.SLOT_STATE_OFFSET, RingDescriptor.SLOT_ACTIVE);
            raw.putLongVolatile(RingDescriptor.TAIL_OFFSET, 64);

            send(producer, 5, 0, 20);
            assertEquals(List.of(new Delivered(5, 20, 0)), drain(consumer, 1));
            assertEquals(1, consumer.metrics().skipped());
        }
    }

    /** The live producer (the ring's only one) claims {@code length} bytes at position 0 and writes no header yet. */
    private static void claimWithoutHeader(UnsafeBuffer raw, int length) {
        int slot = findSlotWithClaim(raw, -1, 0);
        raw.putInt(slot + RingDescriptor.SLOT_CLAIM_LENGTH_OFFSET, length);
        raw.putLongVolatile(slot + RingDescriptor.SLOT_CLAIM_POSITION_OFFSET, 0);
        raw.putLongVolatile(RingDescriptor.TAIL_OFFSET, length);
    }

    /** Announces, in the ring's slot 40, a claim by a producer that has died. */
    private static void announceDeadClaim(UnsafeBuffer raw, long position, int length) throws Exception {
        int slot = RingDescriptor.slotOffset(40);
        raw.putLong(slot + RingDescriptor.SLOT_PID_OFFSET, RingTestSupport.deadPid());
        raw.putInt(slot + RingDescriptor.SLOT_GENERATION_OFFSET, 1);
        raw.putInt(slot + RingDescriptor.SLOT_CLAIM_LENGTH_OFFSET, length);
        raw.putLong(slot + RingDescriptor.SLOT_CLAIM_POSITION_OFFSET, position);
        raw.putIntVolatile(slot + RingDescriptor.SLOT_STATE_OFFSET, RingDescriptor.SLOT_ACTIVE);
    }

    /** A clock for the liveness throttle that moves a second per reading. */
    private static LongSupplier steppingClock() {
        AtomicLong time = new AtomicLong();
        return () -> time.addAndGet(TimeUnit.SECONDS.toNanos(1));
    }

    @Test
    void aRecordWrittenJustBeforeItsProducerDiedIsDeliveredNotSkipped() throws Exception {
        // The consumer finds no header, then looks for the claim's producer. If that producer wrote
        // and committed its record in between and then died, the record is complete: deliver it.
        AtomicReference<Runnable> afterHeaderRead = new AtomicReference<>();
        LongSupplier stepping = steppingClock();
        LongSupplier clock = () -> {
            Runnable action = afterHeaderRead.getAndSet(null);
            if (action != null) {
                action.run();
            }
            return stepping.getAsLong();
        };
        RingSettings s = settings(dir, 64 * 1024).withClock(clock, TimeUnit.MILLISECONDS.toNanos(1));
        try (RingConsumer consumer = RingConsumer.create(s, "diedaftercommit");
                RingProducer producer = RingProducer.attach(s, "diedaftercommit")) {
            UnsafeBuffer raw = (UnsafeBuffer) producer.buffer();
            announceDeadClaim(raw, 0, RecordDescriptor.recordLength(48));
            raw.putLongVolatile(RingDescriptor.TAIL_OFFSET, RecordDescriptor.recordLength(48));
            int offset = RingDescriptor.HEADER_LENGTH; // position 0
            afterHeaderRead.set(() -> {
                raw.putInt(offset + RecordDescriptor.TARGET_OFFSET, 7);
                raw.putInt(offset + RecordDescriptor.GENERATION_OFFSET, 1);
                writePayload(raw, offset + RecordDescriptor.HEADER_LENGTH, 7, 0, 48);
                raw.putLongOrdered(offset, RecordDescriptor.header(48, RecordDescriptor.STATUS_READY, RecordDescriptor.TYPE_DATA, 40));
            });

            assertEquals(List.of(new Delivered(7, 48, 0)), drain(consumer, 1));
            assertNull(afterHeaderRead.get(), "the record was written after the consumer read an empty header");
            assertEquals(0, consumer.metrics().skipped());
        }
    }

    @Test
    void aWrappingClaimWhoseProducerDiedBetweenPaddingAndRecordIsSkippedWhole() throws Exception {
        int capacity = 4096;
        RingSettings s = settings(dir, capacity).withClock(steppingClock(), TimeUnit.MILLISECONDS.toNanos(1));
        try (RingConsumer consumer = RingConsumer.create(s, "wrapdeath");
                RingProducer producer = RingProducer.attach(s, "wrapdeath")) {
            int record = RecordDescriptor.recordLength(48);
            int before = capacity / record - 1;
            for (int i = 0; i < before; i++) {
                send(producer, 5, i, 48);
            }
            assertEquals(before, drain(consumer, before).size());
            // A producer claimed the last 64 bytes (padding) plus a record at the start of the ring,
            // wrote the padding and died before the record's header.
            UnsafeBuffer raw = (UnsafeBuffer) producer.buffer();
            long claimed = (long) before * record;
            int toEnd = capacity - (int) claimed;
            announceDeadClaim(raw, claimed, toEnd + record);
            raw.putLongOrdered(RingDescriptor.HEADER_LENGTH + (int) claimed,
                    RecordDescriptor.header(toEnd, RecordDescriptor.STATUS_READY, RecordDescriptor.TYPE_PADDING, 40));
            raw.putLongVolatile(RingDescriptor.TAIL_OFFSET, claimed + toEnd + record);

            send(producer, 5, before, 48);
            assertEquals(List.of(new Delivered(5, 48, before)), drain(consumer, 1));
            assertEquals(1, consumer.metrics().skipped());
        }
    }

    @Test
    void aLiveProducersClaimIsWaitedForEvenIfADeadOneAnnouncedTheSamePosition() throws Exception {
        // A claim is announced before the CAS that makes it: a producer that lost the CAS at this
        // position and died leaves a stale announcement. The live winner's must win.
        RingSettings s = settings(dir, 64 * 1024).withClock(steppingClock(), TimeUnit.MILLISECONDS.toNanos(1));
        try (RingConsumer consumer = RingConsumer.create(s, "stale");
                RingProducer producer = RingProducer.attach(s, "stale")) {
            UnsafeBuffer raw = (UnsafeBuffer) producer.buffer();
            claimWithoutHeader(raw, 64);
            announceDeadClaim(raw, 0, 64);
            for (int i = 0; i < 5; i++) {
                assertEquals(0, consumer.poll((t, b, o, l) -> {}, 10));
            }
            assertEquals(0, consumer.metrics().skipped(), "the live producer may have won the space");
        }
    }

    @Test
    void spaceClaimedByALiveProducerIsWaitedForEvenWithoutAHeader() {
        AtomicLong clock = new AtomicLong(1);
        RingSettings s = settings(dir, 64 * 1024).withClock(clock::get, 1);
        try (RingConsumer consumer = RingConsumer.create(s, "slowclaim");
                RingProducer producer = RingProducer.attach(s, "slowclaim")) {
            UnsafeBuffer raw = (UnsafeBuffer) producer.buffer();
            claimWithoutHeader(raw, 64);
            for (int i = 0; i < 5; i++) {
                clock.addAndGet(1_000_000_000L);
                assertEquals(0, consumer.poll((t, b, o, l) -> {}, 10));
            }
            assertEquals(0, consumer.metrics().skipped(), "a live producer's claim is never skipped");
            assertTrue(consumer.metrics().stalls() >= 5);
        }
    }

    @Test
    void handlerFailureRedeliversOnlyTheFailingRecord() {
        RingSettings s = settings(dir, 8192);
        try (RingConsumer consumer = RingConsumer.create(s, "throwing");
                RingProducer producer = RingProducer.attach(s, "throwing")) {
            for (int i = 0; i < 3; i++) {
                send(producer, 1, i, 20);
            }
            List<Long> seen = new ArrayList<>();
            assertThrows(IllegalStateException.class, () -> consumer.poll((t, b, o, l) -> {
                long sequence = checkPayload(b, o, t, l);
                if (sequence == 1 && !seen.contains(-1L)) {
                    seen.add(-1L);
                    throw new IllegalStateException("handler failure");
                }
                seen.add(sequence);
            }, 10));
            consumer.poll((t, b, o, l) -> seen.add(checkPayload(b, o, t, l)), 10);
            assertEquals(List.of(0L, -1L, 1L, 2L), seen);
        }
    }

    @Test
    @org.junit.jupiter.api.Timeout(value = 60, unit = TimeUnit.SECONDS)
    void parkedConsumerIsWokenByTheNextCommitNotByItsTimeout() throws Exception {
        RingSettings s = settings(dir, 64 * 1024).withWakeup(true, 10_000);
        try (RingConsumer consumer = RingConsumer.create(s, "wake");
                RingProducer producer = RingProducer.attach(s, "wake")) {
            java.util.concurrent.LinkedBlockingQueue<Long> received = new java.util.concurrent.LinkedBlockingQueue<>();
            java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
            Thread thread = new Thread(() -> consumer.run((t, b, o, l) -> received.add(checkPayload(b, o, t, l)), running::get));
            thread.start();
            UnsafeBuffer raw = (UnsafeBuffer) producer.buffer();
            for (int i = 0; i < 3; i++) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (raw.getIntVolatile(RingDescriptor.CONSUMER_PARKED_OFFSET) == 0) {
                    assertTrue(System.nanoTime() < deadline, "consumer never parked");
                    Thread.onSpinWait();
                }
                long sent = System.nanoTime();
                send(producer, 4, i, 20);
                Long got = received.poll(5, TimeUnit.SECONDS);
                assertEquals(i, got, "delivered after the wake-up, well before the 10 s block ends");
                assertTrue(System.nanoTime() - sent < TimeUnit.SECONDS.toNanos(5));
            }
            running.set(false);
            send(producer, 4, 3, 20); // wakes it so it sees running == false
            thread.join(TimeUnit.SECONDS.toMillis(15));
            assertFalse(thread.isAlive());
        }
    }

    @Test
    void producersFailFastOnceTheConsumerClosedTheRing() {
        RingSettings s = settings(dir, 8192);
        RingConsumer consumer = RingConsumer.create(s, "closing");
        try (RingProducer producer = RingProducer.attach(s, "closing")) {
            consumer.close();
            assertThrows(RingClosedException.class, () -> producer.tryClaim(1, 10));
            assertThrows(RingFileException.class, () -> RingProducer.attach(s, "closing"), "file removed on close");
        }
    }
}
