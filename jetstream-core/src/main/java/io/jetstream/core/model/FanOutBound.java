package io.jetstream.core.model;

/**
 * Atmosphere's bound on how many direct connections a publisher keeps to other sites (Atmosphere §3.4):
 *
 * <pre>
 *   K_p = min(1 / U_p, W_p / (r_p × s_p))
 * </pre>
 *
 * <p>{@code U_p} is the publisher's CPU utilisation per direct connection (every message is sent again
 * on each connection, so its processing is taken as proportional to their number), {@code W_p} its
 * bandwidth quota towards remote sites, {@code r_p × s_p} the bytes per second of one copy of its stream
 * (message rate × message size, framing included). Here the CPU term is {@code cpuTarget / U_p}: the
 * share of the publisher's CPU budget the connections may use ({@code 1} is the paper's bound). The
 * bound is re-evaluated as the publisher measures: each {@link #sample} folds its CPU utilisation and
 * its stream's rate into exponentially weighted averages over {@code smoothingNanos} of the injected
 * clock, so a doubled rate halves the bandwidth term within a few time constants and a burst does not.
 * Destinations beyond the bound are reached through replicating relays.
 *
 * <p>Not thread-safe: one thread samples and reads. No wall clock: time is what {@link #sample} is given.
 */
public final class FanOutBound {
    /** The bound when nothing limits it (no CPU measured yet, no stream yet): connections are not counted past it. */
    public static final int UNBOUNDED = 1 << 16;

    private final double bandwidthQuotaBytesPerSecond;
    private final double cpuTarget;
    private final double smoothingNanos;
    private boolean sampled;
    private long lastNanos;
    private double cpuPerConnection = Double.NaN;
    private double copyBytesPerSecond = Double.NaN;

    /**
     * @param bandwidthQuotaBytesPerSecond {@code W_p}: outbound bytes per second the publisher may send to other sites
     * @param cpuTarget share of the publisher's CPU budget its connections may use, in (0, 1]
     * @param smoothingNanos time constant of the averages (0: the last sample alone)
     */
    public FanOutBound(double bandwidthQuotaBytesPerSecond, double cpuTarget, long smoothingNanos) {
        if (!(bandwidthQuotaBytesPerSecond > 0) || !(cpuTarget > 0 && cpuTarget <= 1) || smoothingNanos < 0) {
            throw new IllegalArgumentException("fan-out bound: quota " + bandwidthQuotaBytesPerSecond + " B/s, CPU target "
                    + cpuTarget + ", smoothing " + smoothingNanos + " ns");
        }
        this.bandwidthQuotaBytesPerSecond = bandwidthQuotaBytesPerSecond;
        this.cpuTarget = cpuTarget;
        this.smoothingNanos = smoothingNanos;
    }

    /**
     * One measurement.
     *
     * @param cpuUtilisation the publisher's CPU use over the last period, as a share of its budget ([0, 1]; above 1 is
     *     taken as 1)
     * @param directConnections the direct connections it kept over that period (CPU per connection is measured only
     *     while there is one)
     * @param messagesPerSecond {@code r_p}
     * @param bytesPerMessage {@code s_p}, framing included
     */
    public void sample(long nowNanos, double cpuUtilisation, int directConnections, double messagesPerSecond,
            double bytesPerMessage) {
        if (!(cpuUtilisation >= 0) || directConnections < 0 || !(messagesPerSecond >= 0) || !(bytesPerMessage >= 0)
                || Double.isInfinite(messagesPerSecond) || Double.isInfinite(bytesPerMessage)) {
            throw new IllegalArgumentException("fan-out sample: CPU " + cpuUtilisation + ", " + directConnections
                    + " connections, " + messagesPerSecond + " msg/s of " + bytesPerMessage + " B");
        }
        double weight = !sampled || smoothingNanos == 0 ? 1 : 1 - Math.exp(-Math.max(0, nowNanos - lastNanos) / smoothingNanos);
        sampled = true;
        lastNanos = nowNanos;
        copyBytesPerSecond = fold(copyBytesPerSecond, messagesPerSecond * bytesPerMessage, weight);
        if (directConnections > 0) {
            cpuPerConnection = fold(cpuPerConnection, Math.min(1, cpuUtilisation) / directConnections, weight);
        }
    }

    private static double fold(double average, double value, double weight) {
        return Double.isNaN(average) ? value : average + weight * (value - average);
    }

    /** {@code K_p}: at least 1 (a publisher always reaches one site directly), at most {@link #UNBOUNDED}. */
    public int bound() {
        double k = Math.min(cpuBound(), bandwidthBound());
        return (int) Math.max(1, Math.min(UNBOUNDED, Math.floor(k)));
    }

    /** {@code cpuTarget / U_p}; infinite until a connection's CPU has been measured. */
    public double cpuBound() {
        return Double.isNaN(cpuPerConnection) || cpuPerConnection <= 0 ? Double.POSITIVE_INFINITY : cpuTarget / cpuPerConnection;
    }

    /** {@code W_p / (r_p × s_p)}; infinite while the stream carries nothing. */
    public double bandwidthBound() {
        return Double.isNaN(copyBytesPerSecond) || copyBytesPerSecond <= 0 ? Double.POSITIVE_INFINITY
                : bandwidthQuotaBytesPerSecond / copyBytesPerSecond;
    }

    /** The averaged CPU utilisation per direct connection ({@code U_p}); NaN until measured. */
    public double cpuPerConnection() {
        return cpuPerConnection;
    }

    /** The averaged bytes per second of one copy of the stream ({@code r_p × s_p}); NaN until sampled. */
    public double copyBytesPerSecond() {
        return copyBytesPerSecond;
    }
}
