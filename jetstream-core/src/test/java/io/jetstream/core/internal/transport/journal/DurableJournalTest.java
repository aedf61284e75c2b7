package io.jetstream.core.internal.transport.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.TransportOptions.JournalSync;
import io.jetstream.core.internal.transport.protocol.BatchFrameBuilder;
import io.jetstream.core.internal.transport.protocol.ProtocolDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The durable journal across "restarts" (close and reopen, as after a crash the queue files are what
 * is left): the epoch is kept, unacknowledged batches come back in order (the oldest in memory, the
 * rest read back from disk), the last record is found for the application, acknowledged generations
 * are deleted, and a journal of another stream or a damaged entry is refused by name.
 */
@Tag("journal")
class DurableJournalTest {
    private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
    private static final int MAX_FRAME = 4096;

    @TempDir
    Path dir;

    private static ByteBuf frame(long sequence, long firstIndex, int records) {
        BatchFrameBuilder b = new BatchFrameBuilder(MAX_FRAME);
        b.begin(ALLOC.directBuffer());
        for (int i = 0; i < records; i++) {
            byte[] r = ByteBuffer.allocate(40).putLong(firstIndex + i).array();
            b.append(3, r, 0, r.length);
        }
        return b.seal(sequence, true);
    }

    private DurableJournal open(long memory, long newEpoch) {
        return DurableJournal.open(dir.resolve("j"), "peer", "s", MAX_FRAME, 1 << 20, JournalSync.NONE, memory, ALLOC, newEpoch);
    }

    private static long sequenceOf(ByteBuf f) {
        return f.getLong(f.readerIndex() + ProtocolDescriptor.LENGTH_FIELD + ProtocolDescriptor.TYPE_FIELD);
    }

    @Test
    void aReopenedJournalKeepsItsEpochAndGivesBackWhatWasNotAcknowledged() {
        DurableJournal j = open(1 << 20, 77);
        assertEquals(77, j.epoch());
        for (long seq = 1; seq <= 20; seq++) {
            ByteBuf f = frame(seq, (seq - 1) * 10, 10);
            j.append(f, seq, false);
            f.release();
        }
        j.acknowledged(12);
        j.close(); // as a crash leaves it: the queue files

        DurableJournal again = open(5 * 500, 99);
        assertEquals(77, again.epoch(), "the incarnation survives");
        DurableJournal.Recovery r = again.recovery();
        assertEquals(8, r.batches(), "13..20 were not acknowledged");
        assertEquals(20, r.lastSequence());
        assertEquals(12, r.acknowledged());
        assertEquals(199, ByteBuffer.wrap(r.lastRecord()).getLong(), "the last record the journal holds");
        assertEquals(3, r.lastRecordTarget());
        List<Long> sequences = new ArrayList<>();
        r.frames().forEach(f -> {
            sequences.add(sequenceOf(f));
            f.release();
        });
        assertTrue(sequences.size() < 8, "the memory budget kept only the oldest in memory: " + sequences);
        assertEquals(13, sequences.get(0));
        long next = 13 + sequences.size();
        assertEquals(8 - sequences.size(), again.spilledFrames());
        ByteBuf spilled;
        while ((spilled = again.pollSpilled(ALLOC)) != null) {
            assertEquals(next++, sequenceOf(spilled), "spilled batches come back in order");
            spilled.release();
        }
        assertEquals(21, next);
        again.close();
    }

    @Test
    void acknowledgedGenerationsAreDeleted() throws Exception {
        DurableJournal j = DurableJournal.open(dir.resolve("j"), "peer", "s", MAX_FRAME, 64 << 10, JournalSync.NONE, 1 << 20, ALLOC, 5);
        for (long seq = 1; seq <= 200; seq++) { // 200 x ~500 B over generations of 16 KiB
            ByteBuf f = frame(seq, seq * 10, 10);
            j.append(f, seq, false);
            f.release();
        }
        long generations = generations(dir.resolve("j"));
        assertTrue(generations > 3, "the journal rolled: " + generations);
        assertTrue(!j.hasRoomFor(64 << 10), "the budget counts what is journaled and not acknowledged");
        j.acknowledged(200);
        assertTrue(generations(dir.resolve("j")) <= 1, "only the generation being written is left");
        assertTrue(j.hasRoomFor(32 << 10));
        j.close();
        assertEquals(0, generations(dir.resolve("j")), "a journal closed with everything acknowledged keeps no batch");
        DurableJournal again = DurableJournal.open(dir.resolve("j"), "peer", "s", MAX_FRAME, 64 << 10, JournalSync.NONE, 1 << 20,
                ALLOC, 6);
        assertEquals(0, again.recovery().batches());
        assertEquals(200, again.recovery().lastSequence(), "the stream goes on after what was acknowledged");
        assertNull(again.recovery().lastRecord());
        again.close();
    }

    private static long generations(Path journal) throws Exception {
        try (Stream<Path> files = Files.list(journal)) {
            return files.filter(p -> p.getFileName().toString().startsWith("gen-")).count();
        }
    }

    @Test
    void aJournalOfAnotherStreamOrWithAForeignEntryIsRefusedByName() throws Exception {
        DurableJournal j = open(1 << 20, 1);
        ByteBuf f = frame(1, 0, 1);
        j.append(f, 1, false);
        f.release();
        j.close();
        JournalCorruptedException other = assertThrows(JournalCorruptedException.class,
                () -> DurableJournal.open(dir.resolve("j"), "peer", "another", MAX_FRAME, 1 << 20, JournalSync.NONE, 1 << 20, ALLOC, 2));
        assertTrue(other.getMessage().contains("belongs to stream peer/s"), other.getMessage());

        Files.writeString(dir.resolve("j").resolve(DurableJournal.META), "peer=peer\nstream=s\nepoch=x\nacknowledged=0\n");
        JournalCorruptedException meta = assertThrows(JournalCorruptedException.class, () -> open(1 << 20, 3));
        assertTrue(meta.getMessage().contains("malformed number"), meta.getMessage());
    }

    @Test
    void everySyncModeWritesAJournalThatReadsBack() {
        for (JournalSync sync : JournalSync.values()) {
            Path d = dir.resolve("sync-" + sync);
            DurableJournal j = DurableJournal.open(d, "peer", "s", MAX_FRAME, 1 << 20, sync, 1 << 20, ALLOC, 9);
            for (long seq = 1; seq <= 5; seq++) {
                ByteBuf f = frame(seq, seq, 2);
                j.append(f, seq, false);
                f.release();
            }
            j.close();
            DurableJournal again = DurableJournal.open(d, "peer", "s", MAX_FRAME, 1 << 20, sync, 1 << 20, ALLOC, 10);
            assertEquals(5, again.recovery().batches(), sync.toString());
            again.recovery().frames().forEach(ByteBuf::release);
            again.close();
        }
    }
}
