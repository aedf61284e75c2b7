package io.jetstream.core.internal.multicast;

import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.MulticastDestinationStats;
import io.jetstream.core.api.MulticastDestinationStats.State;
import io.jetstream.core.api.MulticastStream.DestinationControlListener;
import io.jetstream.core.api.OutboundStream;
import java.nio.charset.StandardCharsets;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableRingBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.LongArrayQueue;

/**
 * One destination of a multicast stream: its {@link OutboundStream}, where it stands in the multicast's
 * log, and the records handed to it and not yet confirmed (positions and where they begin in the log, so a
 * replicating node that is lost can be replaced from the oldest of them).
 *
 * <p>Threading contract: the multicast's sending thread only, except {@link #onControl} (the stream's I/O
 * thread: it publishes a replicating node's confirmation through a volatile field, and passes the receiver's other
 * control frames to the multicast's listener) and {@link #stats} (any
 * thread: volatile reads).
 */
final class DestinationChannel implements ControlListener {
    private static final long NONE = Long.MIN_VALUE;

    final String name;
    final int target;
    /** Whether it sends to a replicating node, which confirms through control frames, not acknowledgements. */
    final boolean replicating;
    private final long epoch;
    private final byte[] streamIdBytes;
    private final DestinationControlListener controls;
    private OutboundStream stream;
    /** Log byte position of the next record to hand over. */
    private long bytePosition;
    /** Positions of records handed over and not confirmed, and (same order) the log byte positions where they begin. */
    private final LongArrayQueue unconfirmed = new LongArrayQueue(64, NONE);
    private final LongArrayQueue unconfirmedStarts = new LongArrayQueue(64, NONE);
    private long recordsAcknowledgedSeen;
    private long pushedSinceEndOfSend;
    private long lastProgressNanos;
    private long unreachableSinceNanos;
    private boolean everReady;
    /** Whether its receiver asked to be held back: nothing is handed to it meanwhile. */
    private boolean held;
    private int lastOffer;
    private long pushHead;
    private final ExpandableRingBuffer.MessageConsumer pushOne = this::pushOne;

    private volatile long reportedConfirmed; // a replicating node's confirmation (its I/O thread writes)
    private volatile long offeredPosition;
    private volatile long confirmedPosition;
    private volatile long lagBytes;
    private volatile State state;
    private volatile String reason = "";

    DestinationChannel(String name, int target, boolean replicating, long epoch, String streamId, long bytePosition,
            long nowNanos, DestinationControlListener controls) {
        this.name = name;
        this.controls = controls;
        this.target = target;
        this.replicating = replicating;
        this.epoch = epoch;
        this.streamIdBytes = streamId.getBytes(StandardCharsets.UTF_8);
        this.bytePosition = bytePosition;
        this.lastProgressNanos = nowNanos;
        this.unreachableSinceNanos = nowNanos;
        this.state = replicating ? State.REPLICATED : State.DIRECT;
    }

    /** Binds the stream opened for it (opened after this channel exists: the channel is its control listener). */
    void attach(OutboundStream s) {
        this.stream = s;
    }

    OutboundStream stream() {
        return stream;
    }

    long bytePosition() {
        return bytePosition;
    }

    /** Log byte position of the oldest record it still needs kept: its oldest unconfirmed one, else the next to hand over. */
    long neededBytePosition() {
        return unconfirmed.isEmpty() ? bytePosition : unconfirmedStarts.peekLong();
    }

    long lastProgressNanos() {
        return lastProgressNanos;
    }

    /**
     * Hands over records from its position up to the log's tail while its stream takes them.
     *
     * @param logHead the absolute byte position of the log's head (the log's own positions restart when it grows)
     *
     * @return records handed over
     */
    int push(ExpandableRingBuffer log, long logHead, long nowNanos) {
        if (held || bytePosition >= logHead + log.size()) {
            return 0;
        }
        long before = bytePosition;
        int count = 0;
        pushHead = logHead;
        lastOffer = OutboundStream.ACCEPTED;
        log.forEach((int) (bytePosition - logHead), pushOne, Integer.MAX_VALUE);
        if (bytePosition != before) {
            lastProgressNanos = nowNanos;
            pushedSinceEndOfSend++;
            count = 1;
        }
        return count;
    }

    /** Why the last hand-over stopped: {@link OutboundStream#ACCEPTED} (it took everything) or the stream's refusal. */
    int lastOffer() {
        return lastOffer;
    }

