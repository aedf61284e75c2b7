package io.jetstream.flink.crosssite;

import io.jetstream.core.api.LandedRecordHandler;
import io.jetstream.core.api.LandingSubscriber;
import io.jetstream.core.api.Transport;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.DirectBuffer;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.util.UserCodeClassLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads its splits (landed streams) from the landing with a {@link LandingSubscriber}: the handler
 * copies each pushed record into a bounded queue (when full it waits, which pushes back on the landing;
 * never after {@link #close}); {@link #pollNext} deserializes and emits, tracking each split's next
 * ordinal. A checkpoint's positions are released at the landing once the checkpoint completes, so a
 * job restored from it (or, within {@code landing.retention-ms}, from an older one) reads on from there.
 *
 * <p>Threading contract: Flink's task thread calls the {@link SourceReader} methods; the handler runs
 * on the transport's I/O threads and shares only the queue, the availability future, the failure and
 * the per-stream heads (all thread-safe). One record's bytes are copied once (a {@code byte[]} per
 * record, which the deserialization schema needs anyway).
 */
final class CrossSiteReader<OUT> implements SourceReader<OUT, LandedStreamSplit>, LandedRecordHandler {
    private static final Logger LOG = LoggerFactory.getLogger(CrossSiteReader.class);
    private static final long OFFER_SLICE_MILLIS = 50;

    /** One record between the handler and the task thread. */
    private record Landed(String stream, long ordinal, long sentMillis, byte[] bytes) {}

    /** Where a landed stream stands at the landing (its last head report). */
    private static final class Head {
        volatile long landed;
        volatile long released;
        volatile long oldestUnreleasedMillis;
        /** Payload bytes landed after what the landing pushed here; -1 while the landing does not know yet. */
        volatile long bytesBehindPush;
    }

    private final CrossSiteSettings settings;
    private final DeserializationSchema<OUT> schema;
    private final SourceReaderContext context;
    private final ArrayBlockingQueue<Landed> queue;
    /** Payload bytes of the records in {@link #queue}. */
    private final AtomicLong queuedBytes = new AtomicLong();
    private final Map<String, Long> positions = new ConcurrentHashMap<>();
    private final Map<String, Head> heads = new ConcurrentHashMap<>();
    private final NavigableMap<Long, Map<String, Long>> checkpointed = new TreeMap<>();
    private volatile CompletableFuture<Void> available = new CompletableFuture<>();
    private volatile IOException failure;
    private volatile boolean closed;
    private volatile long lastLatencyMillis = -1;
    private Transport transport;
    /** Set by {@link #start}; splits added before it (restored ones) are subscribed there. */
    private volatile LandingSubscriber subscriber;

    CrossSiteReader(CrossSiteSettings settings, DeserializationSchema<OUT> schema, SourceReaderContext context) {
        this.settings = settings;
        this.schema = schema;
        this.context = context;
        this.queue = new ArrayBlockingQueue<>(settings.readerQueueRecords());
    }

    @Override
    public void start() {
        SourceReaderMetricGroup metrics = context.metricGroup();
        try {
            schema.open(new DeserializationSchema.InitializationContext() {
                @Override
                public MetricGroup getMetricGroup() {
                    return metrics.addGroup("deserializer");
                }

                @Override
                public UserCodeClassLoader getUserCodeClassLoader() {
                    return context.getUserCodeClassLoader();
                }
            });
        } catch (Exception e) {
            throw new IllegalStateException("CrossSiteSource from " + settings.where() + ": the deserialization schema did not open", e);
        }
        String name = settings.streamName() + "-reader-" + context.getIndexOfSubtask() + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE));
        transport = Transport.start(settings.transport(), name);
        try {
            subscriber = LandingSubscriber.open(transport, settings.directRoute(), name, this, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            transport.close();
            throw new IllegalStateException("CrossSiteSource from " + settings.where() + ": interrupted while opening", e);
        }
        // Splits restored from a checkpoint arrive before start().
        positions.forEach(subscriber::subscribe);
        metrics.setPendingRecordsGauge(this::recordsBehind);
        metrics.gauge("recordsBehind", this::recordsBehind);
        metrics.gauge("bytesBehind", this::bytesBehind);
        metrics.gauge("unreleasedRecords", this::unreleasedRecords);
        metrics.gauge("oldestUnreleasedAgeMillis", this::oldestUnreleasedAgeMillis);
        metrics.gauge("replicationLatencyMillis", () -> lastLatencyMillis);
        metrics.gauge("queuedRecords", queue::size);
    }

    @Override
    public InputStatus pollNext(ReaderOutput<OUT> output) throws Exception {
        IOException failed = failure;
        if (failed != null) {
            throw failed;
        }
        Landed record = queue.poll();
        if (record == null) {
            return InputStatus.NOTHING_AVAILABLE;
        }
        queuedBytes.addAndGet(-record.bytes().length);
        Long next = positions.get(record.stream());
        if (next != null && record.ordinal() >= next) {
            OUT value = schema.deserialize(record.bytes());
            if (value != null) {
                output.collect(value);
            }
            positions.put(record.stream(), record.ordinal() + 1);
            lastLatencyMillis = Math.max(0, System.currentTimeMillis() - record.sentMillis());
        }
        return queue.isEmpty() ? InputStatus.NOTHING_AVAILABLE : InputStatus.MORE_AVAILABLE;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        CompletableFuture<Void> f = available;
        if (f.isDone()) {
            f = new CompletableFuture<>();
            available = f;
        }
        if (!queue.isEmpty() || failure != null) {
            f.complete(null);
        }
        return f;
    }

    @Override
    public void addSplits(List<LandedStreamSplit> splits) {
        for (LandedStreamSplit split : splits) {
            LOG.info("CrossSiteSource from {}: reading landed stream {} from record {}", settings.where(), split.stream(),
                    split.nextOrdinal());
            positions.put(split.stream(), split.nextOrdinal());
            heads.putIfAbsent(split.stream(), new Head());
            if (subscriber != null) {
                subscriber.subscribe(split.stream(), split.nextOrdinal());
            }
        }
    }

    @Override
    public void notifyNoMoreSplits() {
        // The stream is unbounded: more landed streams may come.
    }

    @Override
    public List<LandedStreamSplit> snapshotState(long checkpointId) {
        List<LandedStreamSplit> splits = new ArrayList<>(positions.size());
        Map<String, Long> at = new HashMap<>(positions);
        at.forEach((stream, next) -> splits.add(new LandedStreamSplit(stream, next)));
        checkpointed.put(checkpointId, at);
        return splits;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        Map<String, Long> at = checkpointed.get(checkpointId);
        if (at != null) {
            at.forEach(subscriber::release);
        }
        checkpointed.headMap(checkpointId, true).clear();
    }

    // ---- LandedRecordHandler: the transport's I/O threads ----

    @Override
    public void onRecord(String stream, long ordinal, long sentMillis, DirectBuffer buffer, int offset, int length) {
        byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        Landed record = new Landed(stream, ordinal, sentMillis, bytes);
        queuedBytes.addAndGet(length);
        try {
            while (!queue.offer(record, OFFER_SLICE_MILLIS, TimeUnit.MILLISECONDS)) {
                if (closed) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        available.complete(null);
    }

    @Override
    public void onHead(String stream, long landed, long released, long oldestUnreleasedMillis, long bytesBehind) {
        Head head = heads.computeIfAbsent(stream, k -> new Head());
        head.landed = landed;
        head.released = released;
        head.oldestUnreleasedMillis = oldestUnreleasedMillis;
        head.bytesBehindPush = bytesBehind;
    }

    @Override
    public void onRefused(String stream, String reason) {
        failure = new IOException("CrossSiteSource from " + settings.where() + ": the landing " + settings.landingAddress()
                + " refused landed stream " + stream + ": " + reason);
        available.complete(null);
    }

    // ---- metrics ----

    private long recordsBehind() {
        long behind = 0;
        for (Map.Entry<String, Long> e : positions.entrySet()) {
            Head head = heads.get(e.getKey());
            if (head != null) {
                behind += Math.max(0, head.landed - e.getValue());
            }
        }
        return behind;
    }

    /** Payload bytes landed and not yet emitted here: what the landing has not pushed, and what waits in the queue. */
    private long bytesBehind() {
        long behind = queuedBytes.get();
        for (String stream : positions.keySet()) {
            Head head = heads.get(stream);
            if (head != null && head.bytesBehindPush > 0) {
                behind += head.bytesBehindPush;
            }
        }
        return behind;
    }

    private long unreleasedRecords() {
        long unreleased = 0;
        for (Head head : heads.values()) {
            unreleased += Math.max(0, head.landed - head.released);
        }
        return unreleased;
    }

    private long oldestUnreleasedAgeMillis() {
        long oldest = Long.MAX_VALUE;
        for (Head head : heads.values()) {
            long t = head.oldestUnreleasedMillis;
            if (t > 0) {
                oldest = Math.min(oldest, t);
            }
        }
        return oldest == Long.MAX_VALUE ? 0 : Math.max(0, System.currentTimeMillis() - oldest);
    }

    @Override
    public void close() {
        closed = true;
        try {
            if (subscriber != null) {
                subscriber.close();
            }
        } finally {
            if (transport != null) {
                transport.close();
            }
        }
    }
}
