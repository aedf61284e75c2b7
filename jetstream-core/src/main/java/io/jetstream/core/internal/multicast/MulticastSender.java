package io.jetstream.core.internal.multicast;

import io.jetstream.core.api.MulticastDestination;
import io.jetstream.core.api.MulticastDestinationStats;
import io.jetstream.core.api.MulticastSettings;
import io.jetstream.core.api.MulticastSite;
import io.jetstream.core.api.MulticastStream;
import io.jetstream.core.api.MulticastStream.DestinationControlListener;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.Transport;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.concurrent.locks.LockSupport;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link MulticastStream}: the producer copies each record, with its header, into a single-producer
 * ring; the stream's own thread ({@link MulticastDutyCycle}) hands it to every destination.
 *
 * <p>Two modes: an origin stream numbers its records (positions from 1, under a random epoch); a
 * forwarding stream (a replicating node's, {@link #forwarding}) takes records that already carry an
 * origin's header and keeps it, so receivers tell the origin's records apart whichever path brought them.
 */
public final class MulticastSender implements MulticastStream {
    private static final Logger LOG = LoggerFactory.getLogger(MulticastSender.class);
    private static final long IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long BLOCKED_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(500);
    private static final AtomicLongFieldUpdater<MulticastSender> OFFERED =
            AtomicLongFieldUpdater.newUpdater(MulticastSender.class, "offered");
    private static final AtomicLongFieldUpdater<MulticastSender> REFUSED =
            AtomicLongFieldUpdater.newUpdater(MulticastSender.class, "refused");
    private static final AtomicLongFieldUpdater<MulticastSender> OFFERED_BYTES =
            AtomicLongFieldUpdater.newUpdater(MulticastSender.class, "offeredBytes");

    private final String streamId;
    private final boolean forwarding;
    private final long epoch;
    private final MulticastSettings settings;
    private final long closeTimeoutNanos;
    private final OneToOneRingBuffer ring;
    private final AtomicBuffer ringBuffer;
    private final int maxRecordBytes;
    /** Bytes in the hand-over ring at which an offer wakes a parked sending thread. */
    private final int wakeBytes;
    private final UnsafeBuffer wrap = new UnsafeBuffer(0, 0);
    private final MulticastDutyCycle duty;
    private final Thread thread;
    /** How the sending thread waits while records wait for destinations to take them (its thread only). */
    private final BackoffIdleStrategy blocked = new BackoffIdleStrategy(64, 16, TimeUnit.MICROSECONDS.toNanos(10),
            BLOCKED_PARK_NANOS);
    private long position;
    private volatile long offered;
    private volatile long refused;
    private volatile long offeredBytes;
    private volatile long flushRequests;
    private volatile long endOfSends;
    private volatile boolean idle;
    private volatile boolean closing;
    private volatile boolean stopped;
    private volatile Throwable failure;
    private final CompletableFuture<Void> done = new CompletableFuture<>();

    private MulticastSender(Transport transport, String streamId, List<MulticastDestination> destinations,
            MulticastSettings settings, long closeTimeoutNanos, boolean forwarding, long epoch,
            DestinationControlListener controls) {
        this.streamId = streamId;
        this.forwarding = forwarding;
        this.epoch = epoch;
        this.settings = settings;
        this.closeTimeoutNanos = closeTimeoutNanos;
        this.ringBuffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(
                settings.bufferBytes() + RingBufferDescriptor.TRAILER_LENGTH, 64));
        this.ring = new OneToOneRingBuffer(ringBuffer);
        this.maxRecordBytes = ring.maxMsgLength();
        this.wakeBytes = ring.capacity() / 8;
        this.duty = new MulticastDutyCycle(transport, streamId, epoch, settings, ring, System::nanoTime, controls);
        for (MulticastDestination d : destinations) {
            duty.add(d);
        }
        this.thread = new Thread(this::run, "jetstream-multicast-" + streamId);
        thread.setDaemon(true);
    }

    /**
     * An origin stream: numbers its records under a new random epoch.
     *
     * @param controls receives the control frames of the destinations' receivers
     */
    public static MulticastSender open(Transport transport, String streamId, List<MulticastDestination> destinations,
            MulticastSettings settings, long closeTimeoutNanos, DestinationControlListener controls) {
        MulticastSender s = new MulticastSender(transport, streamId, destinations, settings, closeTimeoutNanos, false,
                new SecureRandom().nextLong() & Long.MAX_VALUE, controls);
        s.thread.start();
        return s;
    }

    /**
     * A planned stream: it decides itself, per site, between direct multicast and the site's replicating node
     * ({@link PlannedSites}).
     *
     * @param maxRoutesPerStream the transport's {@code batch.max-routes}: most routes a destination's stream uses
     */
    public static MulticastSender planned(Transport transport, String streamId, List<MulticastSite> sites,
            MulticastSettings settings, long closeTimeoutNanos, int maxRoutesPerStream) {
        MulticastSender s = new MulticastSender(transport, streamId, List.of(), settings, closeTimeoutNanos, false,
                new SecureRandom().nextLong() & Long.MAX_VALUE, DestinationControlListener.NONE);
        PlannedSites planning = new PlannedSites(streamId, sites, settings.plan(), maxRoutesPerStream, () -> s.offered,
                () -> s.offeredBytes);
        s.duty.submit(() -> s.duty.startPlanning(planning));
        s.thread.start();
        return s;
    }

    /**
     * A forwarding stream: {@link #offer} takes records that begin with an origin's
     * {@value MulticastStream#HEADER_BYTES}-byte header and passes them on unchanged.
     */
    public static MulticastSender forwarding(Transport transport, String streamId, List<MulticastDestination> destinations,
            MulticastSettings settings, long closeTimeoutNanos) {
        MulticastSender s = new MulticastSender(transport, streamId, destinations, settings, closeTimeoutNanos, true, 0,
                DestinationControlListener.NONE);
        s.thread.start();
        return s;
    }

    @Override
    public int offer(int target, byte[] src, int offset, int length) {
        wrap.wrap(src, offset, length);
        return offer(target, wrap, 0, length);
    }

    @Override
    public int offer(int target, DirectBuffer src, int offset, int length) {
        int prefix = forwarding ? MulticastRecords.HEADER_OFFSET : MulticastRecords.PREFIX_BYTES;
        int total = prefix + length;
        if (length < 0 || total > maxRecordBytes) {
            throw new IllegalArgumentException("record of " + length + " B; a multicast record may have at most "
                    + (maxRecordBytes - prefix) + " B (multicast.buffer-bytes = " + settings.bufferBytes() + " / 8, less its header)");
        }
        if (forwarding && length < HEADER_BYTES) {
            throw new IllegalArgumentException("a forwarded record of " + length + " B has no multicast header");
        }
        if (closing || stopped) {
            return failure != null ? OutboundStream.FAILED : OutboundStream.CLOSED;
        }
        int index = ring.tryClaim(MulticastRecords.RECORD_TYPE, total);
        if (index < 0) {
            REFUSED.lazySet(this, refused + 1);
            wake();
            return OutboundStream.BACK_PRESSURED;
        }
        ringBuffer.putInt(index + MulticastRecords.TARGET_OFFSET, target);
        if (forwarding) {
            ringBuffer.putBytes(index + MulticastRecords.HEADER_OFFSET, src, offset, length);
        } else {
            ringBuffer.putLong(index + MulticastRecords.EPOCH_OFFSET, epoch, MulticastRecords.ORDER);
            ringBuffer.putLong(index + MulticastRecords.POSITION_OFFSET, ++position, MulticastRecords.ORDER);
            ringBuffer.putBytes(index + MulticastRecords.PREFIX_BYTES, src, offset, length);
        }
        ring.commit(index);
        OFFERED.lazySet(this, offered + 1);
        OFFERED_BYTES.lazySet(this, offeredBytes + length);
        // A parked sending thread takes what was offered within IDLE_PARK_NANOS, or at once on endOfSend or flush;
        // waking it for every record would cost a wake-up per record at low rates.
        if (idle && ring.size() >= wakeBytes) {
            LockSupport.unpark(thread);
        }
        return OutboundStream.ACCEPTED;
    }

    private void wake() {
        if (idle) {
            LockSupport.unpark(thread);
        }
    }

    @Override
    public void endOfSend() {
        endOfSends = endOfSends + 1; // one producer thread
        wake();
    }

    @Override
    public void flush() {
        flushRequests = flushRequests + 1; // one producer thread
        LockSupport.unpark(thread);
    }

    @Override
    public boolean isBackPressured() {
        return ring.capacity() - ring.size() < maxRecordBytes;
    }

    @Override
    public void join(MulticastDestination destination) {
        call(() -> {
            duty.add(destination);
            return null;
        });
        LOG.info("multicast {}: {} joined at position {}", streamId, destination.name(), position);
    }

    @Override
    public boolean leave(String name) throws InterruptedException {
        CompletableFuture<DestinationChannel> left = new CompletableFuture<>();
        call(() -> {
            duty.requestLeave(name, left);
            return null;
        });
        DestinationChannel c;
        try {
            c = left.get(closeTimeoutNanos, TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            c = call(() -> duty.detach(name));
            LOG.warn("multicast {}: {} did not take what was offered before it left within transport.close-timeout-ms; it left anyway",
                    streamId, name);
        }
        if (c == null) {
            return false;
        }
        c.stream().close();
        LOG.info("multicast {}: {} left at position {}", streamId, name, c.stats().offeredPosition());
        return true;
    }

    @Override
    public void hold(String name, boolean held) {
        if (stopped) {
            return;
        }
        duty.submit(() -> duty.hold(name, held));
        LockSupport.unpark(thread);
    }

    private <T> T call(java.util.concurrent.Callable<T> command) {
        if (stopped) {
            throw new IllegalStateException("multicast " + streamId + " is closed");
        }
        CompletableFuture<T> f = new CompletableFuture<>();
        duty.submit(() -> {
            try {
                f.complete(command.call());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        LockSupport.unpark(thread);
        try {
            return f.get(closeTimeoutNanos + TimeUnit.SECONDS.toNanos(5), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for multicast " + streamId, e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("multicast " + streamId + "'s sending thread did not answer", e);
        }
    }

    @Override
    public List<MulticastDestinationStats> destinations() {
        return duty.destinations();
    }

    /** Lowest position every live destination confirmed (what a replicating node confirms upstream). */
    public long confirmedByAll() {
        return duty.confirmedByAll();
    }

    @Override
    public Map<String, Long> metrics() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("records-offered", offered);
        m.put("offers-back-pressured", refused);
        m.put("destinations", destinations().stream().filter(d -> d.state() == MulticastDestinationStats.State.DIRECT
                || d.state() == MulticastDestinationStats.State.REPLICATED).count());
        m.put("destinations-dropped-slow", duty.droppedSlow.get());
        m.put("destinations-dropped-lagged", duty.droppedLagged.get());
        m.put("destinations-dropped-failed", duty.droppedFailed.get());
        m.put("failovers", duty.failovers.get());
        return m;
    }

    @Override
    public Map<String, Double> planGauges() {
        return duty.planGauges();
    }

    @Override
    public long epoch() {
        return epoch;
    }

    @Override
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    private void run() {
        long closeDeadline = Long.MAX_VALUE;
        try {
            while (true) {
                int work = duty.doWork(endOfSends, flushRequests);
                if (closing) {
                    long now = System.nanoTime();
                    if (closeDeadline == Long.MAX_VALUE) {
                        closeDeadline = now + closeTimeoutNanos;
                    }
                    if (duty.drained() || now >= closeDeadline) {
                        break;
                    }
                }
                if (work != 0) {
                    blocked.reset();
                } else if (ring.size() == 0 && !duty.hasCommands() && !closing) {
                    // Nothing offered: park until an offer (or a command) wakes it, or for a while (confirmations, plans).
                    idle = true;
                    LockSupport.parkNanos(this, IDLE_PARK_NANOS);
                    idle = false;
                } else {
                    // Records wait but no destination takes them now: back off (spin, yield, then park up to
                    // BLOCKED_PARK_NANOS) until acknowledgements make room; offers meanwhile do not wake it.
                    blocked.idle();
                }
            }
        } catch (Throwable t) {
            failure = t;
            LOG.error("multicast {}: its sending thread failed; the stream is closed", streamId, t);
        } finally {
            stopped = true;
            closeAll(duty.liveStreams());
            duty.confirmAll();
            done.complete(null);
        }
    }

    private static void closeAll(List<OutboundStream> streams) {
        List<Thread> closers = new ArrayList<>();
        for (OutboundStream s : streams) {
            Thread t = new Thread(s::close, "jetstream-multicast-close");
            t.setDaemon(true);
            t.start();
            closers.add(t);
        }
        for (Thread t : closers) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public void close() {
        closing = true;
        LockSupport.unpark(thread);
        try {
            done.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        }
        if (!duty.drained()) {
            LOG.warn("multicast {}: closed before every destination took every record (transport.close-timeout-ms)", streamId);
        }
    }
}
