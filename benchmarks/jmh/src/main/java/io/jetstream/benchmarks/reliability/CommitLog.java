package io.jetstream.benchmarks.reliability;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.BitSet;

/**
 * The soak receiver's commit log: entries {@code [long epoch][long sequence][int count][long index] x count}.
 * A SIGKILL may tear the last entry; {@link #recover} cuts it off.
 */
final class CommitLog {
    private static final int HEAD = 8 + 8 + 4;

    private CommitLog() {}

    /** The last complete entry's epoch and sequence ({0, 0} for none); a torn tail is truncated. */
    static long[] recover(Path log) throws IOException {
        long[] last = {0, 0};
        if (!Files.exists(log)) {
            return last;
        }
        long complete = 0;
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer head = ByteBuffer.allocate(HEAD).order(ByteOrder.BIG_ENDIAN);
            long size = ch.size();
            while (complete + HEAD <= size) {
                head.clear();
                ch.read(head, complete);
                head.flip();
                long epoch = head.getLong();
                long sequence = head.getLong();
                int count = head.getInt();
                long end = complete + HEAD + 8L * count;
                if (count < 0 || end > size) {
                    break;
                }
                last[0] = epoch;
                last[1] = sequence;
                complete = end;
            }
            ch.truncate(complete);
        }
        return last;
    }

    /** What the log says was delivered: distinct indexes below {@code sent}, and deliveries beyond the first. */
    record Tally(long delivered, long duplicated, long outside) {}

    static Tally tally(Path log, long sent) throws IOException {
        BitSet seen = new BitSet();
        long duplicated = 0;
        long outside = 0;
        try (java.io.DataInputStream in = new java.io.DataInputStream(
                new java.io.BufferedInputStream(Files.newInputStream(log), 1 << 20))) {
            while (in.available() > 0) {
                in.readLong();
                in.readLong();
                int count = in.readInt();
                for (int i = 0; i < count; i++) {
                    long index = in.readLong();
                    if (index < 0 || index >= sent || index > Integer.MAX_VALUE) {
                        outside++;
                    } else if (seen.get((int) index)) {
                        duplicated++;
                    } else {
                        seen.set((int) index);
                    }
                }
            }
        }
        return new Tally(seen.cardinality(), duplicated, outside);
    }
}
