package io.jetstream.benchmarks.model;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The receiving end of {@link ModelValidation}: accepts one connection, reads whole frames, decodes
 * every record (copying its payload out, as a deserializer would), and answers each frame with its
 * transfer and decode times; between BEGIN and END it sums every event's latency from its event
 * time to the end of its batch's decoding, and its batch's transfer (write start to last byte, so
 * including any queue). Prints {@code READY <port>} once listening.
 *
 * <p>Arguments: bind address, port (0 = any).
 */
public final class ModelReceiverMain {
    private ModelReceiverMain() {}

    public static void main(String[] args) throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(args[0], Integer.parseInt(args[1])));
            System.out.println("READY " + ((InetSocketAddress) server.getLocalAddress()).getPort());
            System.out.flush();
            try (SocketChannel channel = server.accept()) {
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                serve(channel);
            } catch (EOFException done) {
                // the sender closed the connection: the run is over
            }
        }
    }

    private static void serve(SocketChannel channel) throws IOException {
        ByteBuffer frame = ByteBuffer.allocateDirect(ModelFrames.MAX_FRAME);
        ByteBuffer length = ByteBuffer.allocateDirect(4);
        ByteBuffer reply = ByteBuffer.allocateDirect(ModelFrames.REPLY_BYTES);
        byte[] payload = new byte[ModelFrames.MAX_FRAME];
        boolean counting = false;
        long events = 0;
        long latencySum = 0;
        long transferSum = 0;
        long decodeSum = 0;
        long previousArrival = Long.MIN_VALUE;
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
                continue;
            }
            if (count == ModelFrames.END) {
                counting = false;
                send(channel, reply, ModelFrames.STATS, events, latencySum, transferSum, decodeSum);
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
                decodeSum += decoded - arrived;
            }
            send(channel, reply, ModelFrames.ACK, 4L + frameLength, service, decoded - arrived, count);
        }
    }

    private static void send(SocketChannel channel, ByteBuffer reply, long kind, long a, long b, long c, long d)
            throws IOException {
        reply.clear();
        reply.putLong(kind).putLong(a).putLong(b).putLong(c).putLong(d).putLong(0).flip();
        while (reply.hasRemaining()) {
            channel.write(reply);
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
