package io.jetstream.benchmarks.model;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * The receiving end of {@link ModelValidation}: accepts one connection, reads whole frames, decodes
 * every record (copying its payload out, as a deserializer would), and answers each frame with its
 * transfer and decode times; between BEGIN and END it sums every event's latency from its event
 * time to the end of its batch's decoding, and its batch's transfer (write start to last byte, so
 * including any queue). Prints {@code READY <port>} once listening.
 *
 * <p>Arguments: bind address, port (0 = any); {@code --help} describes them.
 */
@Command(name = "ModelReceiverMain", mixinStandardHelpOptions = true,
        description = "The receiving JVM of ModelValidation: decodes batches and reports their times.")
public final class ModelReceiverMain implements Callable<Integer> {
    private ModelReceiverMain() {}

    @Parameters(index = "0", paramLabel = "BIND", description = "Address to listen on.")
    private String bind;
    @Parameters(index = "1", paramLabel = "PORT", description = "Port to listen on (0 = any; the chosen one is printed).")
    private int port;

    public static void main(String[] args) {
        int exit = new CommandLine(new ModelReceiverMain()).execute(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }

    @Override
    public Integer call() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(bind, port));
            System.out.println("READY " + ((InetSocketAddress) server.getLocalAddress()).getPort());
            System.out.flush();
            try (SocketChannel channel = server.accept()) {
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                serve(channel);
            } catch (EOFException done) {
                // the sender closed the connection: the run is over
            }
        }
        return 0;
    }

    private static void serve(SocketChannel channel) throws IOException {
        ByteBuffer frame = ByteBuffer.allocateDirect(ModelFrames.MAX_FRAME);
        ByteBuffer length = ByteBuffer.allocateDirect(4);
        Replies replies = new Replies(channel);
        byte[] payload = new byte[ModelFrames.MAX_FRAME];
        boolean counting = false;
        long events = 0;
        long latencySum = 0;
        long transferSum = 0;
        long decodeSum = 0;
        long previousArrival = Long.MIN_VALUE;
        long[] frameTransfers = new long[ModelFrames.TRIMMED_FRAMES];
        int frames = 0;
        while (true) {
            length.clear();
            readFully(channel, length);
            int frameLength = length.getInt(0);
            if (frameLength < ModelFrames.FRAME_HEADER - 4 || frameLength > ModelFrames.MAX_FRAME) {
                throw new IOException("frame length " + frameLength + " outside [12, " + ModelFrames.MAX_FRAME + "]");
            }
            frame.clear().limit(frameLength);
            readFully(channel, frame);
            long arrived = System.nanoTime();
            frame.flip();
            long writeStart = frame.getLong();
            int count = frame.getInt();
            if (count == ModelFrames.BEGIN) {
                counting = true;
                events = latencySum = transferSum = decodeSum = 0;
                frames = 0;
                continue;
            }
            if (count == ModelFrames.END) {
                counting = false;
                replies.add(ModelFrames.STATS, events, latencySum, transferSum, decodeSum,
                        trimmedMean(frameTransfers, frames));
                replies.flush();
                continue;
            }
            long transfer = arrived - writeStart;
            // Service time: from when the link was free for this frame (written, and the previous
            // frame delivered) to its last byte. The monitor fits the link to service times; a
            // sojourn would count the queue behind earlier frames as slowness of the link.
            long service = arrived - Math.max(writeStart, previousArrival);
            previousArrival = arrived;
            for (int i = 0; i < count; i++) {
                int recordLength = frame.getInt();
                if (recordLength < 8 || recordLength - 8 > frame.remaining() - 8) {
                    throw new IOException("record length " + recordLength + " exceeds its frame");
                }
                frame.getLong(); // event time, read again below once decoding is over
                frame.get(payload, 0, recordLength - 8);
            }
            long decoded = System.nanoTime();
            if (counting && count > 0) {
                frame.position(ModelFrames.FRAME_HEADER - 4);
                for (int i = 0; i < count; i++) {
                    int recordLength = frame.getInt();
                    latencySum += decoded - frame.getLong();
                    frame.position(frame.position() + recordLength - 8);
                }
                events += count;
                transferSum += transfer * count;
                if (frames < frameTransfers.length) {
                    frameTransfers[frames++] = transfer;
                }
                decodeSum += decoded - arrived;
            }
            replies.add(ModelFrames.ACK, 4L + frameLength, service, decoded - arrived, count, transfer);
            replies.flushIfDue(decoded);
        }
    }

    /**
     * Mean of the first {@code n} values without the slowest and the fastest
     * {@link ModelFrames#TRIMMED_SHARE} of them (sorts them in place); 0 for none. The statistic the
     * monitor's per-size link times use, so that a report can show the model against it next to
     * the plain mean the verdict uses.
     */
    static long trimmedMean(long[] values, int n) {
        if (n == 0) {
            return 0;
        }
        Arrays.sort(values, 0, n);
        int trimmed = (int) (n * ModelFrames.TRIMMED_SHARE);
        long sum = 0;
        for (int i = trimmed; i < n - trimmed; i++) {
            sum += values[i];
        }
        return sum / (n - 2 * trimmed);
    }

    /**
     * Replies coalesced into one write per {@link ModelFrames#REPLY_INTERVAL_NANOS} (or per
     * {@link ModelFrames#REPLIES_PER_WRITE}). One write per frame put a syscall on this thread and a
     * wake-up of the sender's reply reader behind every frame of the stream being measured: at
     * 50,000 one-event frames a second on two cores, where the sender's pacing thread holds one,
     * that is the instrument's own load competing with the frames it times. Coalesced, it is a
     * fiftieth of that. (Whether it moved the one-event times could not be told apart from this
     * machine's run-to-run variation: 11–19 µs in three runs before, 5.8–30.8 µs in five after.)
     * A reply waits until a frame arrives a millisecond or more after
     * the last write: the calibrating controller gets its samples that much later, none changed.
     */
    private static final class Replies {
        private final SocketChannel channel;
        private final ByteBuffer buffer = ByteBuffer.allocateDirect(ModelFrames.REPLY_BYTES * ModelFrames.REPLIES_PER_WRITE);
        private long lastWriteNanos = System.nanoTime();

        Replies(SocketChannel channel) {
            this.channel = channel;
        }

        void add(long kind, long a, long b, long c, long d) throws IOException {
            add(kind, a, b, c, d, 0);
        }

        void add(long kind, long a, long b, long c, long d, long e) throws IOException {
            if (buffer.remaining() < ModelFrames.REPLY_BYTES) {
                flush();
            }
            buffer.putLong(kind).putLong(a).putLong(b).putLong(c).putLong(d).putLong(e);
        }

        void flushIfDue(long nowNanos) throws IOException {
            if (nowNanos - lastWriteNanos >= ModelFrames.REPLY_INTERVAL_NANOS) {
                flush();
            }
        }

        void flush() throws IOException {
            buffer.flip();
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            buffer.clear();
            lastWriteNanos = System.nanoTime();
        }
    }

    static void readFully(SocketChannel channel, ByteBuffer into) throws IOException {
        while (into.hasRemaining()) {
            if (channel.read(into) < 0) {
                throw new EOFException("peer closed");
            }
        }
    }
}
