package io.jetstream.core.model;

/**
 * Link throughput as a function of the bytes sent at once, thr(B) (JetStream §3.3): small sends
 * cannot reach the link's stable throughput. JetStream models it as the stable throughput (the
 * amplitude) times a curve fitted from measured samples. We fit the curve from the transfer time,
 * so that {@code thr(B) = B / T(B)} rises monotonically and saturates at the stable throughput — a
 * shape that, unlike a free polynomial, never extrapolates above the link or below zero:
 *
 * <pre>
 *   T(B) = latency + max(0, B − burst) / stable
 * </pre>
 *
 * With {@code burst = 0} this is the affine time of a plain link (a fixed cost per send, then the
 * bandwidth). A shaped link — a token bucket, as Linux's {@code tc tbf} or a cloud instance's
 * network allowance — lets a send of up to {@code burst} bytes through at line rate while tokens
 * last, and only the rest at the token rate: measured on a 100 Mbit/s, 4 KiB bucket, an 812-byte
 * frame took 15–25 µs where the affine fit said 70 µs. The burst does not raise what the link
 * carries in the long run, so a route stays busy at least {@code B / stable} per send
 * ({@link #occupancySeconds}).
 *
 * <p>Immutable.
 *
 * @param latencySeconds fixed cost of one send (α): round trip, syscalls, protocol handshakes
 * @param stableBytesPerSecond the throughput large sends reach and no stream exceeds (β, the amplitude)
 * @param burstBytes bytes of a send that pass at line rate when the link has been idle (a token
 *     bucket's depth; 0 for a plain link)
 */
public record ThroughputCurve(double latencySeconds, double stableBytesPerSecond, double burstBytes) {
    /**
     * A breakpoint replaces the affine fit only when it cuts the summed squared relative residuals
     * to this share or less: a real bucket cuts them by orders of magnitude, noise by little.
     */
    static final double BURST_FIT_GAIN = 0.25;

    public ThroughputCurve {
        if (!(latencySeconds >= 0) || !(stableBytesPerSecond > 0) || Double.isInfinite(stableBytesPerSecond)
                || !(burstBytes >= 0) || Double.isInfinite(burstBytes)) {
            throw new IllegalArgumentException("invalid curve: latency " + latencySeconds + " s, stable "
                    + stableBytesPerSecond + " B/s, burst " + burstBytes + " B");
        }
    }

    /** A plain link: {@code T(B) = latency + B / stable}. */
    public ThroughputCurve(double latencySeconds, double stableBytesPerSecond) {
        this(latencySeconds, stableBytesPerSecond, 0);
    }

    /** Seconds to send {@code bytes} at once on an idle link. */
    public double transferSeconds(double bytes) {
        return latencySeconds + Math.max(0, bytes - burstBytes) / stableBytesPerSecond;
    }

    /**
     * Seconds a route is busy with each send of {@code bytes} in a steady stream: its transfer
     * time, and never less than the stable throughput allows (a burst allowance spent is refilled
     * only at that rate).
     */
    public double occupancySeconds(double bytes) {
        return Math.max(transferSeconds(bytes), bytes / stableBytesPerSecond);
    }

    /**
     * Seconds of backlog a route can hold in front of a send of {@code bytes} without delaying it:
     * the tokens a full bucket keeps after the send, at the stable rate ({@code max(0, burst − bytes) / β});
     * 0 on a plain link and for sends as deep as the bucket.
     */
    public double slackSeconds(double bytes) {
        return Math.max(0, burstBytes - bytes) / stableBytesPerSecond;
    }

    /** Throughput reached when sending {@code bytes} at once. */
    public double bytesPerSecond(double bytes) {
        return bytes <= 0 ? 0 : bytes / transferSeconds(bytes);
    }

