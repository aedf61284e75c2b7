package io.jetstream.core.model;

/**
 * The adaptive batching loop of one channel: measure ({@link StreamMonitor}), decide
 * ({@link BatchOracle}) every {@code decisionIntervalNanos}, apply to the channel's
 * {@link FlushPolicy}; it also tells the transport when to probe the link with a message of a given
 * size ({@link #probeBytesDue}). Until it has seen {@code warmupEvents} events, and the link is fitted
 * or a decision interval has passed since, it sends every event at once (latency first): deciding on
 * priors alone would make the first events wait for batches sized for a rate nobody measured, or
 * for a link nobody measured (measured: at 50,000 events/s the 20 warm-up events took 0.4 ms, before
 * the first probe's result; the prior link of 5 ms per send called every small batch unsustainable,
 * and the first frame carried 1,876 events, 37 ms of them).
 *
 * <p>Threading: called by the channel's writer thread ({@link #onEvent}) and its transfer
 * completion path ({@link #onTransfer}), which must be the same thread or be serialised by the
 * transport. Decisions are reported to the listener on that thread.
 */
public final class BatchController {
    private final StreamMonitor monitor;
    private final BatchOracle oracle;
    private final FlushPolicy flush;
    private final StreamContext prior;
    private final long decisionIntervalNanos;
    private final long minReactionNanos;
    private final long warmupEvents;
    private final long maxDelayNanos;
    private final BatchListener listener;

    /** Probe sizes cycled through: the link's curve needs distinct sizes (JetStream §4, Transfer Module). */
    static final long[] PROBE_BYTES = {4 << 10, 16 << 10, 64 << 10};

    private static final double RATE_SHIFT = 2.0;
    /**
     * While the transport pushes back, the measured rate is what the link let through (admitted in
     * bursts between waits), not what the producer wants, and it follows the setting in force: a
     * small batch carries little, so little is admitted, so the measured rate stays small. The
     * controller then assumes unmet demand and probes for it like a slow start: the first decision
     * under push-back assumes this multiple of the larger of the measured rate and what the current
     * setting carries, every further one this multiple of the previous assumption (up to
     * {@link #MAX_DEMAND}), until the oracle finds no setting that keeps up and chooses for
     * throughput ({@link BatchOracle}, saturated). Once the push-back stops, the measured rate alone
     * decides again.
     */
    static final double BACKLOGGED_DEMAND_FACTOR = 2.0;
    /** Share of the producer's time inside the transport from which the transport limits it. */
    static final double PRODUCER_BOUND_LOAD = 0.5;
    /** Upper bound of the assumed demand (events per second). */
    static final double MAX_DEMAND = 1e9;
    /** Shortest time between two early decisions ({@link #rateShifted}), and its share of the decision interval. */
    private static final long MIN_REACTION_NANOS = 200_000;
    private static final int REACTIONS_PER_INTERVAL = 10;
    /** Multiple of a batch's formation time after which it leaves unfilled ({@link #deadlineNanos}). */
    static final double FORMATION_SLACK = 2.0;
    /** Longest a due probe waits for the link to fall quiet, or for the previous probe's answer ({@link #probeBytesDue}). */
    static final long MAX_PROBE_WAIT_NANOS = 50_000_000;
    /**
     * A reported transfer of at least this share of the last probe's wire bytes is taken as its
     * answer (a transport may count a probe's headers a little differently from {@link #wireBytes}).
     */
    private static final double PROBE_ANSWER_SHARE = 0.9;

    private long events;
    /** When the {@code warmupEvents}-th event arrived. */
    private long warmedUpNanos;
    private boolean backPressured;
    private long backPressuredUntilNanos;
    /** Demand assumed while pushed back (events per second), 0 otherwise. */
    private double assumedDemand;
    private long nextDecisionNanos;
    private long lastDecisionNanos;
    private double decidedRate;
    private long nextProbeNanos;
    private int probes;
    /** Whether frames were reported since the link was fitted ({@link #onSent}). */
    private boolean linkBusy;
    /** When the frames reported so far should have left the link, with any token bucket full again. */
    private long linkQuietAtNanos;
    /** A probe is due and waits for a quiet link: since when, and whether a frame has left since. */
    private boolean probeWaiting;
    private long probeWaitingSinceNanos;
    private boolean sentWhileWaiting;
    /** Wire bytes of the last probe until a transfer that size is reported (its answer), else 0; and when it left. */
    private double unansweredProbeBytes;
    private long probeSentNanos;
    private BatchDecision last;

