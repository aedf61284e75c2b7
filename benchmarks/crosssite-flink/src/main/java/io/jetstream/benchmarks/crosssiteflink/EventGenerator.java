package io.jetstream.benchmarks.crosssiteflink;

import java.util.Random;
import java.util.concurrent.atomic.LongAdder;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.datagen.source.GeneratorFunction;

/**
 * The sending job's records: {@link Event}s of {@code recordBytes} on the link, whose sequence is the
 * data generator's index (unique across the job's subtasks and restored with its splits, so a restored
 * sending job renumbers nothing), whose sender is the generating subtask, stamped with {@link EpochClock}
 * when generated (under a rate limit, when it was due to be sent). The payload is one random array per
 * subtask, shared by its events (never written after {@link #open}).
 *
 * <p>Threading contract: one instance per source subtask, called by its task thread; {@link #GENERATED}
 * counts across the JVM's subtasks (read by the job's main thread for its report).
 */
public final class EventGenerator implements GeneratorFunction<Long, Event> {
    private static final long serialVersionUID = 1L;
    /** Events generated in this JVM (the job runs on a MiniCluster in it). */
    static final LongAdder GENERATED = new LongAdder();

    private final int recordBytes;
    private transient int subtask;
    private transient byte[] payload;

    public EventGenerator(int recordBytes) {
        if (recordBytes < Event.HEADER_BYTES) {
            throw new IllegalArgumentException("record bytes " + recordBytes + ": at least " + Event.HEADER_BYTES + " (the header)");
        }
        this.recordBytes = recordBytes;
    }

    @Override
    public void open(SourceReaderContext readerContext) {
        subtask = readerContext.getIndexOfSubtask();
        payload = new byte[recordBytes - Event.HEADER_BYTES];
        new Random(subtask).nextBytes(payload);
    }

    @Override
    public Event map(Long index) {
        GENERATED.increment();
        return new Event(subtask, index, EpochClock.nanos(), payload);
    }
}
