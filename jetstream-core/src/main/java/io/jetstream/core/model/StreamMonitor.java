package io.jetstream.core.model;

/**
 * JetStream's monitors (§4: the Buffer's acquisition rate and event sizes, the Transfer Module's
 * throughput probes, encoding cost): smoothed estimates that feed the {@link BatchOracle}, on an
 * injected clock.
 *
 * <ul>
 *   <li>Rate: events over the span of the last {@value #RATE_WINDOW} arrivals (an arrival is one
 *       event, or a group of events a writer counted between two clock reads, {@link #onEvents}),
 *       and how much their gaps vary, so a step in the load is measured within that many arrivals
 *       (a step up of {@value #STEP_FACTOR}× or more within {@value #STEP_GAPS}). Size: an exponentially weighted moving average (the
 *       plain mean while fewer than 1/smoothing samples exist).
 *   <li>Encoding: a least-squares fit of batch encode time to its bytes (tHe + tDe·B).
 *   <li>Link: a {@link ThroughputCurve} (affine, or with a burst allowance when the link is a
 *       token bucket) fitted per log2 size bucket — a trimmed mean of the last {@value #SERVICE_SAMPLES}
 *       transfers, their sizes and times alike — so that a flood of
 *       same-sized batches cannot crowd out the probes, and a few disturbed transfers cannot
 *       misstate a size ({@link #SERVICE_SAMPLES}). Each size weighs in the fit as the number of
 *       times its mean stands for, so a size measured once moves it as one measurement does.
 *   <li>Intrusiveness control: {@link #nextProbeIntervalNanos()} doubles while the link's recent
 *       measurements stray little from the fitted curve (relative residuals' deviation under 5 %)
 *       and halves when they stray a lot (over 20 %), within [min, max].
 * </ul>
 *
 * <p>Not thread-safe: owned by the controller thread (transports hand it measurements through their
 * own hand-off).
 */
public final class StreamMonitor {
    private static final double LOW_VARIATION = 0.05;
    private static final double HIGH_VARIATION = 0.20;
    public static final int BUCKETS = 48;
    /** Arrivals the rate is measured over: a step in the load is seen after this many events (groups). */
    static final int RATE_WINDOW = 16;
    /**
     * A step up is seen sooner: when the last {@value} gaps are {@link #STEP_FACTOR} times faster
     * than the window, they alone give the rate. Until then every event of the new load is sent as
     * the old rate's batch (one event at a time after a quiet period), and on a link with a fixed
     * cost per send each of them queues a whole send time: measured in virtual time, the 18 events
     * before a 16-event window notices a step from 100 to 50,000 events/s put 18 ms of queue on a
     * 1 ms link, which took 0.2 s to drain.
     */
    static final int STEP_GAPS = 4;
    /**
     * How much faster the last {@link #STEP_GAPS} gaps must be: under a steady Poisson load, four
     * gaps summing to under a quarter of their mean happens for about 2 % of events (a brief
     * overestimate the next events undo), a real step of 4× or more is seen after four events.
     */
    static final double STEP_FACTOR = 4;
    /**
     * Transfers between refits of the link on the transfer path (a new size refits at once; a
     * decision always uses the latest samples): a fit tries a breakpoint per split of up to
     * {@value #BUCKETS} sizes, each a pass over them, too much to repeat for every single-event frame.
     */
    static final int REFIT_TRANSFERS = 16;
    /**
     * Transfer times kept per size bucket. A bucket's time is their trimmed mean: the mean
     * without the slowest and the fastest {@link #TRIMMED_SHARE} of them. Why not the plain mean:
     * what delays a transfer besides its bytes and the load is interference, and it is
     * heavy-tailed. Measured on loopback, a few descheduled receiver wake-ups among the first
     * twenty one-event frames made their mean 234 µs against a typical 10 µs; the oracle then
     * ruled single-event sends out as unsustainable, and a size it avoids is never measured
     * again. Why both ends: trimming only the slow end reads a link with symmetric jitter as
     * faster than it is (by 0.35 σ), and in virtual time, with 10 % jitter, that put the oracle's
     * 800-byte batches past the link's capacity (5.0 ms mean latency against 2.5 ms).
     */
    public static final int SERVICE_SAMPLES = 15;
    /** Share of a bucket's recent times left out at each end: 3 of 15 slowest and 3 fastest. */
    public static final double TRIMMED_SHARE = 0.2;

