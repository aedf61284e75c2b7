package io.jetstream.benchmarks.crosssiteflink;

import java.time.Duration;
import java.util.List;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;

/**
 * The seam between the benchmark's jobs and what carries their stream from one site to the other: the
 * sending job ends in {@link #sink}, the receiving job starts at {@link #source}. Records are
 * {@link Event}s in {@link Event}'s wire format ({@link Event.Schema}). {@link KafkaLink} is the chain users
 * run today (KafkaSink → Kafka → MirrorMaker 2 → Kafka → KafkaSource); a JetStream link is the other side.
 *
 * <p>A link is built in the job's main thread from its {@code --link key=value} options
 * ({@link CrossSiteLinks#create}), which it validates at construction with a message naming the key.
 * {@link #prepareSender}/{@link #prepareReceiver} run in that thread before the job is submitted;
 * {@link #sink}/{@link #source} return Flink's serializable connector objects.
 */
public interface CrossSiteLink {
    /** What {@code --via} names this link. */
    String name();

    /** The sending job's sink: records given to it travel to the receiving site with {@code guarantee}. */
    Sink<Event> sink(Guarantee guarantee);

    /**
     * The sinks the sending job ends in, each given every record: {@link #sink} alone by default; a link to several
     * sites may instead give one sink per site.
     */
    default List<Sink<Event>> sinks(Guarantee guarantee) {
        return List.of(sink(guarantee));
    }

    /** The receiving job's source of what the sending job's sink took, with {@code guarantee}. */
    Source<Event, ?, ?> source(Guarantee guarantee);

    /** Before the sending job is submitted (say, create the topic it writes); default nothing. */
    default void prepareSender(Guarantee guarantee) throws Exception {
    }

    /**
     * Before the receiving job is submitted, waiting at most {@code timeout} for what its source needs
     * (say, the mirrored topic to exist); default nothing.
     */
    default void prepareReceiver(Guarantee guarantee, Duration timeout) throws Exception {
    }
}
