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
 *   reply   = 6 longs: kind | 4 values (see ACK and STATS) | 0
 * </pre>
 */
final class ModelFrames {
    private ModelFrames() {}

    static final int FRAME_HEADER = 4 + 8 + 4;
    static final int RECORD_HEADER = 4 + 8;
    static final int BEGIN = -1;
    static final int END = -2;
    static final int REPLY_BYTES = 6 * 8;
    /** Largest frame either end accepts (the receiver refuses longer lengths before reading). */
    static final int MAX_FRAME = 16 << 20;

    /** Reply to a data or probe frame: wire bytes, service ns (from max(write start, previous frame's arrival) to last byte read), decode ns, records. */
    static final long ACK = 1;
    /** Reply to END: events, Σ event latency ns (event time to decoded), Σ transfer ns per event, Σ decode ns per batch. */
    static final long STATS = 2;
}
