package io.jetstream.core.internal.landing;

import io.jetstream.core.api.LandingGuarantee;
import io.jetstream.core.api.LandingSender;
import io.jetstream.core.api.LandingSenderStats;
import io.jetstream.core.api.SenderMetrics;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.api.Transport;
import java.util.List;
import java.util.Optional;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;

/**
 * {@link LandingSender} over one {@link OutboundStream} named {@code land/<name>}: BEGIN first, then
 * DATA records (the send time before the payload, copied once into a reused buffer) and MARKs. The
 * landing's {@link LandingProtocol#CONTROL_STREAMS} broadcast says when its landed stream is full:
 * offers are then pushed back like a full window.
 *
 * <p>Threading contract: as {@link LandingSender}; the control listener runs on the transport's
 * I/O thread and only writes {@link #full}.
 */
public final class LandingSenderStream implements LandingSender {
    private final String name;
    private final String landing;
    private final long attempt;
    private final LandingGuarantee guarantee;
    private final OutboundStream stream;
    private final ExpandableArrayBuffer scratch = new ExpandableArrayBuffer(1 << 12);
    private volatile boolean full;
    private long lastEpoch;

    private LandingSenderStream(Transport transport, StreamRoutes routes, String name, LandingGuarantee guarantee, long attempt) {
        this.name = name;
        this.landing = routes.receiver().toString();
        this.attempt = attempt;
        this.guarantee = guarantee;
        this.stream = transport.openSender(LandingProtocol.LAND + name, routes, this::onControl);
    }

    public static LandingSenderStream open(Transport transport, StreamRoutes routes, String name, LandingGuarantee guarantee,
            long attempt, long restoredAttempt, long restoredEpoch) {
        LandingProtocol.checkName("landed stream name", name);
        if (attempt == 0) {
            throw new IllegalArgumentException("attempt 0 is reserved for 'none'");
        }
        LandingSenderStream s = new LandingSenderStream(transport, routes, name, guarantee, attempt);
        s.lastEpoch = restoredEpoch;
        int r = s.stream.offer(LandingProtocol.BEGIN, s.scratch.byteArray(), 0,
                LandingProtocol.putBegin(s.scratch, guarantee, attempt, restoredAttempt, restoredEpoch));
        if (r != OutboundStream.ACCEPTED) {
            s.stream.close();
            throw new IllegalStateException("landed stream " + name + ": the stream refused its BEGIN (" + r
                    + "): is transport.reliability acknowledged?");
        }
        return s;
    }

    private void onControl(int tag, DirectBuffer buffer, int offset, int length) {
        if (tag == LandingProtocol.CONTROL_STREAMS) {
            full = LandingProtocol.fullFlag(name, buffer, offset, length);
        }
    }

    @Override
    public int offer(byte[] src, int offset, int length) {
        if (full) {
            return OutboundStream.BACK_PRESSURED;
        }
        scratch.putLong(0, System.currentTimeMillis());
        scratch.putBytes(Long.BYTES, src, offset, length);
        return stream.offer(LandingProtocol.DATA, scratch.byteArray(), 0, Long.BYTES + length);
    }

    @Override
    public int mark(long epoch) {
        LandingProtocol.checkMark(name, guarantee, epoch, lastEpoch);
        scratch.putLong(0, epoch);
        int r = stream.offer(LandingProtocol.MARK, scratch.byteArray(), 0, Long.BYTES);
        if (r == OutboundStream.ACCEPTED) {
            lastEpoch = epoch;
        }
        return r;
    }

    @Override
    public boolean awaitLanded(long timeoutNanos) throws InterruptedException {
        return LandingAwait.until(this::landed, stream::flush, timeoutNanos);
    }

    /** @throws IllegalStateException if the stream failed */
    private boolean landed() {
        if (stream.failure().isPresent()) {
            throw new IllegalStateException("landed stream " + name + " failed: " + stream.failure().get(), stream.failure().get());
        }
        return stream.bufferedBytes() == 0 && stream.batchesInFlight() == 0;
    }

    /** Whether the landing said the landed stream is full. */
    public boolean landingFull() {
        return full;
    }

    @Override
    public long attempt() {
        return attempt;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public List<LandingSenderStats> landings() {
        SenderMetrics m = stream.metrics();
        return List.of(new LandingSenderStats(landing, stream.isReady(), stream.bufferedBytes(), m.batchesSealed(), m.ackLatencyMicros(),
                m.routesInUse(), m.lastRefusal(), ""));
    }

    @Override
    public Optional<Throwable> failure() {
        return stream.failure();
    }

    @Override
    public void close() {
        stream.close();
    }
}
