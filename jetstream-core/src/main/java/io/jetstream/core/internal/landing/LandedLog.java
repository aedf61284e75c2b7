package io.jetstream.core.internal.landing;

import io.jetstream.core.api.TransportOptions.JournalSync;
import io.jetstream.core.internal.transport.journal.JournalCorruptedException;
import io.jetstream.core.internal.transport.journal.JournalException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.SyncMode;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The journal of one landed stream: a sequence of generations, each a Chronicle Queue in a
 * directory named after the first ordinal it holds ({@code gen-<ordinal>}), of documents the
 * {@link LandedStream} encodes (batches, commits, snapshots). A generation is closed once it holds
 * about {@code generationBytes}; the next one starts with a snapshot of the stream's state, so that
 * a generation can be deleted whole once every record in it is released and read
 * ({@link #deleteBefore}), and the journal replayed from its oldest generation on.
 *
 * <p>A document is written whole or not at all (Chronicle's document context; a process killed in
 * the middle leaves an incomplete document that readers skip). What survives what is
 * {@code landing.sync}'s choice (Chronicle's {@link SyncMode}).
 *
 * <p>Not thread-safe: its landed stream calls it under its lock (Chronicle's single-thread checks
 * are disabled for that reason).
 */
final class LandedLog implements AutoCloseable {
    private static final String PREFIX = "gen-";

    /** Receives the documents of the journal when it opens, oldest first. */
    @FunctionalInterface
    interface Replay {
        /** @param doc valid only during this call */
        void onDocument(DirectBuffer doc, int length);
    }

    private final Path directory;
    private final JournalSync sync;
    private final long generationBytes;
    /** Chronicle's block size: a document may take at most a quarter of a block. */
    private final long blockSize;
    private final List<Generation> generations = new ArrayList<>();
    private final ExpandableArrayBuffer readScratch = new ExpandableArrayBuffer(1 << 16);
    private long bytes;

    private LandedLog(Path directory, JournalSync sync, long generationBytes, int maxDocumentBytes) {
        this.directory = directory;
        this.sync = sync;
        this.generationBytes = generationBytes;
        this.blockSize = Math.max(16L << 20, Long.highestOneBit(4L * (maxDocumentBytes + Integer.BYTES)) << 1);
    }

    /**
     * Opens the journal in {@code directory} (creating it), replaying what it holds.
     *
     * @param maxDocumentBytes the largest document it will be given (a batch of the largest frame and its header)
     * @return the journal; {@link #isEmpty()} when it held nothing
     * @throws JournalException if the directory cannot be used
     */
    static LandedLog open(Path directory, JournalSync sync, long generationBytes, int maxDocumentBytes, Replay replay) {
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new JournalException(directory, "cannot create the landed stream's journal directory", e);
        }
        LandedLog log = new LandedLog(directory, sync, generationBytes, maxDocumentBytes);
        List<Path> dirs;
        try (Stream<Path> list = Files.list(directory)) {
            dirs = list.filter(p -> p.getFileName().toString().startsWith(PREFIX) && Files.isDirectory(p))
                    .sorted(Comparator.comparing(p -> p.getFileName().toString())).toList();
        } catch (IOException e) {
            throw new JournalException(directory, "cannot list the journal", e);
        }
        for (Path dir : dirs) {
            long first;
            try {
                first = Long.parseLong(dir.getFileName().toString().substring(PREFIX.length()));
            } catch (NumberFormatException e) {
                throw new JournalCorruptedException(directory, "unexpected generation directory " + dir.getFileName());
            }
            Generation g = new Generation(dir, first);
            g.open(sync, log.blockSize);
            log.generations.add(g);
            try (ExcerptTailer tailer = g.queue.createTailer()) {
                tailer.singleThreadedCheckDisabled(true);
                while (true) {
                    try (DocumentContext dc = tailer.readingDocument()) {
                        if (!dc.isPresent()) {
                            break;
                        }
                        int n = log.read(dc.wire().bytes());
                        g.bytes += n;
                        log.bytes += n;
                        replay.onDocument(log.readScratch, n);
                    }
                }
            }
        }
        return log;
    }

    boolean isEmpty() {
        return generations.isEmpty();
    }

    /**
     * Whether the owner should {@link #roll} before its next document: the current generation is full
     * and records landed since it began ({@code landed}: the next record's ordinal).
     */
    boolean needsRoll(long landed) {
        return generations.isEmpty() || (last().bytes >= generationBytes && last().first != landed);
    }

    /** Starts generation {@code gen-<firstOrdinal>}, whose first document is {@code snapshot}. */
    void roll(long firstOrdinal, DirectBuffer snapshot, int length) {
        if (!generations.isEmpty()) {
            last().closeAppender();
        }
        Path dir = directory.resolve(String.format("%s%020d", PREFIX, firstOrdinal));
        Generation g = new Generation(dir, firstOrdinal);
        g.open(sync, blockSize);
        generations.add(g);
        append(snapshot, length);
    }

    /** Appends one document (whole or, if this throws, not at all). */
    void append(DirectBuffer doc, int length) {
        Generation g = last();
        if (g.appender == null) {
            g.appender = g.queue.createAppender();
            g.appender.singleThreadedCheckDisabled(true);
        }
        try (DocumentContext dc = g.appender.writingDocument()) {
            try {
                Bytes<?> out = dc.wire().bytes();
                out.writeInt(length);
                out.write(doc.byteArray(), 0, length);
            } catch (RuntimeException e) {
                dc.rollbackOnClose();
                throw e;
            }
        } catch (RuntimeException e) {
            throw new JournalException(directory, "cannot append to the landed stream's journal", e);
        }
        if (sync != JournalSync.NONE) {
            g.appender.sync();
        }
        g.bytes += length;
        bytes += length;
    }

    /** Deletes every generation whose records all come before {@code ordinal} (the next generation starts at or before it). */
    int deleteBefore(long ordinal) {
        int deleted = 0;
        while (generations.size() > 1 && generations.get(1).first <= ordinal) {
            Generation g = generations.remove(0);
            bytes -= g.bytes;
            g.delete(directory);
            deleted++;
        }
        return deleted;
    }

    /** Bytes of documents the journal holds. */
    long bytes() {
        return bytes;
    }

    /** The first ordinal the journal still holds. */
    long firstOrdinal() {
        return generations.isEmpty() ? 0 : generations.get(0).first;
    }

    /** A reader of the documents from the generation that holds {@code ordinal} on; null while the journal is empty. */
    Cursor cursor(long ordinal) {
        if (generations.isEmpty()) {
            return null;
        }
        int i = generations.size() - 1;
        while (i > 0 && generations.get(i).first > ordinal) {
            i--;
        }
        return new Cursor(generations.get(i));
    }

    @Override
    public void close() {
        for (Generation g : generations) {
            g.close();
        }
        generations.clear();
    }

    /** Deletes every generation and the directory (a stream nobody will read again). */
    void deleteAll() {
        for (Generation g : generations) {
            g.delete(directory);
        }
        generations.clear();
        try {
            Files.deleteIfExists(directory);
        } catch (IOException e) {
            throw new JournalException(directory, "cannot delete the landed stream's journal", e);
        }
    }

    private Generation last() {
        return generations.get(generations.size() - 1);
    }

    private int read(Bytes<?> in) {
        long remaining = in.readRemaining();
        if (remaining < Integer.BYTES) {
            throw new JournalCorruptedException(directory, "a document of " + remaining + " bytes");
        }
        int n = in.readInt();
        if (n < 0 || n > remaining - Integer.BYTES) {
            throw new JournalCorruptedException(directory, "a document claims " + n + " bytes, holds " + (remaining - Integer.BYTES));
        }
        readScratch.checkLimit(n);
        in.read(readScratch.byteArray(), 0, n);
        return n;
    }

    /**
     * Reads documents in order across generations, from a generation's start. Not thread-safe; used
     * under the stream's lock, like the journal.
     */
    final class Cursor implements AutoCloseable {
        private Generation generation;
        private ExcerptTailer tailer;
        private final ExpandableArrayBuffer doc = new ExpandableArrayBuffer(1 << 12);
        private final UnsafeBuffer view = new UnsafeBuffer(0, 0);

        private Cursor(Generation g) {
            position(g);
        }

        private void position(Generation g) {
            closeTailer();
            generation = g;
            tailer = g.queue.createTailer();
            tailer.singleThreadedCheckDisabled(true);
        }

        /**
         * The next document, or null at the end of the journal for now.
         *
         * @return a view valid until the next call
         * @throws JournalException if the generation it was reading was deleted
         */
        DirectBuffer next() {
            while (true) {
                if (generation.queue == null) {
                    throw new JournalException(directory, "the generation being read (" + generation.dir.getFileName()
                            + ") was deleted", new IllegalStateException("released and past retention"));
                }
                try (DocumentContext dc = tailer.readingDocument()) {
                    if (dc.isPresent()) {
                        Bytes<?> in = dc.wire().bytes();
                        int n = in.readInt();
                        if (n < 0 || n > in.readRemaining()) {
                            throw new JournalCorruptedException(directory, "a document claims " + n + " bytes");
                        }
                        doc.checkLimit(n);
                        in.read(doc.byteArray(), 0, n);
                        view.wrap(doc.byteArray(), 0, n);
                        return view;
                    }
                }
                int i = generations.indexOf(generation);
                if (i < 0 || i == generations.size() - 1) {
                    return null;
                }
                position(generations.get(i + 1));
            }
        }

        private void closeTailer() {
            if (tailer != null) {
                tailer.close();
                tailer = null;
            }
        }

        @Override
        public void close() {
            closeTailer();
        }
    }

    private static final class Generation {
        final Path dir;
        final long first;
        long bytes;
        ChronicleQueue queue;
        ExcerptAppender appender;

        Generation(Path dir, long first) {
            this.dir = dir;
            this.first = first;
        }

        void open(JournalSync sync, long blockSize) {
            SyncMode mode = switch (sync) {
                case NONE -> SyncMode.NONE;
                case ASYNC -> SyncMode.ASYNC;
                case SYNC -> SyncMode.SYNC;
            };
            queue = SingleChronicleQueueBuilder.binary(dir).blockSize(blockSize).syncMode(mode).build();
        }

        void closeAppender() {
            if (appender != null) {
                appender.close();
                appender = null;
            }
        }

        void close() {
            closeAppender();
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
                throw new JournalException(journal, "cannot delete generation " + dir.getFileName(), e);
            }
        }
    }
}