    /**
     * Fits the curve to measured (bytes, seconds) samples. First the affine time by least squares
     * (a negative intercept, noise, is clamped to 0 and the slope refitted through the origin; a
     * time that does not grow with size gives the mean time as latency and the fastest observed
     * throughput as the stable one). Then, for every split of the sizes into a first group (one or
     * more sizes inside the burst, whose mean time is the latency) and the rest (two or more sizes
     * on a line whose slope is 1/stable), the burst is where that line meets the latency, kept
     * between the two groups' sizes, and the curve is refitted by least squares of the time on
     * {@code max(0, B − burst)}. The burst whose fit has the smallest sum of squared relative
     * residuals replaces the affine fit if that sum is at most {@value #BURST_FIT_GAIN} of the
     * affine one's — relative, because the small sends a bucket favours are the ones an absolute
     * fit ignores. A bucket found, its depth is then the deepest any sample implies
     * ({@link #withDeepestBurst}).
     *
     * @throws IllegalArgumentException with fewer than two samples or two distinct sizes
     */
    public static ThroughputCurve fit(double[] bytes, double[] seconds, int count) {
        return fit(bytes, seconds, null, count);
    }

    /**
     * As {@link #fit(double[], double[], int)}, each sample weighted in every sum of squares and
     * every mean by {@code weights[i]}: how many measurements the sample's time stands for. A size
     * measured once then moves the fit as one measurement does, not as much as a size measured
     * fifteen times (measured on tbf: the only 2,584-byte frame of a calibration took 155 µs where
     * the other small frames took 10–14 µs, and, unweighted, set the fitted latency to 60 µs).
     *
     * @param weights positive weights, or null for all 1
     * @throws IllegalArgumentException with fewer than two samples or two distinct sizes, or a weight
     *     that is not positive and finite
     */
    public static ThroughputCurve fit(double[] bytes, double[] seconds, double[] weights, int count) {
        if (count < 0 || count > bytes.length || count > seconds.length || (weights != null && count > weights.length)) {
            throw new IllegalArgumentException("count " + count + " outside the samples");
        }
        for (int i = 0; weights != null && i < count; i++) {
            if (!(weights[i] > 0) || Double.isInfinite(weights[i])) {
                throw new IllegalArgumentException("weight " + weights[i] + " of sample " + i + " is not positive and finite");
            }
        }
        Integer[] order = new Integer[count];
        for (int i = 0; i < count; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(order, (x, y) -> Double.compare(bytes[x], bytes[y]));
        double[] sortedBytes = new double[count];
        double[] sortedSeconds = new double[count];
        double[] sortedWeights = new double[count];
        for (int i = 0; i < count; i++) {
            sortedBytes[i] = bytes[order[i]];
            sortedSeconds[i] = seconds[order[i]];
            sortedWeights[i] = weights == null ? 1 : weights[order[i]];
        }
        return fitSorted(sortedBytes, sortedSeconds, sortedWeights, count, new double[count]);
    }

    /**
     * As {@link #fit(double[], double[], double[], int)} for samples in ascending order of size, with
     * positive weights and a scratch array of at least {@code count}: the monitor's allocation-free refits.
     */
    static ThroughputCurve fitSorted(double[] bytes, double[] seconds, double[] weights, int count, double[] excess) {
        ThroughputCurve affine = fitAffine(bytes, seconds, weights, count);
        ThroughputCurve best = affine;
        double bestScore = BURST_FIT_GAIN * affine.relativeSquares(bytes, seconds, weights, count);
        // Split the sizes into the first j (inside the burst: their mean time is the latency) and
        // the rest (at least two sizes: a line whose slope is 1/stable); the burst is where that
        // line meets the latency, kept between the two groups' sizes.
        for (int j = 1; j <= count - 2; j++) {
            if (!(bytes[j - 1] < bytes[j])) {
                continue;
            }
            double latency = 0;
            double weight = 0;
            for (int i = 0; i < j; i++) {
                latency += weights[i] * seconds[i];
                weight += weights[i];
            }
            latency /= weight;
            LineFit above = LineFit.ofRange(bytes, seconds, weights, j, count);
            double burst = above == null || !(above.slope() > 0) ? Double.NaN : (latency - above.intercept()) / above.slope();
            burst = Double.isNaN(burst) ? bytes[j - 1] : Math.min(Math.max(burst, bytes[j - 1]), bytes[j]);
            if (burst <= bytes[0]) {
                continue; // at the smallest size the breakpoint is the affine line again
            }
            ThroughputCurve candidate = fitAbove(bytes, seconds, weights, count, burst, excess);
            if (candidate != null) {
                double score = candidate.relativeSquares(bytes, seconds, weights, count);
                if (score < bestScore) {
                    bestScore = score;
                    best = candidate;
                }
            }
        }
        return best.burstBytes() > 0 ? best.withDeepestBurst(bytes, seconds, count) : best;
    }

    /**
     * This curve with the deepest burst any sample above it implies, {@code B − (T − latency) · stable}
     * (at most B). Samples of one link see different amounts of a token bucket: a probe sent into a
     * stream, or soon after another probe, finds it partly spent, and the least-squares breakpoint
     * then lies between the depths the probes happened to find (on a 4 KiB bucket under 86 % load:
     * 2.6 KB, where a 4 KiB probe implied 3.9 KB and 16 KiB probes sent after it almost nothing).
     * A stream's own frames, with idle time between them, find the bucket full; the deepest burst
     * observed is the nearest to its depth, and the one that predicts them (measured: frames of
     * 4–8 KB over-predicted up to 6× with the breakpoint, within 20 % with the deepest burst).
     * Sustained throughput stays bounded by {@code stable} ({@link #occupancySeconds}).
     */
    private ThroughputCurve withDeepestBurst(double[] bytes, double[] seconds, int count) {
        double deepest = burstBytes;
        for (int i = 0; i < count; i++) {
            if (bytes[i] > burstBytes) {
                double implied = bytes[i] - (seconds[i] - latencySeconds) * stableBytesPerSecond;
                deepest = Math.max(deepest, Math.min(bytes[i], implied));
            }
        }
        return deepest < burstBytes + 1 ? this : new ThroughputCurve(latencySeconds, stableBytesPerSecond, deepest); // a byte: rounding
    }

    /** Least squares of the time on {@code max(0, B − burst)}, or null without a positive rate and latency. */
    private static ThroughputCurve fitAbove(double[] bytes, double[] seconds, double[] weights, int count, double burst,
            double[] excess) {
        for (int i = 0; i < count; i++) {
            excess[i] = Math.max(0, bytes[i] - burst);
        }
        LineFit line = LineFit.ofRange(excess, seconds, weights, 0, count);
        if (line == null || !(line.slope() > 0) || line.intercept() < 0) {
            return null;
        }
        return new ThroughputCurve(line.intercept(), 1 / line.slope(), burst);
    }

    private double relativeSquares(double[] bytes, double[] seconds, double[] weights, int count) {
        double sum = 0;
        for (int i = 0; i < count; i++) {
            double r = transferSeconds(bytes[i]) / seconds[i] - 1;
            sum += weights[i] * r * r;
        }
        return sum;
    }

    private static ThroughputCurve fitAffine(double[] bytes, double[] seconds, double[] weights, int count) {
        if (count < 2) {
            throw new IllegalArgumentException("need at least 2 samples, got " + count);
        }
        LineFit line = LineFit.ofRange(bytes, seconds, weights, 0, count);
        if (line == null) {
            throw new IllegalArgumentException("samples need at least two distinct sizes");
        }
        double intercept = line.intercept();
        double slope = line.slope();
        if (intercept < 0) {
            intercept = 0;
            slope = LineFit.slopeThroughOrigin(bytes, seconds, weights, count);
        }
        if (!(slope > 0)) {
            // Within the noise, time does not grow with size (a link much faster than the sizes
            // probed, such as loopback): the mean time is the per-send latency, and the fastest
            // throughput observed is a lower bound of the stable one.
            double sum = 0;
            double weight = 0;
            double fastest = 0;
            for (int i = 0; i < count; i++) {
                sum += weights[i] * seconds[i];
                weight += weights[i];
                fastest = Math.max(fastest, bytes[i] / seconds[i]);
            }
            return new ThroughputCurve(sum / weight, fastest);
        }
        return new ThroughputCurve(intercept, 1 / slope);
    }
}