    private final double smoothing;
    /**
     * The last {@link #SERVICE_SAMPLES} transfers of each log2(bytes) bucket, so that no size crowds
     * out the others: their sizes and times (a ring per bucket, the same slot for one transfer).
     */
    private final double[] recentBytes = new double[BUCKETS * SERVICE_SAMPLES];
    private final double[] recentSeconds = new double[BUCKETS * SERVICE_SAMPLES];
    private final double[] sortedSeconds = new double[SERVICE_SAMPLES];
    private final double[] sortedBytes = new double[SERVICE_SAMPLES];
    private final long[] bucketCount = new long[BUCKETS];
    private final double[] fitBytes = new double[BUCKETS];
    private final double[] fitSeconds = new double[BUCKETS];
    private final double[] fitWeights = new double[BUCKETS];
    private final double[] fitScratch = new double[BUCKETS];
    /** Smoothed squared relative residual of transfers against the fitted curve. */
    private double residualSquares = Double.NaN;
    private final double[] encodeBytes;
    private final double[] encodeSeconds;
    private final long minProbeNanos;
    private final long maxProbeNanos;

    /** Times of the last {@link #RATE_WINDOW} arrivals (ring). */
    private final long[] arrivals = new long[RATE_WINDOW];
    /** Events counted up to and including each of those arrivals (ring, same slots). */
    private final long[] arrivedEvents = new long[RATE_WINDOW];
    /** Arrivals so far: calls of {@link #onEvent} / {@link #onEvents}. */
    private long arrivalCount;
    /** Events so far. */
    private long events;
    private double meanEventBytes = Double.NaN;
    private int transfers;
    /** The link fitted after {@link #fittedAt} transfers (null before two sizes). */
    private ThroughputCurve link;
    private int fittedAt;
    private int encodes;
    private long probeNanos;

    /**
     * @param smoothing EWMA weight of a new sample (0..1]
     * @param samples how many encode samples the encode-cost fit keeps
     */
    public StreamMonitor(double smoothing, int samples, long minProbeNanos, long maxProbeNanos) {
        if (!(smoothing > 0 && smoothing <= 1) || samples < 2 || minProbeNanos <= 0 || maxProbeNanos < minProbeNanos) {
            throw new IllegalArgumentException("invalid monitor settings");
        }
        this.smoothing = smoothing;
        this.encodeBytes = new double[samples];
        this.encodeSeconds = new double[samples];
        this.minProbeNanos = minProbeNanos;
        this.maxProbeNanos = maxProbeNanos;
        this.probeNanos = minProbeNanos;
    }

    /** One event of {@code bytes} arrived at {@code nowNanos}. */
    public void onEvent(int bytes, long nowNanos) {
        onEvents(1, bytes, nowNanos);
    }

    /**
     * {@code count} events of {@code bytes} in all arrived, the last at {@code nowNanos}: for a writer
     * that reads the clock once per group of events rather than per event (a clock read costs about
     * as much as the rest of a record's bookkeeping, measured 24 ns here). The rate is then measured
     * over the last {@value #RATE_WINDOW} groups and the arrival variation over the groups' mean gaps;
     * groups of one are exactly {@link #onEvent}. No allocation.
     */
    public void onEvents(int count, long bytes, long nowNanos) {
        if (count < 1) {
            throw new IllegalArgumentException("count " + count);
        }
        events += count;
        int slot = (int) (arrivalCount++ % RATE_WINDOW);
        arrivals[slot] = nowNanos;
        arrivedEvents[slot] = events;
        // Plain mean while few samples exist (weight 1/n), then the EWMA (a group weighs as its events
        // would one by one): no slow start from zero.
        double mean = (double) bytes / count;
        double w = count == 1 ? smoothing : 1 - Math.pow(1 - smoothing, count);
        w = Math.max(w, (double) count / events);
        meanEventBytes = Double.isNaN(meanEventBytes) ? mean : meanEventBytes + w * (mean - meanEventBytes);
    }