    /**
     * @param prior what is assumed until measured (costs, overheads, cores, the user's max delay)
     * @param listener receives every decision (metrics); may be {@link BatchListener#NONE}
     */
    public BatchController(StreamMonitor monitor, BatchOracle oracle, FlushPolicy flush, StreamContext prior,
            long decisionIntervalNanos, long warmupEvents, BatchListener listener) {
        this.monitor = monitor;
        this.oracle = oracle;
        this.flush = flush;
        this.prior = prior;
        this.decisionIntervalNanos = decisionIntervalNanos;
        this.minReactionNanos = Math.max(MIN_REACTION_NANOS, decisionIntervalNanos / REACTIONS_PER_INTERVAL);
        this.warmupEvents = warmupEvents;
        this.maxDelayNanos = (long) Math.min(Long.MAX_VALUE / 4, prior.maxEventDelaySeconds() * 1e9);
        this.listener = listener;
        flush.setTargets(1, maxDelayNanos);
    }

    /** An event of {@code bytes} is about to join the pending data. */
    public void onEvent(int bytes, long nowNanos) {
        onEvents(1, bytes, nowNanos);
    }

    /**
     * {@code count} events of {@code bytes} in all joined the pending data since the last call, the
     * last at {@code nowNanos} ({@link StreamMonitor#onEvents}): for a writer that reads the clock
     * once per group of events. Decisions are taken at these calls only.
     */
    public void onEvents(int count, long bytes, long nowNanos) {
        monitor.onEvents(count, bytes, nowNanos);
        long before = events;
        events += count;
        if (before < warmupEvents && events >= warmupEvents) {
            warmedUpNanos = nowNanos;
        }
        if (events >= warmupEvents && (last == null ? linkKnownOrLate(nowNanos)
                : nowNanos - nextDecisionNanos >= 0 || rateShifted(nowNanos))) {
            StreamContext measured = monitor.context(prior);
            decidedRate = measured.eventsPerSecond();
            backPressured = backPressured && nowNanos - backPressuredUntilNanos < 0;
            if (backPressured) {
                double carried = last == null ? 0 : LatencyModel.capacity(measured, last.batchSize(), last.routes());
                assumedDemand = Math.min(MAX_DEMAND,
                        Math.max(assumedDemand, Math.max(measured.eventsPerSecond(), carried)) * BACKLOGGED_DEMAND_FACTOR);
                measured = measured.withRate(assumedDemand);
            } else {
                assumedDemand = 0;
            }
            lastDecisionNanos = nowNanos;
            last = oracle.decide(measured);
            flush.apply(last, measured.eventBytes(), deadlineNanos(last, measured.eventsPerSecond()));
            nextDecisionNanos = nowNanos + decisionIntervalNanos;
            listener.onDecision(last);
        }
    }

    /** Whether the first decision may be taken: the link is fitted, or it was not within a decision interval of the warm-up. */
    private boolean linkKnownOrLate(long nowNanos) {
        return monitor.lastFittedLink() != null || nowNanos - warmedUpNanos >= decisionIntervalNanos;
    }

    /**
     * How long the oldest pending event may wait: the user's maximum delay, and for a sustainable
     * decision also {@value #FORMATION_SLACK} × the time its batch takes to form at the decided
     * rate. The oracle sized the batch for that rate; when the batch has not filled in twice that
     * time the rate has dropped (measured over the last events, a drop is seen only as the slow
     * events arrive), and waiting on for the target would charge every pending event the old rate's
     * batch at the new rate's pace (measured in virtual time: 10 ms per event at a step from
     * 50,000 to 100 events/s). A saturated decision keeps the maximum delay: events wait anyway,
     * and cutting its batches short would lower the throughput it was chosen for.
     */
    private long deadlineNanos(BatchDecision decision, double eventsPerSecond) {
        if (!decision.sustainable()) {
            return maxDelayNanos;
        }
        double formation = FORMATION_SLACK * decision.batchSize() / eventsPerSecond * 1e9;
        return (long) Math.min(maxDelayNanos, formation);
    }