    private boolean pushOne(MutableDirectBuffer buffer, int offset, int length, int endHeadOffset) {
        int target = buffer.getInt(offset + MulticastRecords.TARGET_OFFSET);
        long position = buffer.getLong(offset + MulticastRecords.POSITION_OFFSET, MulticastRecords.ORDER);
        int r = stream.offer(target, buffer.byteArray(), buffer.wrapAdjustment() + offset + MulticastRecords.HEADER_OFFSET,
                length - MulticastRecords.HEADER_OFFSET);
        lastOffer = r;
        if (r == OutboundStream.ACCEPTED) {
            unconfirmed.addLong(position);
            unconfirmedStarts.addLong(bytePosition);
        } else if (r != OutboundStream.NOT_CONNECTED) { // NOT_CONNECTED: best effort, dropped and counted by the stream
            return false;
        }
        offeredPosition = position;
        bytePosition = pushHead + endHeadOffset;
        return true;
    }

    /** Stops or resumes handing it records (its receiver asked to be held back). */
    void hold(boolean held) {
        this.held = held;
    }

    /** Calls the stream's end of send if it got records since the last call. */
    void endOfSend() {
        if (pushedSinceEndOfSend > 0) {
            pushedSinceEndOfSend = 0;
            stream.endOfSend();
        }
    }

    /**
     * Moves its confirmed position: by the stream's acknowledged records (a receiver) or by the replicating
     * node's last confirmation.
     */
    void confirm(long nowNanos) {
        boolean moved = false;
        if (replicating) {
            long upTo = reportedConfirmed;
            while (!unconfirmed.isEmpty() && unconfirmed.peekLong() <= upTo) {
                confirmedPosition = unconfirmed.pollLong();
                unconfirmedStarts.pollLong();
                moved = true;
            }
        } else {
            long acknowledged = stream.metrics().recordsAcknowledged();
            for (; recordsAcknowledgedSeen < acknowledged && !unconfirmed.isEmpty(); recordsAcknowledgedSeen++) {
                confirmedPosition = unconfirmed.pollLong();
                unconfirmedStarts.pollLong();
                moved = true;
            }
        }
        if (moved) {
            lastProgressNanos = nowNanos;
        }
    }

    /** Whether its stream has been unable to carry records for {@code timeoutNanos} (or failed, or closed). */
    boolean unreachable(long nowNanos, long timeoutNanos) {
        if (stream.failure().isPresent()) {
            return true;
        }
        if (stream.isReady()) {
            everReady = true;
            unreachableSinceNanos = nowNanos;
            return false;
        }
        return nowNanos - unreachableSinceNanos >= timeoutNanos;
    }

    boolean everReady() {
        return everReady;
    }

    void updateLag(long logTail) {
        lagBytes = logTail - neededBytePosition();
    }

    long lagBytes() {
        return lagBytes;
    }

    void setState(State state, String reason) {
        this.reason = reason;
        this.state = state;
    }

    State state() {
        return state;
    }

    long confirmedPosition() {
        return confirmedPosition;
    }

    /** A replicating node's confirmation, or the receiver's control passed on (its stream's I/O thread). */
    @Override
    public void onControl(int tag, DirectBuffer buffer, int offset, int length) {
        if (tag != MulticastRecords.CONFIRMED_TAG) {
            controls.onControl(name, tag, buffer, offset, length);
            return;
        }
        if (!replicating || length != MulticastRecords.CONFIRMED_FIXED_BYTES + streamIdBytes.length
                || buffer.getLong(offset, MulticastRecords.ORDER) != epoch) {
            return;
        }
        for (int i = 0; i < streamIdBytes.length; i++) {
            if (buffer.getByte(offset + MulticastRecords.CONFIRMED_FIXED_BYTES + i) != streamIdBytes[i]) {
                return;
            }
        }
        long position = buffer.getLong(offset + Long.BYTES, MulticastRecords.ORDER);
        if (position > reportedConfirmed) {
            reportedConfirmed = position;
        }
    }

    MulticastDestinationStats stats() {
        OutboundStream s = stream;
        if (s == null) {
            return new MulticastDestinationStats(name, state, offeredPosition, confirmedPosition, lagBytes, reason, 0, 0, false,
                    0, 0, "");
        }
        return new MulticastDestinationStats(name, state, offeredPosition, confirmedPosition, lagBytes, reason,
                s.metrics().bytesSealed(), s.metrics().batchesSealed(), s.isReady(), s.metrics().ackLatencyMicros(),
                s.metrics().routesInUse(), s.metrics().lastRefusal());
    }
}