    /**
     * A transfer of {@code bytes} (as the model counts them: payload plus protocol overheads) took
     * {@code seconds} of service: from when the link was free for it (written, and the previous
     * transfer delivered) to its last byte. Not the sojourn from the write: that counts the queue
     * behind earlier transfers as slowness of the link (measured: a 845 µs "latency" for loopback).
     * A size's time is the trimmed mean of its last {@value #SERVICE_SAMPLES} transfers
     * ({@link #SERVICE_SAMPLES}: why not the plain mean).
     */
    public void onTransfer(long bytes, double seconds) {
        if (bytes <= 0 || !(seconds > 0)) {
            return;
        }
        transfers++;
        ThroughputCurve before = link;
        if (before != null) {
            double residual = seconds / before.transferSeconds(bytes) - 1;
            residualSquares = Double.isNaN(residualSquares)
                    ? residual * residual
                    : residualSquares + smoothing * (residual * residual - residualSquares);
            adaptProbeInterval();
        }
        int b = 63 - Long.numberOfLeadingZeros(bytes);
        b = Math.min(BUCKETS - 1, b);
        long n = ++bucketCount[b];
        int slot = b * SERVICE_SAMPLES + (int) ((n - 1) % SERVICE_SAMPLES);
        recentBytes[slot] = bytes;
        recentSeconds[slot] = seconds;
        if (n == 1 || transfers - fittedAt >= REFIT_TRANSFERS) {
            link = fittedLink();
            fittedAt = transfers;
        }
    }

    /**
     * Copies the samples the link is fitted to (per log2 size bucket, ascending: the trimmed mean of
     * its recent transfers, {@link #SERVICE_SAMPLES}) into the arrays, which need {@value #BUCKETS}
     * entries; returns how many. For reports: the fit's inputs next to its result.
     */
    public int linkSamples(double[] bytes, double[] seconds) {
        return linkSamples(bytes, seconds, null);
    }

    /**
     * As {@link #linkSamples(double[], double[])}, and each sample's weight in the fit into
     * {@code weights} (unless null): how many recent transfer times its time summarises, at most
     * {@value #SERVICE_SAMPLES}.
     */
    public int linkSamples(double[] bytes, double[] seconds, double[] weights) {
        int n = 0;
        for (int b = 0; b < BUCKETS; b++) {
            if (bucketCount[b] > 0) {
                if (weights != null) {
                    weights[n] = Math.min(bucketCount[b], SERVICE_SAMPLES);
                }
                trimmedMean(b, bytes, seconds, n++);
            }
        }
        return n;
    }

