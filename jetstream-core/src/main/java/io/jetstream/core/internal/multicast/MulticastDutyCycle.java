package io.jetstream.core.internal.multicast;

import io.jetstream.core.api.MulticastDestination;
import io.jetstream.core.api.MulticastDestinationStats.State;
import io.jetstream.core.api.MulticastDestinationStats;
import io.jetstream.core.api.MulticastOptions.SlowDestination;
import io.jetstream.core.api.MulticastSettings;
import io.jetstream.core.api.MulticastStream;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.api.Transport;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.agrona.BitUtil;
import org.agrona.ExpandableRingBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work of a multicast stream's sending thread: it moves records from the producer's hand-over ring
 * into the log, hands the log to every destination's stream from where that destination stands, moves
 * confirmations, releases what no destination needs any more, applies {@code multicast.slow-destination},
 * replaces a lost replicating node by its site's receivers, and runs membership changes.
 *
 * <p>Threading contract: {@link #doWork} and everything it calls run on the sending thread only; other
 * threads reach it through {@link #submit} (a queue of commands) and {@link #destinations} (copy-on-write).
 */
final class MulticastDutyCycle {
    private static final Logger LOG = LoggerFactory.getLogger(MulticastDutyCycle.class);
    private static final int READ_LIMIT = 256;

    private final Transport transport;
    private final String streamId;
    private final MulticastStream.DestinationControlListener controls;
    private final long epoch;
    private final MulticastSettings settings;
    private final OneToOneRingBuffer ring;
    private final ExpandableRingBuffer log;
    private final LongSupplier nanoClock;
    private final List<DestinationChannel> live = new ArrayList<>();
    private final List<DestinationChannel> all = new CopyOnWriteArrayList<>();
    private final Queue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final List<LeaveRequest> leaving = new ArrayList<>();
    private final Map<DestinationChannel, List<StreamRoutes>> replicaMembers = new IdentityHashMap<>();
    private final ControlledMessageHandler intoLog = this::intoLog;
    private final ExpandableRingBuffer.MessageConsumer releaseOne = this::releaseOne;
    private long releaseUpTo;
    /** Absolute byte position of the log's head: the log's own head and tail restart at 0 when it grows. */
    private long logHead;
    /**
     * How far the pace-setting destination may trail the newest record before the producer is pushed back: the
     * lag bound with {@code hold}; half of it with {@code leave-behind}, so that only destinations slower than the
     * fastest reach the bound.
     */
    private final long window;
    /** The log position reading stops at in this pass: the pace-setting destination's plus {@link #window}. */
    private long readLimit = Long.MAX_VALUE;
    private long releaseHead;
    final AtomicLong droppedSlow = new AtomicLong();
    final AtomicLong droppedLagged = new AtomicLong();
    final AtomicLong droppedFailed = new AtomicLong();
    final AtomicLong failovers = new AtomicLong();
    private long flushesDone;
    private long endOfSendsDone;
    private volatile PlannedSites planning;
    private boolean readBlocked;

    MulticastDutyCycle(Transport transport, String streamId, long epoch, MulticastSettings settings, OneToOneRingBuffer ring,
            LongSupplier nanoClock, MulticastStream.DestinationControlListener controls) {
        this.transport = transport;
        this.controls = controls;
        this.streamId = streamId;
        this.epoch = epoch;
        this.settings = settings;
        this.ring = ring;
        this.nanoClock = nanoClock;
        long cap = Math.min(ExpandableRingBuffer.MAX_CAPACITY,
                BitUtil.findNextPositivePowerOfTwo((int) Math.min(1 << 30, settings.maxLagBytes() + 2L * settings.bufferBytes())));
        this.window = settings.slowDestination() == SlowDestination.HOLD ? settings.maxLagBytes() : settings.maxLagBytes() / 2;
        this.log = new ExpandableRingBuffer(64 << 10, (int) cap, false);
    }

    /** Runs {@code command} on the sending thread, before its next pass. */
    void submit(Runnable command) {
        commands.add(command);
    }

    boolean hasCommands() {
        return !commands.isEmpty();
    }

    /**
     * Opens a destination that starts after the records offered so far (after those the hand-over ring still
     * holds only when the pace-setting destination blocks reading it). Sending thread.
     */
    void add(MulticastDestination d) {
        for (DestinationChannel c : live) {
            if (c.name.equals(d.name())) {
                throw new IllegalArgumentException("a destination named " + d.name() + " is already in multicast " + streamId);
            }
        }
        readLimit = readLimitNow();
        ring.controlledRead(intoLog, Integer.MAX_VALUE); // what the producer offered before the join stays before it
        open(d.name(), d.target(), d.routes(), d.replicated(), d.members(), logTail());
    }

    /** Opens a destination that starts at log byte position {@code fromByte}. Sending thread. */
    DestinationChannel openChannel(String name, int target, StreamRoutes routes, boolean replicated, List<StreamRoutes> members,
            long fromByte) {
        return open(name, target, routes, replicated, members, fromByte);
    }

    /** Stops sending to {@code c}: it is marked {@code state} and its stream closed once it handed over what it took. Sending thread. */
    void retire(DestinationChannel c, State state, String why) {
        live.remove(c);
        replicaMembers.remove(c);
        c.setState(state, why);
        closeInBackground(c.stream());
    }

    /** Holds or resumes the live destination {@code name} (see {@link MulticastStream#hold}). Sending thread. */
    void hold(String name, boolean held) {
        for (DestinationChannel c : live) {
            if (c.name.equals(name)) {
                c.hold(held);
            }
        }
    }

    /** Every destination the stream had, live or not. */
    List<DestinationChannel> allChannels() {
        return all;
    }

    /** The absolute log byte position after the newest record (where a destination that starts now begins). */
    long logTailPosition() {
        return logTail();
    }

    /** Makes this a planned multicast: {@code p} opens the sites' destinations now and re-plans on every pass. Sending thread. */
    void startPlanning(PlannedSites p) {
        planning = p;
        p.start(this, nanoClock.getAsLong());
    }

    private DestinationChannel open(String name, int target, StreamRoutes routes, boolean replicated, List<StreamRoutes> members,
            long fromByte) {
        String destinationStreamId = streamId + "/" + name;
        DestinationChannel c = new DestinationChannel(name, target, replicated, epoch, destinationStreamId, fromByte,
                nanoClock.getAsLong(), controls);
        OutboundStream s = transport.openSender(destinationStreamId, routes, c);
        c.attach(s);
        if (replicated) {
            replicaMembers.put(c, members);
        }
        live.add(c);
        all.add(c);
        return c;
    }

    /** Removes {@code name} once it took the log up to its tail; returns its stream (to close), or null. Sending thread. */
    DestinationChannel detach(String name) {
        for (DestinationChannel c : live) {
            if (c.name.equals(name)) {
                live.remove(c);
                all.remove(c);
                replicaMembers.remove(c);
                return c;
            }
        }
        return null;
    }

    /**
     * Asks for {@code name} to leave once it took every record offered so far (those the hand-over ring holds
     * included); {@code done} completes with it, detached, or with null if it is not in the stream. Sending thread.
     */
    void requestLeave(String name, CompletableFuture<DestinationChannel> done) {
        readLimit = readLimitNow();
        ring.controlledRead(intoLog, Integer.MAX_VALUE);
        leaving.add(new LeaveRequest(name, logTail(), done));
    }

    private void completeLeaves() {
        for (int i = leaving.size() - 1; i >= 0; i--) {
            LeaveRequest r = leaving.get(i);
            DestinationChannel c = null;
            for (DestinationChannel d : live) {
                if (d.name.equals(r.name())) {
                    c = d;
                }
            }
            if (c == null || c.bytePosition() >= r.upTo()) {
                leaving.remove(i);
                r.done().complete(c == null ? null : detach(r.name()));
            }
        }
    }

    /** A destination leaving once it took the log up to {@code upTo}. */
    private record LeaveRequest(String name, long upTo, CompletableFuture<DestinationChannel> done) {}

    /**
     * One pass.
     *
     * @param endOfSends the producer's ends of send so far ({@link MulticastStream#endOfSend})
     * @param flushRequests the producer's flush requests so far
     * @return work done (0: idle)
     */
    int doWork(long endOfSends, long flushRequests) {
        int work = 0;
        for (Runnable c; (c = commands.poll()) != null; ) {
            c.run();
            work++;
        }
        long now = nanoClock.getAsLong();
        readBlocked = false;
        readLimit = readLimitNow(); // destinations do not move during the read
        work += ring.controlledRead(intoLog, READ_LIMIT);
        for (DestinationChannel c : live) {
            work += c.push(log, logHead, now);
        }
        if (endOfSends != endOfSendsDone && ring.size() == 0) {
            // The producer's send ended and everything it offered before is in the log: its destinations' sends end too
            // (only then: a stream told at every drained ring would send a batch per record at low rates).
            endOfSendsDone = endOfSends;
            for (DestinationChannel c : live) {
                c.endOfSend();
            }
        }
        if (flushRequests != flushesDone) {
            flushesDone = flushRequests;
            for (DestinationChannel c : live) {
                c.stream().flush();
            }
        }
        for (DestinationChannel c : live) {
            c.confirm(now);
        }
        if (!leaving.isEmpty()) {
            completeLeaves();
        }
        work += applyPolicies(now);
        if (planning != null) {
            planning.tick(this, now);
        }
        release();
        return work;
    }

    private ControlledMessageHandler.Action intoLog(int type, org.agrona.MutableDirectBuffer buffer, int index, int length) {
        if (logTail() + length > readLimit) {
            readBlocked = true;
            return ControlledMessageHandler.Action.ABORT;
        }
        if (!log.append(buffer, index, length)) {
            readBlocked = true;
            return ControlledMessageHandler.Action.ABORT;
        }
        return ControlledMessageHandler.Action.CONTINUE;
    }

    private long readLimitNow() {
        return live.isEmpty() ? Long.MAX_VALUE : paceSetter() + window;
    }

    /**
     * Where the destination that sets the stream's pace stands: the slowest with {@code hold}, the fastest with
     * {@code leave-behind} (Aeron's minimum and maximum flow control).
     */
    private long paceSetter() {
        if (settings.slowDestination() == SlowDestination.HOLD) {
            return minNeeded();
        }
        long max = Long.MIN_VALUE;
        for (DestinationChannel c : live) {
            max = Math.max(max, c.neededBytePosition());
        }
        return max;
    }

    private long minNeeded() {
        long min = logTail();
        for (DestinationChannel c : live) {
            min = Math.min(min, c.neededBytePosition());
        }
        return min;
    }

    private int applyPolicies(long now) {
        int work = 0;
        for (int i = live.size() - 1; i >= 0; i--) {
            DestinationChannel c = live.get(i);
            c.updateLag(logTail());
            if (c.stream().failure().isPresent() && !c.replicating) {
                drop(c, droppedFailed, "its stream failed: " + c.stream().failure().get());
                work++;
            } else if (c.replicating && c.unreachable(now, settings.failoverTimeoutNanos())) {
                failOver(c, now);
                work++;
            } else if (settings.slowDestination() == SlowDestination.LEAVE_BEHIND && c.lagBytes() > settings.maxLagBytes()) {
                drop(c, droppedLagged, "lagged: trails the newest record by " + c.lagBytes() + " B, more than multicast.max-lag-bytes = "
                        + settings.maxLagBytes());
                work++;
            } else if (settings.slowDestination() == SlowDestination.HOLD && readBlocked && settings.holdTimeoutNanos() > 0
                    && c.neededBytePosition() == minNeeded() && now - c.lastProgressNanos() > settings.holdTimeoutNanos()) {
                drop(c, droppedSlow, "slow: held the stream and took nothing for " + (now - c.lastProgressNanos()) / 1_000_000
                        + " ms (multicast.hold-timeout-ms = " + settings.holdTimeoutNanos() / 1_000_000 + ")");
                work++;
            }
        }
        return work;
    }

    private void drop(DestinationChannel c, AtomicLong counter, String why) {
        live.remove(c);
        replicaMembers.remove(c);
        c.setState(State.DROPPED, why);
        counter.incrementAndGet();
        LOG.warn("multicast {}: destination {} dropped, {}; confirmed up to position {}", streamId, c.name, why, c.confirmedPosition());
        closeInBackground(c.stream());
    }

    /** A replicating node lost: its site's receivers are sent to directly, from the oldest record it had not confirmed. */
    private void failOver(DestinationChannel c, long now) {
        List<StreamRoutes> members = replicaMembers.remove(c);
        live.remove(c);
        long from = c.neededBytePosition();
        String why = c.stream().failure().map(f -> "its stream failed: " + f)
                .orElse("unreachable for multicast.failover-timeout-ms = " + settings.failoverTimeoutNanos() / 1_000_000 + " ms"
                        + (c.everReady() ? "" : " (never connected)"));
        c.setState(State.FAILED_OVER, why);
        failovers.incrementAndGet();
        LOG.warn("multicast {}: replicating node of {} lost ({}); sending to its {} receivers directly from position {}",
                streamId, c.name, why, members.size(), c.confirmedPosition() + 1);
        closeInBackground(c.stream());
        List<DestinationChannel> opened = new ArrayList<>();
        for (int m = 0; m < members.size(); m++) {
            opened.add(open(c.name + "/" + m, c.target, members.get(m), false, List.of(), from));
        }
        if (planning != null) {
            planning.onFailedOver(c, opened);
        }
    }

    private static void closeInBackground(OutboundStream s) {
        Thread t = new Thread(s::close, "jetstream-multicast-close");
        t.setDaemon(true);
        t.start();
    }

    private void release() {
        long upTo = live.isEmpty() ? logTail() : minNeeded();
        if (upTo > logHead) {
            releaseUpTo = upTo;
            releaseHead = logHead;
            logHead += log.consume(releaseOne, Integer.MAX_VALUE);
        }
    }

    private boolean releaseOne(org.agrona.MutableDirectBuffer buffer, int offset, int length, int endHeadOffset) {
        return releaseHead + endHeadOffset <= releaseUpTo;
    }

    private long logTail() {
        return logHead + log.size();
    }

    /** Whether every live destination took everything offered. */
    boolean drained() {
        if (ring.size() != 0) {
            return false;
        }
        for (DestinationChannel c : live) {
            if (c.bytePosition() < logTail()) {
                return false;
            }
        }
        return true;
    }

    /** Moves every live destination's confirmation once more (after their streams closed: their last acknowledgements). */
    void confirmAll() {
        long now = nanoClock.getAsLong();
        for (DestinationChannel c : live) {
            c.confirm(now);
        }
    }

    /** The streams of the live destinations (to close). */
    List<OutboundStream> liveStreams() {
        List<OutboundStream> out = new ArrayList<>();
        for (DestinationChannel c : live) {
            out.add(c.stream());
        }
        return out;
    }

    List<MulticastDestinationStats> destinations() {
        List<MulticastDestinationStats> out = new ArrayList<>();
        for (DestinationChannel c : all) {
            out.add(c.stats());
        }
        return out;
    }

    /** A planned multicast's gauges; empty otherwise. */
    Map<String, Double> planGauges() {
        PlannedSites p = planning;
        return p == null ? Map.of() : p.gauges();
    }

    /** Lowest confirmed position over the live destinations (every one of them has every record up to it). */
    long confirmedByAll() {
        long min = Long.MAX_VALUE;
        for (DestinationChannel c : all) {
            if (c.state() == State.DIRECT || c.state() == State.REPLICATED) {
                min = Math.min(min, c.confirmedPosition());
            }
        }
        return min == Long.MAX_VALUE ? 0 : min;
    }
}
