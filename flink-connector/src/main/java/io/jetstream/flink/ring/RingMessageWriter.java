package io.jetstream.flink.ring;

import static io.jetstream.flink.ring.RingMessageDescriptor.*;

import io.jetstream.core.ring.RingClosedException;
import io.jetstream.core.ring.RingProducer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.runtime.io.network.buffer.Buffer;
import org.apache.flink.runtime.io.network.partition.ResultSubpartition.BufferAndBacklog;
import org.apache.flink.util.InstantiationUtil;
import org.apache.flink.util.SerializedThrowable;

/**
 * Encodes messages ({@link RingMessageDescriptor}) into peers' rings. A message that finds a peer's
 * ring full waits in that peer's outbound queue, and every later message to that peer waits behind
 * it, so a peer receives in order; {@link #flushOutbound} writes what waited once there is room. A
 * peer whose ring is closed is lost ({@link RingPeers#lose}).
 *
 * <p>A buffer is copied once, from the Flink buffer's memory segment straight into the claimed ring
 * record (no intermediate array, nothing allocated), then recycled. A buffer that cannot be written
 * (too large for the ring, or a failed copy) fails its reader: the view is released and the channel
 * gets the error.
 *
 * <p>Threading: confined to the ring I/O thread; it never blocks (a full ring queues the message).
 */
final class RingMessageWriter {
    private final RingPeers peers;
    private final RingMetrics metrics;
    private final int maxRecordLength;
    private final UnsafeBuffer segmentView = new UnsafeBuffer(0, 0);
    /** This TaskManager's data port, the sender of every message; set by {@link #senderPort} before the I/O thread runs. */
    private int senderPort = -1;

    RingMessageWriter(RingPeers peers, RingMetrics metrics, int maxRecordLength) {
        this.peers = peers;
        this.metrics = metrics;
        this.maxRecordLength = maxRecordLength;
    }

    void senderPort(int port) {
        this.senderPort = port;
    }

    /** Largest buffer one record takes. */
    int maxBufferBytes() {
        return maxRecordLength - BUFFER_DATA_OFFSET;
    }

    /** Sends a control message, or queues it behind what waits for room. Dropped if the peer is lost. */
    void sendControl(RingPeer peer, int type, int handle, int f1, int f2, int f3, byte[] tail) {
        if (peer.lost) {
            return;
        }
        if (!peer.outbound.isEmpty() || !tryWriteControl(peer, type, handle, f1, f2, f3, tail)) {
            peer.outbound.add(new RingPeer.PendingControl(type, handle, f1, f2, f3, tail));
        }
    }

    /**
     * Sends {@code cause} to the channel {@code handle}, Java-serialized as Netty's error response. A
     * cause whose serialized form does not fit one ring record (a deep cause chain with long stack
     * traces) goes as an {@link IOException} carrying its text only, without stack traces.
     */
    void sendError(RingPeer peer, int handle, Throwable cause) {
        sendControl(peer, ERROR, handle, 0, 0, 0, errorTail(cause));
    }

    /** The serialized {@code cause}, fitted into one record; empty if not even its text fits. */
    private byte[] errorTail(Throwable cause) {
        int room = maxRecordLength - HEAD_LENGTH;
        byte[] serialized = serialize(cause);
        if (serialized.length <= room) {
            return serialized;
        }
        String text = cause.toString();
        String note = "(stack traces dropped: the error took " + serialized.length + " bytes, a ring record holds "
                + room + ") ";
        for (int keep = Math.min(text.length(), room); keep > 0; keep /= 2) {
            IOException brief = new IOException(note + text.substring(0, keep));
            brief.setStackTrace(new StackTraceElement[0]);
            byte[] fitted = serialize(brief);
            if (fitted.length <= room) {
                return fitted;
            }
        }
        return new byte[0];
    }

    private static byte[] serialize(Throwable cause) {
        try {
            return InstantiationUtil.serializeObject(cause);
        } catch (Throwable notSerializable) {
            try {
                return InstantiationUtil.serializeObject(new SerializedThrowable(cause));
            } catch (IOException e) {
                return new byte[0];
            }
        }
    }

