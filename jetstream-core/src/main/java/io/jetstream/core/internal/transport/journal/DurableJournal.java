package io.jetstream.core.internal.transport.journal;

import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.BATCH;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.BATCH_FRAME_OVERHEAD;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.BATCH_SEQUENCE_OFFSET;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.LENGTH_FIELD;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.RECORD_HEADER_LENGTH;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.TAG_TARGET;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.TYPE_FIELD;

import io.jetstream.core.api.TransportOptions.JournalSync;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.SyncMode;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write-ahead journal of a durable stream: every sealed batch is appended to a Chronicle Queue
 * before it is sent, and the stream's identity — its epoch — is kept next to it, so that a sender
 * restarted with the same peer and stream id resumes the same incarnation and replays what its
 * receiver has not acknowledged (the receiver drops what it already delivered, by sequence).
 *
 * <p>Layout of its directory: {@value #META} (peer, stream, epoch, the acknowledged sequence as of
 * the last pruning) and one Chronicle Queue per generation, {@code gen-<first sequence>}. A
 * generation is closed once it holds {@link #rollBytes} bytes; a closed generation whose batches are
 * all acknowledged is deleted. Batches beyond the stream's memory budget ("spilled") are read back
 * from the queue, in order.
 *
 * <p>What is on disk when ({@code transport.journal.sync}): a batch is in the journal's memory-mapped
 * file, hence in the page cache, before the stream sends it — it survives the process being killed.
 * {@code async} starts write-back after each batch, {@code sync} waits for it (Chronicle's
 * {@link SyncMode}): only then does a batch survive the host. The metadata file is replaced
 * atomically (and forced to disk with {@code sync}).
 *
 * <p>Not thread-safe: the owning outbox calls it under its lock (Chronicle's single-thread checks
 * are disabled for that reason).
 */
public final class DurableJournal implements StreamJournal {
    private static final Logger LOG = LoggerFactory.getLogger(DurableJournal.class);
    static final String META = "stream.meta";
    private static final String GENERATION_PREFIX = "gen-";

    /** What a journal held for its stream when it was opened. */
    public record Recovery(List<ByteBuf> frames, long batches, long acknowledged, long lastSequence, int lastRecordTarget,
            byte[] lastRecord) {
        public static final Recovery NONE = new Recovery(List.of(), 0, 0, 0, -1, null);
    }

    private final Path directory;
    private final int maxFrameLength;
    private final long maxBytes;
    private final long rollBytes;
    private final JournalSync sync;
    private final byte[] scratch;
    private final long epoch;
    private final String peerId;
    private final String streamId;
    private final Deque<Generation> generations = new ArrayDeque<>();
    private Recovery recovery = Recovery.NONE;

    private long acknowledged;
    private long bytes;
    /** The appending generation (the last one), or null before the first append after opening. */
    private Generation current;
    // Spilled batches: the next to read back and how many are left.
    private long spilledFrames;
    private long nextSpilled;
    private Generation spillGeneration;
    private ExcerptTailer spillTailer;

    private DurableJournal(Path directory, String peerId, String streamId, int maxFrameLength, long maxBytes, JournalSync sync,
            long epoch, long acknowledged) {
        this.directory = directory;
        this.peerId = peerId;
        this.streamId = streamId;
        this.maxFrameLength = maxFrameLength;
        this.maxBytes = maxBytes;
        this.rollBytes = Math.max(4L * (maxFrameLength + LENGTH_FIELD), Math.min(64L << 20, maxBytes / 4));
        this.sync = sync;
        this.epoch = epoch;
        this.acknowledged = acknowledged;
        this.scratch = new byte[maxFrameLength + LENGTH_FIELD];
    }

    /**
     * Opens the journal of a stream, creating it with {@code newEpoch} if absent, else recovering
     * what it holds beyond the acknowledged sequence: the oldest batches up to {@code memoryBudget}
     * bytes are read into buffers from {@code alloc} ({@link #recovery()}), the rest stay spilled.
     *
     * @throws JournalException if the directory cannot be used
     * @throws JournalCorruptedException if the metadata or an entry is not what this journal writes,
     *     or the journal belongs to another stream
     */
    public static DurableJournal open(Path directory, String peerId, String streamId, int maxFrameLength, long maxBytes,
            JournalSync sync, long memoryBudget, ByteBufAllocator alloc, long newEpoch) {
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new JournalException(directory, "cannot create the journal directory", e);
        }
        Path meta = directory.resolve(META);
        long epoch = newEpoch;
        long acked = 0;
        if (Files.exists(meta)) {
            Properties p = readMeta(directory, meta);
            if (!peerId.equals(p.getProperty("peer")) || !streamId.equals(p.getProperty("stream"))) {
                throw new JournalCorruptedException(directory, "it belongs to stream " + p.getProperty("peer") + "/"
                        + p.getProperty("stream") + ", not " + peerId + "/" + streamId);
            }
            epoch = Long.parseLong(p.getProperty("epoch"));
            acked = Long.parseLong(p.getProperty("acknowledged"));
        }
        DurableJournal journal = new DurableJournal(directory, peerId, streamId, maxFrameLength, maxBytes, sync, epoch, acked);
        if (!Files.exists(meta)) {
            journal.writeMeta();
        }
        journal.recover(memoryBudget, alloc);
        return journal;
    }

    /** The stream's incarnation, kept across restarts. */
    public long epoch() {
        return epoch;
    }

    /** What was recovered at opening (the frames belong to whoever restores them). */
    public Recovery recovery() {
        return recovery;
    }

    @Override
    public boolean writesAhead() {
        return true;
    }

    @Override
    public boolean hasRoomFor(int length) {
        return bytes + length <= maxBytes;
    }

    @Override
    public void append(ByteBuf frame, long sequence, boolean spilled) {
        int n = frame.readableBytes();
        try {
            if (current == null || current.bytes >= rollBytes) {
                roll(sequence);
            }
            frame.getBytes(frame.readerIndex(), scratch, 0, n);
            try (DocumentContext dc = current.appender.writingDocument()) {
                dc.wire().bytes().write(scratch, 0, n);
            }
            if (sync != JournalSync.NONE) {
                current.appender.sync(); // msync up to this batch, as the queue's SyncMode says
            }
        } catch (RuntimeException e) {
            throw e instanceof JournalException j ? j : new JournalException(directory, "cannot append batch " + sequence, e);
        }
        current.lastSequence = sequence;
        current.bytes += n;
        bytes += n;
        if (spilled) {
            if (spilledFrames == 0) {
                nextSpilled = sequence;
                positionSpillReader(current, current.appender.lastIndexAppended());
            }
            spilledFrames++;
        }
    }

    /** Starts a new generation at {@code firstSequence}: the previous one is complete. */
    private void roll(long firstSequence) {
        if (current != null) {
            current.appender.close();
            current.appender = null;
        }
        Path dir = directory.resolve(String.format("%s%020d", GENERATION_PREFIX, firstSequence));
        Generation g = new Generation(dir, firstSequence);
        g.open(sync, blockSize());
        g.appender = g.queue.createAppender();
        g.appender.singleThreadedCheckDisabled(true);
        generations.addLast(g);
        current = g;
    }

    private long blockSize() {
        return Math.max(4L << 20, Long.highestOneBit(4L * scratch.length) << 1);
    }

    private void positionSpillReader(Generation g, long index) {
        closeSpillReader();
        spillGeneration = g;
        spillTailer = g.queue.createTailer();
        spillTailer.singleThreadedCheckDisabled(true);
        if (!spillTailer.moveToIndex(index)) {
            throw new JournalException(directory, "cannot find spilled batch " + nextSpilled, new IllegalStateException(
                    "no entry at index " + Long.toHexString(index) + " of " + g.dir));
        }
    }

    @Override
    public ByteBuf pollSpilled(ByteBufAllocator alloc) {
        while (spilledFrames > 0) {
            ByteBuf frame = readNext(alloc);
            if (frame == null) {
                advanceSpillGeneration();
                continue;
            }
            long sequence = sequenceOf(frame);
            if (sequence < nextSpilled) {
                frame.release(); // an entry memory kept, before the spilled run
                continue;
            }
            if (sequence != nextSpilled) {
                frame.release();
                throw new JournalCorruptedException(directory, "expected spilled batch " + nextSpilled + ", found " + sequence);
            }
            nextSpilled++;
            spilledFrames--;
            if (spilledFrames == 0) {
                closeSpillReader();
            }
            return frame;
        }
        return null;
    }

    private ByteBuf readNext(ByteBufAllocator alloc) {
        try (DocumentContext dc = spillTailer.readingDocument()) {
            if (!dc.isPresent()) {
                return null;
            }
            return copyFrame(dc.wire().bytes(), alloc);
        }
    }

    private void advanceSpillGeneration() {
        Generation next = null;
        boolean found = false;
        for (Generation g : generations) {
            if (found) {
                next = g;
                break;
            }
            found = g == spillGeneration;
        }
        if (next == null) {
            throw new JournalCorruptedException(directory, "expected " + spilledFrames + " more spilled batches from "
                    + nextSpilled + ", the journal ends");
        }
        closeSpillReader();
        spillGeneration = next;
        spillTailer = next.queue.createTailer();
        spillTailer.singleThreadedCheckDisabled(true);
    }

    private void closeSpillReader() {
        if (spillTailer != null) {
            spillTailer.close();
            spillTailer = null;
            spillGeneration = null;
        }
    }

    @Override
    public long spilledFrames() {
        return spilledFrames;
    }

    /** Deletes the complete generations whose batches were all delivered, and records the sequence. */
    @Override
    public void acknowledged(long sequence) {
        if (sequence <= acknowledged) {
            return;
        }
        acknowledged = sequence;
        boolean deleted = false;
        while (!generations.isEmpty() && generations.peekFirst() != current && generations.peekFirst() != spillGeneration
                && generations.peekFirst().lastSequence <= sequence) {
            Generation g = generations.pollFirst();
            bytes -= g.bytes;
            g.delete(directory);
            deleted = true;
        }
        if (deleted) {
            writeMeta();
        }
    }

    /** Bytes journaled and not yet deleted. */
    public long bytes() {
        return bytes;
    }

    /** Closes the queues and records the acknowledged sequence; unacknowledged batches stay for the next start. */
    @Override
    public void close() {
        closeSpillReader();
        for (Generation g : generations) {
            g.close();
        }
        if (generations.stream().allMatch(g -> g.lastSequence <= acknowledged)) {
            for (Generation g : generations) {
                g.delete(directory);
            }
            generations.clear();
            bytes = 0;
        }
        writeMeta();
        current = null;
    }

    // ------------------------------------------------------------------ recovery

    private void recover(long memoryBudget, ByteBufAllocator alloc) {
        List<Path> dirs = new ArrayList<>();
        try (Stream<Path> list = Files.list(directory)) {
            list.filter(p -> p.getFileName().toString().startsWith(GENERATION_PREFIX) && Files.isDirectory(p)).sorted().forEach(dirs::add);
        } catch (IOException e) {
            throw new JournalException(directory, "cannot list the journal", e);
        }
        List<ByteBuf> frames = new ArrayList<>();
        long kept = 0;
        long last = acknowledged;
        long unacknowledged = 0;
        ByteBuf lastSpilled = null;
        for (Path dir : dirs) {
            Generation g = new Generation(dir, firstSequenceOf(dir));
            g.open(sync, blockSize());
            generations.addLast(g);
            ExcerptTailer tailer = g.queue.createTailer();
            tailer.singleThreadedCheckDisabled(true);
            try {
                while (true) {
                    long index;
                    ByteBuf frame;
                    try (DocumentContext dc = tailer.readingDocument()) {
                        if (!dc.isPresent()) {
                            break;
                        }
                        index = dc.index();
                        frame = copyFrame(dc.wire().bytes(), alloc);
                    }
                    long sequence = sequenceOf(frame);
                    g.lastSequence = Math.max(g.lastSequence, sequence);
                    g.bytes += frame.readableBytes();
                    bytes += frame.readableBytes();
                    if (sequence <= acknowledged) {
                        frame.release();
                        continue;
                    }
                    if (sequence != last + 1 && last > acknowledged) {
                        frame.release();
                        throw new JournalCorruptedException(directory, "batch " + sequence + " follows batch " + last);
                    }
                    last = sequence;
                    unacknowledged++;
                    if (spilledFrames == 0 && kept + frame.readableBytes() <= memoryBudget) {
                        frames.add(frame);
                        kept += frame.readableBytes();
                        continue;
                    }
                    if (spilledFrames == 0) {
                        nextSpilled = sequence;
                        positionSpillReader(g, index);
                    }
                    spilledFrames++;
                    if (lastSpilled != null) {
                        lastSpilled.release();
                    }
                    lastSpilled = frame;
                }
            } finally {
                tailer.close();
            }
        }
        ByteBuf newest = lastSpilled != null ? lastSpilled : frames.isEmpty() ? null : frames.get(frames.size() - 1);
        int lastTarget = -1;
        byte[] lastRecord = null;
        if (newest != null) {
            int[] at = lastRecordOf(newest);
            if (at != null) {
                lastTarget = at[0];
                lastRecord = new byte[at[2]];
                newest.getBytes(at[1], lastRecord);
            }
        }
        if (lastSpilled != null) {
            lastSpilled.release();
        }
        recovery = new Recovery(List.copyOf(frames), unacknowledged, acknowledged, last, lastTarget, lastRecord);
        if (unacknowledged > 0) {
            LOG.info("Journal {}: incarnation {} has {} unacknowledged batches after {} (up to {}), {} of them in memory", directory,
                    Long.toHexString(epoch), unacknowledged, acknowledged, last, frames.size());
        }
    }

    /** Target, offset and length of the last record of a BATCH frame (its QoS tag skipped), or null for an empty batch. */
    private static int[] lastRecordOf(ByteBuf frame) {
        int at = frame.readerIndex() + BATCH_FRAME_OVERHEAD;
        int end = frame.writerIndex();
        int[] last = null;
        while (at + RECORD_HEADER_LENGTH <= end) {
            int target = frame.getInt(at);
            int length = frame.getInt(at + 4);
            if (length < 0 || at + RECORD_HEADER_LENGTH + length > end) {
                return last;
            }
            if (target != TAG_TARGET) {
                last = new int[] {target, at + RECORD_HEADER_LENGTH, length};
            }
            at += RECORD_HEADER_LENGTH + length;
        }
        return last;
    }

    private ByteBuf copyFrame(Bytes<?> in, ByteBufAllocator alloc) {
        long n = in.readRemaining();
        if (n < BATCH_FRAME_OVERHEAD || n > scratch.length) {
            throw new JournalCorruptedException(directory, "entry of " + n + " bytes outside [" + BATCH_FRAME_OVERHEAD + ", "
                    + scratch.length + "]");
        }
        in.read(scratch, 0, (int) n);
        int declared = ByteBuffer.wrap(scratch, 0, 4).order(ByteOrder.BIG_ENDIAN).getInt();
        if (declared != n - LENGTH_FIELD || scratch[4] != BATCH) {
            throw new JournalCorruptedException(directory, "entry of " + n + " bytes declares a frame of " + declared
                    + " bytes of type " + scratch[4]);
        }
        return alloc.directBuffer((int) n, maxFrameLength + LENGTH_FIELD).writeBytes(scratch, 0, (int) n);
    }

    private static long sequenceOf(ByteBuf frame) {
        return frame.getLong(frame.readerIndex() + LENGTH_FIELD + TYPE_FIELD + BATCH_SEQUENCE_OFFSET);
    }

    private long firstSequenceOf(Path dir) {
        try {
            return Long.parseLong(dir.getFileName().toString().substring(GENERATION_PREFIX.length()));
        } catch (NumberFormatException e) {
            throw new JournalCorruptedException(directory, "generation directory " + dir.getFileName() + " has no sequence");
        }
    }

    // ------------------------------------------------------------------ metadata

    private static Properties readMeta(Path directory, Path meta) {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(meta)) {
            p.load(in);
        } catch (IOException e) {
            throw new JournalException(directory, "cannot read " + META, e);
        }
        for (String key : List.of("peer", "stream", "epoch", "acknowledged")) {
            if (p.getProperty(key) == null) {
                throw new JournalCorruptedException(directory, META + " has no " + key);
            }
        }
        try {
            Long.parseLong(p.getProperty("epoch"));
            Long.parseLong(p.getProperty("acknowledged"));
        } catch (NumberFormatException e) {
            throw new JournalCorruptedException(directory, META + " has a malformed number: " + e.getMessage());
        }
        return p;
    }

    private void writeMeta() {
        Properties p = new Properties();
        p.setProperty("peer", peerId);
        p.setProperty("stream", streamId);
        p.setProperty("epoch", Long.toString(epoch));
        p.setProperty("acknowledged", Long.toString(acknowledged));
        Path temp = directory.resolve(META + ".tmp");
        try {
            try (OutputStream out = Files.newOutputStream(temp)) {
                p.store(out, "JetStream durable stream journal");
            }
            if (sync == JournalSync.SYNC) {
                try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                    ch.force(true);
                }
            }
            Files.move(temp, directory.resolve(META), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new JournalException(directory, "cannot write " + META, e);
        }
    }

    /** One Chronicle Queue of the journal. */
    private static final class Generation {
        final Path dir;
        final long firstSequence;
        long lastSequence;
        long bytes;
        ChronicleQueue queue;
        ExcerptAppender appender;

        Generation(Path dir, long firstSequence) {
            this.dir = dir;
            this.firstSequence = firstSequence;
            this.lastSequence = firstSequence - 1;
        }

        void open(JournalSync sync, long blockSize) {
            SyncMode mode = switch (sync) {
                case NONE -> SyncMode.NONE;
                case ASYNC -> SyncMode.ASYNC;
                case SYNC -> SyncMode.SYNC;
            };
            queue = SingleChronicleQueueBuilder.binary(dir).blockSize(blockSize).syncMode(mode).build();
        }

        void close() {
            if (appender != null) {
                appender.close();
                appender = null;
            }
            if (queue != null) {
                queue.close();
                queue = null;
            }
        }

        void delete(Path journal) {
            close();
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            } catch (IOException e) {
                throw new JournalException(journal, "cannot delete acknowledged generation " + dir.getFileName(), e);
            }
        }
    }
}
