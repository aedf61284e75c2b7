package io.jetstream.core.api;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counts records, bytes and batches that crossed one JetStream component (a Flink writer or gate,
 * a Storm connection). Adapters bind it to the engine's metric system as gauges.
 *
 * <p>Thread-safe; {@link #onRecord(long)} and {@link #onBatch(int, long)} allocate nothing after
 * warm-up and may be called from any number of threads (Storm's receive path has several Netty
 * threads per server). Reads are not atomic across counters.
 */
public final class TrafficMeter {
    private final String name;
    private final LongAdder records = new LongAdder();
    private final LongAdder bytes = new LongAdder();
    private final LongAdder batches = new LongAdder();

    public TrafficMeter(String name) {
        this.name = name;
    }

    /** One record of {@code byteCount} bytes. */
    public void onRecord(long byteCount) {
        records.increment();
        bytes.add(byteCount);
    }

    /** One batch carrying {@code recordCount} records and {@code byteCount} bytes in all. */
    public void onBatch(int recordCount, long byteCount) {
        batches.increment();
        records.add(recordCount);
        bytes.add(byteCount);
    }

    public String name() {
        return name;
    }

    public long records() {
        return records.sum();
    }

    public long bytes() {
        return bytes.sum();
    }

    public long batches() {
        return batches.sum();
    }

    @Override
    public String toString() {
        return name + "{records=" + records() + ", bytes=" + bytes() + ", batches=" + batches() + '}';
    }
}