    /**
     * The transport refused or delayed an event because its budget was full: until a decision
     * interval passes without this call, the oracle decides for more demand than it measures
     * ({@link #BACKLOGGED_DEMAND_FACTOR}).
     * Writer thread.
     */
    public void onBackPressure(long nowNanos) {
        boolean fresh = !backPressured || nowNanos - backPressuredUntilNanos >= 0;
        backPressured = true;
        backPressuredUntilNanos = nowNanos + decisionIntervalNanos;
        if (fresh) {
            nextDecisionNanos = nowNanos; // decide at the next event, not after a full interval
        }
    }

    /**
     * The producer spent {@code busyFraction} of its time inside the transport (sampled over a
     * window; JetStream's Ratio_CPU, measured rather than modelled). From
     * {@value #PRODUCER_BOUND_LOAD} on, the transport's per-event cost is what limits the producer:
     * its rate is then no more a demand than a pushed-back producer's, and it is treated as one
     * ({@link #onBackPressure}). Writer thread.
     */
    public void onProducerLoad(double busyFraction, long nowNanos) {
        if (busyFraction >= PRODUCER_BOUND_LOAD) {
            onBackPressure(nowNanos);
        }
    }

    /**
     * Bytes of the link probe the transport should send now, or 0. The first probes go out at once
     * (one per size) so the throughput curve exists before the first decision; after that they are
     * spaced by the monitor's intrusiveness control ({@link StreamMonitor#nextProbeIntervalNanos()}),
     * and none go out while the transport pushes back.
     *
     * <p>Probes go one at a time: the next waits for the last one's answer ({@link #onTransfer} of
     * its size), at most {@value #MAX_PROBE_WAIT_NANOS} ns. Measured on the 100 Mbit/s tbf: a
     * 16 KiB probe sent right behind the 4 KiB one found the bucket it had emptied and read
     * 1,384 µs, where the link takes 1,046 µs.
     *
     * <p>Once the link is fitted and frames are reported ({@link #onSent}), a due probe waits for
     * the next frame and then until that frame, and those before it, should have left the link and
     * refilled any token bucket they drew on ({@link ThroughputCurve#occupancySeconds}): the
     * probe then measures an idle link and has the longest gap before the next frame to pass in.
     * It waits at most {@value #MAX_PROBE_WAIT_NANOS} ns. A probe sent behind a frame times the
     * queue in front of it, and on a shaped link finds the bucket short by that frame: measured on
     * a 100 Mbit/s tbf with a 4 KiB bucket, 4 KiB probes sent right behind data frames put the
     * fitted depth at 3.4–3.8 KB, and 6.5 KB frames, which find the bucket full, were modelled
     * 22–23 % slow (within 7–12 % with this rule). A transport asks before each frame it sends
     * and reports the frame ({@link #onSent}); between frames it asks at {@link #probeCheckNanos}
     * (a timer). A probe returned here counts as sent now; it then goes before that frame.
     */
    public long probeBytesDue(long nowNanos) {
        if (probes >= PROBE_BYTES.length
                && (nowNanos - nextProbeNanos < 0 || backPressured && nowNanos - backPressuredUntilNanos < 0)) {
            return 0; // pushed back, a probe would time the queue in front of it (the transport measures the drain instead)
        }
        if (unansweredProbeBytes > 0 && nowNanos - probeSentNanos < MAX_PROBE_WAIT_NANOS) {
            return 0; // one probe at a time: the next would queue behind it, or find the bucket it emptied
        }
        if (linkBusy) {
            if (!probeWaiting) {
                probeWaiting = true;
                probeWaitingSinceNanos = nowNanos;
                sentWhileWaiting = false;
            }
            boolean quiet = sentWhileWaiting && nowNanos - linkQuietAtNanos >= 0;
            if (!quiet && nowNanos - probeWaitingSinceNanos < MAX_PROBE_WAIT_NANOS) {
                return 0;
            }
        }
        probeWaiting = false;
        long bytes = PROBE_BYTES[probes++ % PROBE_BYTES.length];
        nextProbeNanos = nowNanos + monitor.nextProbeIntervalNanos();
        unansweredProbeBytes = wireBytes(bytes);
        probeSentNanos = nowNanos;
        onSent(unansweredProbeBytes, nowNanos);
        return bytes;
    }

