package io.jetstream.benchmarks.crosssiteflink;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * What the receiving job got: every event's end-to-end latency (receive time − the send time it carries,
 * both {@link EpochClock}) into an HdrHistogram {@link Recorder} in microseconds (3 significant digits),
 * events and bytes counted, each sender's sequences in a {@link SequenceTracker} (duplicates and gaps).
 * One per JVM ({@link #INSTANCE}): the receiving job runs on a MiniCluster in this JVM and its
 * {@link MeasuringSink} (parallelism 1) writes here.
 *
 * <p>Threading contract: {@link #record} from one thread at a time (the measuring sink's task thread):
 * no allocation but a tracker's new chunk. {@link #sample} from one reporting thread; {@link #senders}
 * after the job stopped. Counters are volatile, written by the recording thread only.
 */
public final class ReceiveAccount {
    /** The JVM's account. */
    public static final ReceiveAccount INSTANCE = new ReceiveAccount();
    static final long HIGHEST_MICROS = 3_600_000_000L;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Recorder latency = new Recorder(HIGHEST_MICROS, 3);
    private final Map<Integer, SequenceTracker> senders = new TreeMap<>();
    private volatile long received;
    private volatile long distinct;
    private volatile long duplicated;
    private volatile long bytes;
    private volatile long firstArrivalNanos;
    private volatile long lastArrivalNanos;
    private int lastSender = Integer.MIN_VALUE;
    private SequenceTracker lastTracker;

    ReceiveAccount() {
    }

    /** Accounts for {@code e}, which arrived at {@code nowNanos} ({@link EpochClock}). */
    public void record(Event e, long nowNanos) {
        SequenceTracker t;
        if (e.sender == lastSender) {
            t = lastTracker;
        } else {
            t = senders.computeIfAbsent(e.sender, s -> new SequenceTracker());
            lastSender = e.sender;
            lastTracker = t;
        }
        if (t.mark(e.sequence)) {
            distinct = distinct + 1;
        } else {
            duplicated = duplicated + 1;
        }
        received = received + 1;
        bytes = bytes + e.encodedBytes();
        latency.recordValue(Math.min(HIGHEST_MICROS, Math.max(0, (nowNanos - e.sendTimeNanos) / 1000)));
        if (firstArrivalNanos == 0) {
            firstArrivalNanos = nowNanos;
        }
        lastArrivalNanos = nowNanos;
    }

    public long received() {
        return received;
    }

    public long distinct() {
        return distinct;
    }

    public long duplicated() {
        return duplicated;
    }

    public long bytes() {
        return bytes;
    }

    /** When the first event arrived ({@link EpochClock}), or 0. */
    public long firstArrivalNanos() {
        return firstArrivalNanos;
    }

    /** When the latest event arrived ({@link EpochClock}), or 0. */
    public long lastArrivalNanos() {
        return lastArrivalNanos;
    }

    /** The latencies recorded since the previous call (µs). */
    public Histogram sample(Histogram recycle) {
        return latency.getIntervalHistogram(recycle);
    }

    /** Each sender's tracker, by sender; read after the job stopped. */
    public Map<Integer, SequenceTracker> senders() {
        return senders;
    }

    /** The senders as JSON: sender, distinct, duplicated, lowest, highest, gaps. */
    public ArrayNode sendersJson() {
        ArrayNode a = JSON.createArrayNode();
        senders.forEach((s, t) -> {
            ObjectNode n = a.addObject();
            n.put("sender", s);
            n.put("distinct", t.distinct());
            n.put("duplicated", t.duplicated());
            n.put("lowest", t.lowest());
            n.put("highest", t.highest());
            n.put("gaps", t.gaps());
        });
        return a;
    }

    /**
     * How many of the sequences {@code [0, expected)} did not arrive (a sending job that generated exactly
     * {@code expected} events numbers them so, whatever its parallelism).
     */
    public long missingOf(long expected) {
        long missing = 0;
        for (long s = 0; s < expected; s++) {
            boolean found = false;
            for (SequenceTracker t : senders.values()) {
                if (t.contains(s)) {
                    found = true;
                    break;
                }
            }
            if (!found) {
                missing++;
            }
        }
        return missing;
    }
}