    /**
     * Into {@code bytes[at]} and {@code seconds[at]}: the mean size and time of bucket {@code b}'s
     * recent transfers without the slowest and fastest {@link #TRIMMED_SHARE} of them. Sizes and times over one set of transfers: a bucket spans a factor of two, and where it holds
     * a token bucket's depth its sizes differ in kind (measured on tbf with a 4 KiB bucket: 4,294-byte
     * probes in 22 µs and 6,496-byte frames in 227 µs in one bucket; a running mean of all its sizes
     * beside the times of the last few, mostly probes, read 5,464 B in 22 µs and deepened the fitted
     * bucket to 5.3 KB).
     */
    private void trimmedMean(int b, double[] bytes, double[] seconds, int at) {
        int n = (int) Math.min(bucketCount[b], SERVICE_SAMPLES);
        for (int i = 0; i < n; i++) { // insertion sort by time, sizes alongside: at most SERVICE_SAMPLES
            double v = recentSeconds[b * SERVICE_SAMPLES + i];
            double size = recentBytes[b * SERVICE_SAMPLES + i];
            int j = i;
            while (j > 0 && sortedSeconds[j - 1] > v) {
                sortedSeconds[j] = sortedSeconds[j - 1];
                sortedBytes[j] = sortedBytes[j - 1];
                j--;
            }
            sortedSeconds[j] = v;
            sortedBytes[j] = size;
        }
        int trimmed = (int) (n * TRIMMED_SHARE);
        double secondsSum = 0;
        double bytesSum = 0;
        for (int i = trimmed; i < n - trimmed; i++) {
            secondsSum += sortedSeconds[i];
            bytesSum += sortedBytes[i];
        }
        bytes[at] = bytesSum / (n - 2 * trimmed);
        seconds[at] = secondsSum / (n - 2 * trimmed);
    }

    /** The curve fitted over the size buckets seen so far, or null with fewer than two. */
    private ThroughputCurve fittedLink() {
        int n = linkSamples(fitBytes, fitSeconds, fitWeights);
        if (n < 2) {
            return null;
        }
        try {
            return ThroughputCurve.fitSorted(fitBytes, fitSeconds, fitWeights, n, fitScratch);
        } catch (IllegalArgumentException degenerate) {
            return null;
        }
    }

    public void onEncode(long bytes, double seconds) {
        int i = encodes++ % encodeBytes.length;
        encodeBytes[i] = bytes;
        encodeSeconds[i] = seconds;
    }

    /**
     * Events per second over the last {@link #RATE_WINDOW} arrivals, or NaN before two arrivals; the
     * rate of the last {@value #STEP_GAPS} gaps instead when that is over {@value #STEP_FACTOR}×
     * the window's (a step up in the load).
     */
    public double eventsPerSecond() {
        if (arrivalCount < 2) {
            return Double.NaN;
        }
        int n = (int) Math.min(arrivalCount, RATE_WINDOW);
        int newest = (int) ((arrivalCount - 1) % RATE_WINDOW);
        int oldest = (int) ((arrivalCount - n) % RATE_WINDOW);
        double window = rate(arrivedEvents[newest] - arrivedEvents[oldest], arrivals[newest] - arrivals[oldest]);
        if (n > STEP_GAPS + 1) {
            int stepStart = (int) ((arrivalCount - 1 - STEP_GAPS) % RATE_WINDOW);
            double recent = rate(arrivedEvents[newest] - arrivedEvents[stepStart], arrivals[newest] - arrivals[stepStart]);
            if (recent > STEP_FACTOR * window) {
                return recent;
            }
        }
        return window;
    }

    /**
     * Coefficient of variation of the gaps between arrivals (standard deviation over mean): 0 for a
     * paced source, about 1 for Poisson arrivals; with groups of events ({@link #onEvents}), of the
     * groups' mean gaps per event (for Poisson arrivals in groups of k, about 1/√k). Measured over
     * each half of the last {@link #RATE_WINDOW} arrivals and the smaller half taken, so that a step
     * in the rate (old gaps and new ones in one window) does not read as burstiness: a step sits in
     * one half only, and the other half shows the load as it is. 0 before five arrivals.
     */
    public double arrivalVariation() {
        int gaps = (int) Math.min(arrivalCount, RATE_WINDOW) - 1;
        if (gaps < 4) {
            return 0;
        }
        int newer = gaps / 2 + gaps % 2;
        return Math.min(gapVariation(0, newer), gapVariation(newer, gaps - newer));
    }

