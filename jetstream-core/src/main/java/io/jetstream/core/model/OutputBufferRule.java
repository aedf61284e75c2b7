package io.jetstream.core.model;

/**
 * Nephele's adaptive output buffer sizing (§3.5.1). With obl the average output buffer latency of a
 * channel (half the buffer lifetime) in milliseconds:
 *
 * <pre>
 *   obl > threshold and obl > source task latency:  obs* = max(ε, obs · r^obl)     (2)
 *   obl ≈ 0:                                         obs* = min(ω, s · obs)          (3)
 * </pre>
 *
 * with the paper's defaults r = 0.98, s = 1.1, ε = 200 bytes, threshold 5 ms.
 *
 * @param thresholdMillis minimum output buffer latency worth shrinking for
 * @param shrinkBase r, 0 &lt; r &lt; 1
 * @param growFactor s &gt; 1
 * @param minBytes ε
 * @param maxBytes ω
 * @param zeroMillis below this the output buffer latency counts as ≈ 0
 */
public record OutputBufferRule(double thresholdMillis, double shrinkBase, double growFactor, int minBytes, int maxBytes,
        double zeroMillis) {
    public OutputBufferRule {
        if (!(shrinkBase > 0 && shrinkBase < 1) || !(growFactor > 1) || minBytes < 1 || maxBytes < minBytes
                || thresholdMillis < 0 || zeroMillis < 0) {
            throw new IllegalArgumentException("invalid output buffer rule");
        }
    }

    /**
     * The paper's defaults, with ω = {@code maxBytes} and "≈ 0" read as under a tenth of the 5 ms
     * threshold: at high rates a buffer that fills in a fraction of a millisecond is still too small
     * to carry the load, and a stricter "≈ 0" stops the growth before it can.
     */
    public static OutputBufferRule nephele(int maxBytes) {
        return new OutputBufferRule(5, 0.98, 1.1, 200, maxBytes, 0.5);
    }

    /** The new size, or {@code currentBytes} when neither rule applies. */
    public int resize(int currentBytes, double outputBufferLatencyMillis, double sourceTaskLatencyMillis) {
        double obl = outputBufferLatencyMillis;
        if (obl > thresholdMillis && obl > sourceTaskLatencyMillis) {
            return (int) Math.max(minBytes, Math.floor(currentBytes * Math.pow(shrinkBase, obl)));
        }
        if (obl < zeroMillis) {
            return (int) Math.min(maxBytes, Math.ceil(currentBytes * growFactor));
        }
        return currentBytes;
    }
}