    /** Tells the channel {@code handle} to use Netty instead, for {@code reason}. */
    void sendRedirect(RingPeer peer, int handle, String reason) {
        sendControl(peer, REDIRECT, handle, 0, 0, 0, reason.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Writes the buffer {@code next} of {@code reader} (credit already spent), or queues it when the
     * peer's ring is full. Per buffer: no allocation unless it is queued.
     *
     * @return false if it was queued: the caller writes nothing more to this peer for now
     */
    boolean writeOrQueueBuffer(RingPeer peer, RingSubpartitionReader reader, BufferAndBacklog next, int subpartitionId) {
        if (tryWriteBuffer(peer, reader, next, subpartitionId)) {
            return true;
        }
        peer.outbound.add(new RingPeer.PendingBuffer(reader, next, subpartitionId));
        return false;
    }

    /** Writes what waited for room, in order; false while the peer's ring is still full (or the peer is lost). */
    boolean flushOutbound(RingPeer peer) {
        Object pending;
        while ((pending = peer.outbound.peek()) != null && !peer.lost) {
            boolean done;
            if (pending instanceof RingPeer.PendingBuffer buffer) {
                done = tryWriteBuffer(peer, buffer.reader(), buffer.next(), buffer.subpartitionId());
            } else {
                RingPeer.PendingControl c = (RingPeer.PendingControl) pending;
                done = tryWriteControl(peer, c.type(), c.handle(), c.field1(), c.field2(), c.field3(), c.tail());
            }
            if (!done) {
                return false;
            }
            peer.outbound.poll();
        }
        return !peer.lost;
    }

    /** False if the ring is full; true once the buffer is written, or recycled because it cannot be. */
    private boolean tryWriteBuffer(RingPeer peer, RingSubpartitionReader reader, BufferAndBacklog next, int subpartitionId) {
        Buffer buffer = next.buffer();
        if (reader.released) {
            buffer.recycleBuffer();
            return true;
        }
        int size = buffer.readableBytes();
        RingProducer out = peer.out;
        int index;
        try {
            if (size > maxBufferBytes()) {
                throw new IllegalStateException("a buffer of " + size + " bytes exceeds the ring's largest record ("
                        + maxRecordLength + " bytes with a " + BUFFER_DATA_OFFSET
                        + "-byte head): raise taskmanager.network.jetstream.ring.max-record-bytes");
            }
            index = out.tryClaim(BUFFER, BUFFER_DATA_OFFSET + size);
        } catch (RingClosedException e) {
            buffer.recycleBuffer();
            peers.lose(peer, e.getMessage());
            return true;
        } catch (RuntimeException e) {
            buffer.recycleBuffer();
            failReader(peer, reader, e);
            return true;
        }
        if (index == RingProducer.BACK_PRESSURED) {
            return false;
        }
        try {
            UnsafeBuffer ring = (UnsafeBuffer) out.buffer();
            ring.putInt(index + PORT_OFFSET, senderPort);
            ring.putInt(index + HANDLE_OFFSET, reader.handle);
            ring.putInt(index + FIELD1_OFFSET, next.getSequenceNumber());
            ring.putInt(index + FIELD2_OFFSET, next.buffersInBacklog());
            ring.putInt(index + FIELD3_OFFSET, subpartitionId);
            ring.putInt(index + DATA_TYPE_OFFSET, buffer.getDataType().ordinal());
            ring.putInt(index + COMPRESSED_OFFSET, buffer.isCompressed() ? 1 : 0);
            ring.putInt(index + SIZE_OFFSET, size);
            if (size > 0) {
                wrap(segmentView, buffer.getMemorySegment());
                ring.putBytes(index + BUFFER_DATA_OFFSET, segmentView,
                        buffer.getMemorySegmentOffset() + buffer.getReaderIndex(), size);
            }
            out.commit();
        } catch (RuntimeException e) {
            out.abort();
            buffer.recycleBuffer();
            failReader(peer, reader, e);
            return true;
        }
        buffer.recycleBuffer();
        metrics.buffersOut.inc();
        metrics.bytesOut.inc(size);
        return true;
    }

    private void failReader(RingPeer peer, RingSubpartitionReader reader, Throwable cause) {
        peer.readers.remove(reader.handle);
        reader.release();
        sendError(peer, reader.handle, cause);
    }

    /** False if the ring is full; true once written, or if the ring is closed (the peer is then lost). */
    private boolean tryWriteControl(RingPeer peer, int type, int handle, int f1, int f2, int f3, byte[] tail) {
        RingProducer out = peer.out;
        int index;
        try {
            index = out.tryClaim(type, HEAD_LENGTH + (tail == null ? 0 : tail.length));
        } catch (RingClosedException e) {
            peers.lose(peer, e.getMessage());
            return true;
        }
        if (index == RingProducer.BACK_PRESSURED) {
            return false;
        }
        MutableDirectBuffer ring = out.buffer();
        ring.putInt(index + PORT_OFFSET, senderPort);
        ring.putInt(index + HANDLE_OFFSET, handle);
        ring.putInt(index + FIELD1_OFFSET, f1);
        ring.putInt(index + FIELD2_OFFSET, f2);
        ring.putInt(index + FIELD3_OFFSET, f3);
        if (tail != null) {
            ring.putBytes(index + HEAD_LENGTH, tail);
        }
        out.commit();
        return true;
    }

    /** Points {@code view} at {@code segment}'s memory, on or off heap (no allocation). */
    static void wrap(UnsafeBuffer view, MemorySegment segment) {
        if (segment.isOffHeap()) {
            view.wrap(segment.getAddress(), segment.size());
        } else {
            view.wrap(segment.getArray());
        }
    }
}