    /** Coefficient of variation of {@code count} gaps per event, the newest {@code skip} gaps left out. */
    private double gapVariation(int skip, int count) {
        double sum = 0;
        double squares = 0;
        for (int k = skip + 1; k <= skip + count; k++) {
            int later = (int) ((arrivalCount - k) % RATE_WINDOW);
            int earlier = (int) ((arrivalCount - k - 1) % RATE_WINDOW);
            double gap = (double) (arrivals[later] - arrivals[earlier]) / (arrivedEvents[later] - arrivedEvents[earlier]);
            sum += gap;
            squares += gap * gap;
        }
        double mean = sum / count;
        if (!(mean > 0)) {
            return 0;
        }
        return Math.sqrt(Math.max(0, squares / count - mean * mean)) / mean;
    }

    private static double rate(long events, long spanNanos) {
        return spanNanos == 0 ? Double.POSITIVE_INFINITY : events / (spanNanos / 1e9);
    }

    public double eventBytes() {
        return meanEventBytes;
    }

    /**
     * The link as last fitted on the transfer path (at most {@value #REFIT_TRANSFERS} transfers old),
     * without refitting; null before two distinct sizes. For per-frame estimates, where a refit
     * would cost more than the frame.
     */
    public ThroughputCurve lastFittedLink() {
        return link;
    }

    /**
     * The link as measured by someone else: for a transport that cannot time its own transfers (an
     * engine's queue drained by the engine's I/O threads, where only the drain of the queue can be
     * sampled, see {@link DrainMeter}). It stands until the next {@link #onTransfer}, which refits
     * from transfers as usual; a transport uses one source or the other.
     */
    public void useLink(ThroughputCurve measured) {
        if (measured == null) {
            throw new IllegalArgumentException("no link");
        }
        link = measured;
        fittedAt = transfers;
    }

    /** The fitted link, or {@code fallback} while fewer than two distinct transfer sizes were seen. */
    public ThroughputCurve link(ThroughputCurve fallback) {
        if (fittedAt != transfers) {
            link = fittedLink();
            fittedAt = transfers;
        }
        return link == null ? fallback : link;
    }

    /** {tHe, tDe} fitted from encode samples (through the origin while one size was seen), or {@code fallback} before any. */
    public double[] encodeCost(double[] fallback) {
        int n = Math.min(encodes, encodeBytes.length);
        LineFit line = LineFit.of(encodeBytes, encodeSeconds, n);
        if (line == null) {
            // One batch size so far: all of the cost per byte is the best a single size can tell.
            return n == 0 ? fallback : new double[] {0, Math.max(0, LineFit.slopeThroughOrigin(encodeBytes, encodeSeconds, n))};
        }
        double perByte = Math.max(0, line.slope());
        double header = Math.max(0, line.intercept());
        return new double[] {header, perByte};
    }

    /** The context the oracle should decide on now, completing {@code base} with what was measured. */
    public StreamContext context(StreamContext base) {
        double rate = eventsPerSecond();
        double size = eventBytes();
        double[] encode = encodeCost(new double[] {base.encodeHeaderSeconds(), base.encodeSecondsPerByte()});
        return new StreamContext(
                Double.isFinite(rate) && rate > 0 ? rate : base.eventsPerSecond(),
                Double.isNaN(size) ? base.eventBytes() : size,
                encode[0], encode[1], base.decodeHeaderSeconds(), base.decodeSecondsPerByte(),
                base.transportOverheadBytes(), base.encodingOverheadBytes(), link(base.link()), base.cores(),
                base.maxEventDelaySeconds(), base.segmentBytes(), arrivalVariation());
    }

    /** How long until the link should be probed again (intrusiveness control). */
    public long nextProbeIntervalNanos() {
        return probeNanos;
    }

    private void adaptProbeInterval() {
        double deviation = Math.sqrt(residualSquares);
        if (deviation < LOW_VARIATION) {
            probeNanos = Math.min(maxProbeNanos, probeNanos * 2);
        } else if (deviation > HIGH_VARIATION) {
            probeNanos = Math.max(minProbeNanos, probeNanos / 2);
        }
    }
}
