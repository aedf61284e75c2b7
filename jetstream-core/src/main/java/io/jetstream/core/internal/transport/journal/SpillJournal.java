package io.jetstream.core.internal.transport.journal;

import io.jetstream.core.internal.transport.protocol.ProtocolDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The overflow of an acknowledged stream: sealed BATCH frames that did not fit in the stream's
 * memory budget, appended to a Chronicle Queue in a directory of their own and read back in order
 * when memory frees up. A journal holds only frames younger than everything in memory, so reading it
 * forward keeps the stream's order. When everything written has been read back, the queue files are
 * deleted and the next spill starts a fresh queue.
 *
 * <p>Not thread-safe: the owning sender calls it under its outbox lock, from whichever thread holds
 * that lock (Chronicle's single-thread checks are disabled for that reason).
 */
public final class SpillJournal implements StreamJournal {
    private static final Logger LOG = LoggerFactory.getLogger(SpillJournal.class);

    private final Path directory;
    private final int maxFrameLength;
    private final long maxBytes;
    private final byte[] scratch;

    private ChronicleQueue queue;
    private ExcerptAppender appender;
    private ExcerptTailer tailer;
    private long frames;
    private long bytes;

    /**
     * @param directory created if absent; anything there from an earlier run is removed (a sender's
     *     journal holds only its own incarnation's batches)
     */
    public SpillJournal(Path directory, int maxFrameLength, long maxBytes) {
        this.directory = directory;
        this.maxFrameLength = maxFrameLength;
        this.maxBytes = maxBytes;
        this.scratch = new byte[maxFrameLength + ProtocolDescriptor.LENGTH_FIELD];
        deleteQueueFiles();
    }

    @Override
    public boolean writesAhead() {
        return false;
    }

    /** Whether a frame of {@code length} bytes fits in the journal's budget. */
    @Override
    public boolean hasRoomFor(int length) {
        return bytes + length <= maxBytes;
    }

    /** Appends a spilled frame (readable bytes, not consumed); the caller keeps ownership of {@code frame}. */
    @Override
    public void append(ByteBuf frame, long sequence, boolean spilled) {
        if (!spilled) {
            return; // memory keeps it: a spill journal holds only the overflow
        }
        int n = frame.readableBytes();
        try {
            if (queue == null) {
                open();
            }
            frame.getBytes(frame.readerIndex(), scratch, 0, n);
            try (DocumentContext dc = appender.writingDocument()) {
                dc.wire().bytes().write(scratch, 0, n);
            }
        } catch (RuntimeException e) {
            throw e instanceof JournalException j ? j : new JournalException(directory, "cannot append batch " + sequence, e);
        }
        frames++;
        bytes += n;
    }

    /**
     * The oldest frame not yet read back, in a new buffer from {@code alloc}, or null if none.
     *
     * @throws JournalCorruptedException if an entry is not a frame this journal could have written
     */
    @Override
    public ByteBuf pollSpilled(ByteBufAllocator alloc) {
        if (frames == 0) {
            return null;
        }
        ByteBuf out;
        try (DocumentContext dc = tailer.readingDocument()) {
            if (!dc.isPresent()) {
                throw new JournalCorruptedException(directory, "expected " + frames + " more frames, the queue ends");
            }
            Bytes<?> in = dc.wire().bytes();
            long n = in.readRemaining();
            if (n < ProtocolDescriptor.LENGTH_FIELD + ProtocolDescriptor.TYPE_FIELD || n > scratch.length) {
                throw new JournalCorruptedException(directory, "entry of " + n + " bytes outside [5, " + scratch.length + "]");
            }
            in.read(scratch, 0, (int) n);
            int declared = ((scratch[0] & 0xff) << 24) | ((scratch[1] & 0xff) << 16) | ((scratch[2] & 0xff) << 8) | (scratch[3] & 0xff);
            if (declared != n - ProtocolDescriptor.LENGTH_FIELD || scratch[4] != ProtocolDescriptor.BATCH) {
                throw new JournalCorruptedException(directory, "entry of " + n + " bytes declares a frame of " + declared
                        + " bytes of type " + scratch[4]);
            }
            out = alloc.directBuffer((int) n, maxFrameLength + ProtocolDescriptor.LENGTH_FIELD).writeBytes(scratch, 0, (int) n);
        }
        frames--;
        bytes -= out.readableBytes();
        if (frames == 0) {
            closeQueue();
            deleteQueueFiles();
        }
        return out;
    }

    @Override
    public long spilledFrames() {
        return frames;
    }

    @Override
    public void acknowledged(long sequence) {
        // frames are forgotten as they are read back
    }

    public long bytes() {
        return bytes;
    }

    public Path directory() {
        return directory;
    }

    @Override
    public void close() {
        closeQueue();
        if (frames > 0) {
            LOG.warn("Journal {} closed with {} frames ({} bytes) never read back; deleting it", directory, frames, bytes);
        }
        deleteQueueFiles();
        frames = 0;
        bytes = 0;
    }

    private void open() {
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new JournalException(directory, "cannot create the journal directory", e);
        }
        long block = Math.max(64L << 20, Long.highestOneBit(4L * scratch.length) << 1);
        queue = SingleChronicleQueueBuilder.binary(directory).blockSize(block).build();
        appender = queue.createAppender();
        appender.singleThreadedCheckDisabled(true);
        tailer = queue.createTailer();
        tailer.singleThreadedCheckDisabled(true);
    }

    private void closeQueue() {
        if (queue != null) {
            tailer.close();
            appender.close();
            queue.close();
            queue = null;
            appender = null;
            tailer = null;
        }
    }

    private void deleteQueueFiles() {
        if (!Files.isDirectory(directory)) {
            return;
        }
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).filter(p -> !p.equals(directory)).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot delete journal file " + p, e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list journal directory " + directory, e);
        }
    }
}
