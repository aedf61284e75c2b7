package io.jetstream.benchmarks.model;

/**
 * The model-validation harness's own framing on one TCP connection (not JetStream's wire protocol,
 * which is issue 5's): the sender writes frames, the receiver answers each with a fixed-size reply.
 * Both ends run on one machine, so {@link System#nanoTime()} is one clock for both (network
 * namespaces do not change CLOCK_MONOTONIC) and one-way times are measured directly.
 *
 * <pre>
 *   frame   = int length (bytes after this field) | long writeStartNanos | int count | body
 *   count   &gt; 0: count records of  int length | long eventNanos | payload (length − 8 bytes)
 *   count   = 0: a link probe, body = padding
 *   count   = BEGIN / END: start / stop the receiver's statistics (END is answered with STATS)
 *   reply   = 6 longs: kind | 5 values (see ACK and STATS; unused ones 0)
 * </pre>
 */
final class ModelFrames {
    private ModelFrames() {}

    static final int FRAME_HEADER = 4 + 8 + 4;
    static final int RECORD_HEADER = 4 + 8;
    static final int BEGIN = -1;
    static final int END = -2;
    static final int REPLY_BYTES = 6 * 8;
    /** The receiver writes its pending replies once this long has passed since its last write (checked per frame). */
    static final long REPLY_INTERVAL_NANOS = 1_000_000;
    /** Replies the receiver holds at most before it writes them. */
    static final int REPLIES_PER_WRITE = 64;
    /** Frames per run whose transfer times the receiver keeps for the trimmed mean. */
    static final int TRIMMED_FRAMES = 1 << 20;
    /** Share left out at each end of the trimmed mean: the monitor's ({@code StreamMonitor.TRIMMED_SHARE}). */
    static final double TRIMMED_SHARE = 0.2;
    /** Largest frame either end accepts (the receiver refuses longer lengths before reading). */
    static final int MAX_FRAME = 16 << 20;

    /**
     * Reply to a data or probe frame: wire bytes, service ns (from max(write start, previous frame's
     * arrival) to last byte read), decode ns, records, sojourn ns (from write start to last byte read).
     */
    static final long ACK = 1;
    /**
     * Reply to END: events, Σ event latency ns (event time to decoded), Σ transfer ns per event,
     * Σ decode ns per batch, trimmed mean transfer ns per frame ({@link #TRIMMED_SHARE} left out at
     * each end, over the first {@link #TRIMMED_FRAMES} frames).
     */
    static final long STATS = 2;
}