    /**
     * When {@link #probeBytesDue} would next return a probe if asked, other things (back-pressure)
     * unchanged: the monitor's schedule; once due, when the link falls quiet after the next frame,
     * or the end of the longest wait. A transport that probes from a timer sleeps until then; never
     * before {@code nowNanos}. Writer thread.
     */
    public long probeCheckNanos(long nowNanos) {
        long at;
        if (!probeWaiting) {
            at = probes < PROBE_BYTES.length ? nowNanos : nextProbeNanos;
            if (unansweredProbeBytes > 0 && probeSentNanos + MAX_PROBE_WAIT_NANOS - at > 0) {
                at = probeSentNanos + MAX_PROBE_WAIT_NANOS; // or at the answer, which the transport reports first
            }
        } else {
            long longest = probeWaitingSinceNanos + MAX_PROBE_WAIT_NANOS;
            at = sentWhileWaiting && linkQuietAtNanos - longest < 0 ? linkQuietAtNanos : longest;
        }
        return at - nowNanos < 0 ? nowNanos : at;
    }

    /**
     * A frame of {@code wireBytes} ({@link #wireBytes}) leaves for the link now: it keeps the link
     * busy for its occupancy on the last fitted curve, after the frames before it. Nothing is
     * estimated before the link is fitted. Writer thread; no allocation.
     */
    public void onSent(double wireBytes, long nowNanos) {
        ThroughputCurve link = monitor.lastFittedLink();
        if (link == null || !(wireBytes > 0)) {
            return;
        }
        long start = linkBusy && linkQuietAtNanos - nowNanos > 0 ? linkQuietAtNanos : nowNanos;
        linkQuietAtNanos = start + (long) Math.min(MAX_PROBE_WAIT_NANOS, link.occupancySeconds(wireBytes) * 1e9);
        linkBusy = true;
        sentWhileWaiting = true;
    }

    /**
     * Whether the link is idle now as far as the model knows: no frame reported, or the frames
     * reported so far ({@link #onSent}) should have left it, by their occupancy on the fitted curve.
     * A transport told that its producer has nothing more for now sends its pending batch at once
     * when this holds: waiting for the batch to fill would only leave the link idle while its events
     * wait (work conservation; a batch pays off only when the link is the bottleneck). Before the
     * link is fitted it holds, as every event then leaves at once anyway. Writer thread.
     */
    public boolean linkIdle(long nowNanos) {
        return !linkBusy || nowNanos - linkQuietAtNanos >= 0;
    }

    /**
     * Whether the measured rate left [½, 2] × the rate of the last decision: a step in the load must
     * not wait for the decision timer, or batches sized for the old rate pile up. At most one such
     * early decision per tenth of the decision interval (5 ms at the default 50 ms; never under
     * 200 µs): a producer that sends in bursts (Storm's transfer thread hands over a few dozen tuples
     * at a time) shows a step up at every burst and a step down after it, and deciding on each made
     * the oracle's search most of the producer's cost per record (measured in a Storm worker).
     */
    private boolean rateShifted(long nowNanos) {
        if (nowNanos - lastDecisionNanos < minReactionNanos) {
            return false;
        }
        double rate = monitor.eventsPerSecond();
        return rate > RATE_SHIFT * decidedRate || rate * RATE_SHIFT < decidedRate;
    }

    /**
     * Bytes on the wire, as the model counts them, for a frame of {@code frameBytes} (or for that
     * many bytes of frames drained back to back): the frame plus the transport's headers per segment
     * ({@link StreamContext#wireBytes}). What transports pass to {@link #onTransfer}.
     */
    public double wireBytes(long frameBytes) {
        return prior.wireBytes(frameBytes);
    }

    /** A batch or probe of {@code bytes} ({@link #wireBytes}) took {@code seconds} on the wire. */
    public void onTransfer(long bytes, double seconds) {
        monitor.onTransfer(bytes, seconds);
        if (bytes >= PROBE_ANSWER_SHARE * unansweredProbeBytes) {
            unansweredProbeBytes = 0;
        }
    }

    /**
     * The transport measured the mean latency of events delivered under the current decision (for
     * example from acknowledgements); reported to the listener next to the prediction.
     */
    public void onMeasuredLatency(double seconds) {
        listener.onMeasuredLatency(last == null ? Double.NaN : last.predictedLatency(), seconds);
    }

    /** The last decision, or null during warm-up. */
    public BatchDecision lastDecision() {
        return last;
    }

    public FlushPolicy flush() {
        return flush;
    }

    public StreamMonitor monitor() {
        return monitor;
    }
}
