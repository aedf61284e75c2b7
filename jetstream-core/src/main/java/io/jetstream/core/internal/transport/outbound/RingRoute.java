package io.jetstream.core.internal.transport.outbound;

import io.jetstream.core.internal.metrics.SenderCounters;
import io.jetstream.core.internal.ring.RecordDescriptor;
import io.jetstream.core.ring.RingClosedException;
import io.jetstream.core.ring.RingFileException;
import io.jetstream.core.ring.RingProducer;
import io.netty.buffer.ByteBuf;
import java.util.function.Consumer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A route into the receiver's shared-memory ring, for a sender on the receiver's host: a batch is
 * written as one ring batch record (stream = the ring target the receiver gave, batch id = the
 * sequence), its records copied from the sealed frame into the ring in one piece — no TCP framing,
 * no further copy; the receiver delivers them in place. Acknowledgements, control and probes stay on
 * the stream's TCP connection ({@code tcp}), which also carries a batch too large for a ring record.
 * The ring itself shows what its consumer has delivered ({@link #delivered}): a best-effort stream
 * frees its ring batches by that, and its receiver does not acknowledge them.
 *
 * <p>A full ring is {@link #FULL} (the outbox retries); a ring its consumer closed or failed is
 * {@link #UNAVAILABLE}, and {@code onLost} is told once, so that the connection puts {@code tcp} in
 * this route's place.
 *
 * <p>Threading: called under the outbox lock (which keeps the ring producer to one thread at a
 * time); {@link #close} under that lock or once the route is out of the outbox.
 */
public final class RingRoute implements Route {
    private final RingProducer producer;
    private final int ringTarget;
    private final Route tcp;
    private final SenderCounters metrics;
    private final Consumer<RuntimeException> onLost;
    private final UnsafeBuffer frameView = new UnsafeBuffer(0, 0);
    private boolean lost;

    public RingRoute(RingProducer producer, int ringTarget, Route tcp, SenderCounters metrics, Consumer<RuntimeException> onLost) {
        this.producer = producer;
        this.ringTarget = ringTarget;
        this.tcp = tcp;
        this.metrics = metrics;
        this.onLost = onLost;
    }

    @Override
    public int index() {
        return tcp.index();
    }

    /** Largest frame this route takes into the ring (length field included, as the accumulator counts). */
    public int maxFrameBytes() {
        return producer.maxRecordLength() - RecordDescriptor.BATCH_ID_LENGTH + io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.BATCH_FRAME_OVERHEAD;
    }

    @Override
    public int write(OutboundBatch batch) {
        batch.routePosition = -1;
        if (lost) {
            return UNAVAILABLE;
        }
        int length = batch.recordsLength();
        if (RecordDescriptor.BATCH_ID_LENGTH + length > producer.maxRecordLength()) {
            return tcp.write(batch); // only its acknowledgement confirms it
        }
        try {
            int index = producer.tryClaimBatch(ringTarget, batch.sequence(), length);
            if (index < 0) {
                return FULL;
            }
            ByteBuf frame = batch.frame();
            int from = batch.recordsIndex();
            if (frame.hasMemoryAddress()) {
                frameView.wrap(frame.memoryAddress() + from, length);
                producer.buffer().putBytes(index, frameView, 0, length);
                frameView.wrap(0, 0);
            } else {
                producer.buffer().putBytes(index, frame.nioBuffer(from, length), 0, length);
            }
            producer.commit();
            batch.routePosition = producer.lastClaimEnd();
            metrics.onRingBatch();
            return WRITTEN;
        } catch (RingClosedException | RingFileException e) {
            lost = true;
            onLost.accept(e);
            return UNAVAILABLE;
        }
    }

    /**
     * Whether the ring's consumer has delivered {@code batch}: its head is past the batch's record (the
     * consumer moves it only after handing the records over). One volatile read of the ring header.
     */
    @Override
    public boolean delivered(OutboundBatch batch) {
        return !lost && batch.routePosition >= 0 && producer.consumedUpTo() >= batch.routePosition;
    }

    @Override
    public void probe(long id, int bytes) {
        tcp.probe(id, bytes);
    }

    @Override
    public String kind() {
        return "ring";
    }

    /** The TCP route of the same connection, which takes this one's place when the ring goes. */
    public Route tcp() {
        return tcp;
    }

    /** Detaches from the ring (frees the producer slot, unmaps). */
    public void close() {
        producer.close();
    }

    @Override
    public String toString() {
        return "ring route " + index() + " (target " + ringTarget + ")";
    }
}
