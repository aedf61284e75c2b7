package io.jetstream.core.internal.landing;

import io.jetstream.core.api.DeliveryHandler.DeliveredBatch;
import io.jetstream.core.api.LandedStreamStats;
import io.jetstream.core.api.LandingGuarantee;
import io.jetstream.core.api.LandingSettings;
import io.jetstream.core.api.StreamKey;
import io.jetstream.core.internal.transport.journal.JournalCorruptedException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.collections.LongArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One landed stream at a landing: its journal ({@link LandedLog}), which of its records are released
 * ({@link EpochLedger}), the last batch sequence of each sender incarnation (the transport's
 * {@code SequenceStore}, kept in the journal so that a restarted landing drops what a sender
 * replays), and how far its readers have released it.
 *
 * <p>Journal documents (little-endian): {@code BATCH} [1][transport epoch][sequence][attempt][first
 * ordinal][arrival millis][data bytes before][peer][stream id][count] then per record [type u8][length
 * i32][bytes]; {@code COMMIT} [2][attempt][epoch]; {@code SNAPSHOT} [3][landed][discarded][released-by-readers][data
 * bytes] then segments and sender incarnations (the first document of every generation); {@code TRIM}
 * [4][ordinal]; {@code DISCARD} [5][attempt][epoch kept up to]. A batch's document is written before
 * the batch is acknowledged; the ledger changes only after the write succeeded.
 *
 * <p>Thread-safe: every method takes the stream's monitor (the receiving I/O thread that delivers
 * its batches, the committers' threads, and the landing's push thread).
 */
final class LandedStream implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LandedStream.class);
    static final byte DOC_BATCH = 1;
    static final byte DOC_COMMIT = 2;
    static final byte DOC_SNAPSHOT = 3;
    static final byte DOC_TRIM = 4;
    static final byte DOC_DISCARD = 5;
    /** Offset of a BATCH document's first record after its variable header: see {@link #batchRecordsOffset}. */
    static final int BATCH_FIXED = 1 + 6 * Long.BYTES;
    /** Offset of a BATCH document's "data bytes before": the payload bytes of the stream's DATA records before its first. */
    static final int BATCH_BYTES_BEFORE = 1 + 5 * Long.BYTES;

    /** One sender incarnation (a transport stream): its attempt and last journaled batch. */
    private static final class Incarnation {
        long attempt;
        long lastSequence;
    }

    private final String name;
    private final LandingSettings settings;
    private final EpochLedger ledger;
    private final LandedLog log;
    private final Map<StreamKey, Incarnation> incarnations = new HashMap<>();
    private final ExpandableArrayBuffer doc = new ExpandableArrayBuffer(1 << 16);
    private final LongArrayList ops = new LongArrayList();
    /** {first ordinal, arrival millis} of each batch from the one holding the first unreleased record on (from {@link #arrivalHead}). */
    private final LongArrayList arrivals = new LongArrayList();
    private int arrivalHead;
    /** When readers released up to where: {nanos, ordinal}, for the retention. */
    private final ArrayDeque<long[]> releases = new ArrayDeque<>();
    private long releasedByReaders;
    private long lateRecordsDiscarded;
    private long lastSentMillis;
    /** Payload bytes of every DATA record landed (sent-time header excluded): bytes behind are differences of it. */
    private long landedBytes;
    private long lastArrivalMillis;
    private long commits;
    private long lateCommits;
    private boolean closed;
    /** While replaying a batch: its arrival time; -1 otherwise. */
    private long replayArrivalMillis = -1;

    private LandedStream(String name, LandingSettings settings, Path directory, int maxFrameBytes) {
        this.name = name;
        this.settings = settings;
        this.ledger = new EpochLedger(settings.lingeringEpochTimeoutNanos());
        // A batch's document: its frame's records, one more byte of type per record, and its header (names up to 64 KiB).
        int maxDocument = (int) Math.min(Integer.MAX_VALUE - 8, 2L * maxFrameBytes + (64 << 10));
        this.log = LandedLog.open(directory, settings.sync(), settings.generationBytes(), maxDocument, this::replay);
    }

    /**
     * Opens (or creates) the stream's journal under {@code directory} and replays it.
     *
     * @param maxFrameBytes the landing transport's {@code transport.max-frame-bytes}: the largest batch
     */
    static LandedStream open(String name, LandingSettings settings, Path directory, int maxFrameBytes) {
        LandedStream s = new LandedStream(name, settings, directory, maxFrameBytes);
        if (s.ledger.landed() > 0 || !s.log.isEmpty()) {
            LOG.info("Landed stream {}: recovered {} records ({} released, {} discarded), journal {} bytes", name,
                    s.ledger.landed(), s.ledger.released(), s.ledger.discarded(), s.log.bytes());
        }
        return s;
    }

    String name() {
        return name;
    }

    // ---------------------------------------------------------------- batches from the sender

    /**
     * Journals a batch of the sender's stream {@code key} and applies it.
     *
     * @param recordHeaderBytes bytes before each record the landing does not keep (a multicast's header; 0 for a
     *     landing sender's own stream)
     *
     * @throws IllegalStateException for a stream that breaks the protocol (records before BEGIN), which
     *     closes its connection
     */
    synchronized void onBatch(StreamKey key, long sequence, DeliveredBatch batch, int recordHeaderBytes, long nowNanos,
            long nowMillis) {
        if (closed) {
            throw new IllegalStateException("landing closing");
        }
        Incarnation known = incarnations.get(key);
        int header = writeBatchHeader(key, sequence, nowMillis);
        int[] cursor = {header + Integer.BYTES, 0};
        long[] begin = new long[4];
        boolean[] sawBegin = {false};
        long[] lastSent = {lastSentMillis};
        long[] dataBytes = {0};
        ops.clear();
        batch.forEach((target, buffer, at0, length0) -> {
            if (length0 < recordHeaderBytes) {
                throw new IllegalStateException("landed stream " + name + ": a record of " + length0 + " bytes on " + key
                        + ", which carries a " + recordHeaderBytes + "-byte multicast header before each record");
            }
            int offset = at0 + recordHeaderBytes;
            int length = length0 - recordHeaderBytes;
            int at = cursor[0];
            doc.putByte(at, (byte) target);
            doc.putInt(at + 1, length);
            doc.putBytes(at + 5, buffer, offset, length);
            cursor[0] = at + 5 + length;
            cursor[1]++;
            switch (target) {
                case LandingProtocol.BEGIN -> {
                    if (cursor[1] != 1 || known != null || length < LandingProtocol.BEGIN_LENGTH) {
                        throw new IllegalStateException("landed stream " + name + ": a BEGIN that is not the first record of "
                                + key);
                    }
                    sawBegin[0] = true;
                    begin[0] = buffer.getByte(offset);
                    begin[1] = buffer.getLong(offset + 1);
                    begin[2] = buffer.getLong(offset + 9);
                    begin[3] = buffer.getLong(offset + 17);
                }
                case LandingProtocol.DATA -> {
                    if (length < LandingProtocol.DATA_HEADER) {
                        throw new IllegalStateException("landed stream " + name + ": a DATA record of " + length + " bytes");
                    }
                    lastSent[0] = buffer.getLong(offset);
                    dataBytes[0] += length - LandingProtocol.DATA_HEADER;
                    int n = ops.size();
                    if (n > 0 && ops.getLong(n - 2) == LandingProtocol.DATA) {
                        ops.setLong(n - 1, ops.getLong(n - 1) + 1);
                    } else {
                        ops.addLong(LandingProtocol.DATA);
                        ops.addLong(1);
                    }
                }
                case LandingProtocol.MARK -> {
                    if (length < Long.BYTES) {
                        throw new IllegalStateException("landed stream " + name + ": a MARK of " + length + " bytes");
                    }
                    ops.addLong(LandingProtocol.MARK);
                    ops.addLong(buffer.getLong(offset));
                }
                default -> throw new IllegalStateException("landed stream " + name + ": record type " + target
                        + " on a sender's stream");
            }
        });
        if (known == null && !sawBegin[0]) {
            throw new IllegalStateException("landed stream " + name + ": records of " + key + " before its BEGIN");
        }
        long attempt = sawBegin[0] ? begin[1] : known.attempt;
        if (attempt == 0) {
            throw new IllegalStateException("landed stream " + name + ": attempt 0 from " + key);
        }
        boolean current = ledger.isCurrent(attempt);
        if (!sawBegin[0] && !current) {
            // A superseded attempt still sending (its task not yet gone): what it sends now is sent again by its successor.
            lateRecordsDiscarded += dataCount();
            known.lastSequence = sequence;
            return;
        }
        if (sawBegin[0] && !current && knowsAttempt(attempt)) {
            throw new IllegalStateException("landed stream " + name + ": attempt " + Long.toHexString(attempt)
                    + " began again after a later attempt");
        }
        doc.putLong(1 + 2 * Long.BYTES, attempt);
        doc.putLong(1 + 3 * Long.BYTES, ledger.landed());
        doc.putLong(BATCH_BYTES_BEFORE, landedBytes);
        doc.putInt(header, cursor[1]);
        rollIfNeeded();
        log.append(doc, cursor[0]);
        landedBytes += dataBytes[0];
        apply(attempt, sawBegin[0], begin, nowNanos);
        Incarnation inc = known != null ? known : new Incarnation();
        inc.attempt = attempt;
        inc.lastSequence = sequence;
        incarnations.put(key, inc);
        lastSentMillis = lastSent[0];
        lastArrivalMillis = nowMillis;
    }

    private long dataCount() {
        long n = 0;
        for (int i = 0; i < ops.size(); i += 2) {
            if (ops.getLong(i) == LandingProtocol.DATA) {
                n += ops.getLong(i + 1);
            }
        }
        return n;
    }

    private boolean knowsAttempt(long attempt) {
        for (EpochLedger.Segment s : ledger.segments()) {
            if (s.attempt == attempt) {
                return true;
            }
        }
        return false;
    }

    /** Applies the ops of a batch (live or replayed): BEGIN, then runs of DATA and MARKs in order. */
    private void apply(long attempt, boolean sawBegin, long[] begin, long nowNanos) {
        if (sawBegin) {
            LandingGuarantee g = begin[0] == 1 ? LandingGuarantee.EXACTLY_ONCE : LandingGuarantee.AT_LEAST_ONCE;
            if (ledger.begin(attempt, g, begin[2], begin[3], nowNanos)) {
                LOG.info("Landed stream {}: attempt {} began ({}, restored from attempt {} epoch {})", name,
                        Long.toHexString(attempt), g, Long.toHexString(begin[2]), begin[3]);
            }
        }
        for (int i = 0; i < ops.size(); i += 2) {
            long op = ops.getLong(i);
            long value = ops.getLong(i + 1);
            if (op == LandingProtocol.DATA) {
                arrivals.addLong(ledger.land((int) value));
                arrivals.addLong(replayArrivalMillis >= 0 ? replayArrivalMillis : System.currentTimeMillis());
            } else {
                ledger.mark(value);
            }
        }
        pruneArrivals();
    }

    /** Keeps the batch holding the first unreleased record at the head of {@link #arrivals}. */
    private void pruneArrivals() {
        long released = ledger.released();
        if (released >= ledger.landed()) {
            arrivals.clear();
            arrivalHead = 0;
            return;
        }
        while (arrivals.size() - arrivalHead >= 4 && arrivals.getLong(arrivalHead + 2) <= released) {
            arrivalHead += 2;
        }
        if (arrivalHead > 1024 && arrivalHead * 2 > arrivals.size()) {
            arrivals.subList(0, arrivalHead).clear();
            arrivalHead = 0;
        }
    }

    private int writeBatchHeader(StreamKey key, long sequence, long nowMillis) {
        doc.putByte(0, DOC_BATCH);
        doc.putLong(1, key.epoch());
        doc.putLong(1 + Long.BYTES, sequence);
        doc.putLong(1 + 2 * Long.BYTES, 0); // attempt: filled in
        doc.putLong(1 + 3 * Long.BYTES, 0); // first ordinal: filled in
        doc.putLong(1 + 4 * Long.BYTES, nowMillis);
        doc.putLong(BATCH_BYTES_BEFORE, 0); // filled in
        int at = BATCH_FIXED;
        at += doc.putStringUtf8(at, key.peerId());
        at += doc.putStringUtf8(at, key.streamId());
        return at;
    }

    /** Offset of the record count of a BATCH document (after its peer and stream id). */
    static int batchRecordsOffset(DirectBuffer d) {
        int at = BATCH_FIXED;
        at += Integer.BYTES + d.getInt(at);
        at += Integer.BYTES + d.getInt(at);
        return at;
    }

    // ---------------------------------------------------------------- commits, expiry, readers

    /** A committer commits {@code epoch} of {@code attempt}; journaled before it applies. */
    synchronized EpochLedger.CommitOutcome commit(long attempt, long epoch) {
        if (!knowsAttempt(attempt)) {
            LOG.warn("Landed stream {}: commit of epoch {} of attempt {}, which this landing does not hold (its records were "
                    + "deleted, or never landed here)", name, epoch, Long.toHexString(attempt));
            return EpochLedger.CommitOutcome.UNKNOWN_ATTEMPT;
        }
        doc.putByte(0, DOC_COMMIT);
        doc.putLong(1, attempt);
        doc.putLong(9, epoch);
        rollIfNeeded();
        log.append(doc, 17);
        EpochLedger.CommitOutcome outcome = ledger.commit(attempt, epoch);
        if (outcome == EpochLedger.CommitOutcome.COMMITTED) {
            commits++;
        } else if (outcome == EpochLedger.CommitOutcome.DISCARDED_BEFORE) {
            lateCommits++;
            LOG.error("Landed stream {}: commit of epoch {} of attempt {} came after its records were discarded (a later attempt "
                    + "restored an earlier epoch, or landing.lingering-epoch-timeout-ms passed): they are not released",
                    name, epoch, Long.toHexString(attempt));
        }
        pruneArrivals();
        return outcome;
    }

    /** Discards epochs that lingered past the timeout; journals each discard. */
    synchronized void expire(long nowNanos) {
        for (EpochLedger.Expired e : ledger.expire(nowNanos)) {
            doc.putByte(0, DOC_DISCARD);
            doc.putLong(1, e.attempt());
            doc.putLong(9, e.fromEpoch());
            rollIfNeeded();
            log.append(doc, 17);
            LOG.error("Landed stream {}: epochs {}..{} of superseded attempt {} were not committed within "
                    + "landing.lingering-epoch-timeout-ms: {} records discarded so that later ones are released", name,
                    e.fromEpoch() + 1, e.toEpoch(), Long.toHexString(e.attempt()), e.records());
        }
        pruneArrivals();
    }

    /** A reader will not read before {@code ordinal} again. */
    synchronized void release(long ordinal, long nowNanos) {
        long o = Math.min(ordinal, ledger.released());
        if (o <= releasedByReaders) {
            return;
        }
        releasedByReaders = o;
        doc.putByte(0, DOC_TRIM);
        doc.putLong(1, o);
        rollIfNeeded();
        log.append(doc, 9);
        releases.addLast(new long[] {nowNanos, o});
    }

    /** Deletes the generations released longer than the retention ago. */
    synchronized void deleteReleased(long nowNanos) {
        long deletable = -1;
        while (!releases.isEmpty() && nowNanos - releases.peekFirst()[0] >= settings.retentionNanos()) {
            deletable = releases.pollFirst()[1];
        }
        if (deletable >= 0) {
            if (log.deleteBefore(deletable) > 0) {
                ledger.prune(log.firstOrdinal());
            }
            // Keep the remaining history's bound: the newest deletable point stays the floor.
            if (releases.isEmpty() || releases.peekFirst()[1] > deletable) {
                releases.addFirst(new long[] {Long.MIN_VALUE / 2, deletable});
            }
        }
    }

    /** Whether the journal holds more than {@code landing.max-stream-bytes}: its sender must hold back. */
    synchronized boolean isFull() {
        return log.bytes() > settings.maxStreamBytes();
    }

    // ---------------------------------------------------------------- reading (the push thread)

    synchronized LandedLog.Cursor cursor(long ordinal) {
        return log.cursor(ordinal);
    }

    synchronized long firstOrdinal() {
        return log.firstOrdinal();
    }

    synchronized int decide(long ordinal) {
        return ordinal >= ledger.landed() ? EpochLedger.PENDING : ledger.decide(ordinal);
    }

    synchronized long landed() {
        return ledger.landed();
    }

    /** Payload bytes of every DATA record landed; a subscription's bytes behind are this less its own count. */
    synchronized long landedBytes() {
        return landedBytes;
    }

    synchronized long released() {
        return ledger.released();
    }

    synchronized long oldestUnreleasedMillis() {
        return ledger.released() < ledger.landed() && arrivals.size() > arrivalHead ? arrivals.getLong(arrivalHead + 1) : 0;
    }

    /** The sequence store's view: the last batch journaled of {@code key}, 0 if none. */
    synchronized long lastSequence(StreamKey key) {
        Incarnation inc = incarnations.get(key);
        return inc == null ? 0 : inc.lastSequence;
    }

    synchronized LandedStreamStats stats(long readPosition, int subscribers) {
        return new LandedStreamStats(name, ledger.guarantee(), ledger.landed(), ledger.released(), ledger.discarded()
                + lateRecordsDiscarded, subscribers == 0 ? ledger.landed() : readPosition, ledger.landed() - ledger.released(),
                log.bytes(), oldestUnreleasedMillis(), lastSentMillis == 0 ? 0 : Math.max(0, lastArrivalMillis - lastSentMillis),
                subscribers);
    }

    synchronized long lateCommits() {
        return lateCommits;
    }

    // ---------------------------------------------------------------- journal generations and replay

    private void rollIfNeeded() {
        if (log.needsRoll(ledger.landed())) {
            ExpandableArrayBuffer snapshot = new ExpandableArrayBuffer(256);
            int n = writeSnapshot(snapshot);
            log.roll(ledger.landed(), snapshot, n);
        }
    }

    private int writeSnapshot(ExpandableArrayBuffer b) {
        int at = 0;
        b.putByte(at, DOC_SNAPSHOT);
        at += 1;
        b.putLong(at, ledger.landed());
        b.putLong(at + 8, ledger.discarded());
        b.putLong(at + 16, releasedByReaders);
        b.putLong(at + 24, landedBytes);
        at += 32;
        List<EpochLedger.Segment> segments = ledger.segments();
        b.putInt(at, segments.size());
        at += 4;
        for (EpochLedger.Segment s : segments) {
            b.putLong(at, s.attempt);
            b.putByte(at + 8, (byte) (s.guarantee == LandingGuarantee.EXACTLY_ONCE ? 1 : 0));
            b.putLong(at + 9, s.first);
            b.putLong(at + 17, s.end);
            b.putLong(at + 25, s.committed);
            b.putLong(at + 33, s.cut);
            b.putInt(at + 41, s.markEpochs.size());
            at += 45;
            for (int i = 0; i < s.markEpochs.size(); i++) {
                b.putLong(at, s.markEpochs.getLong(i));
                b.putLong(at + 8, s.markEnds.getLong(i));
                at += 16;
            }
        }
        int countAt = at;
        at += 4;
        int count = 0;
        for (Map.Entry<StreamKey, Incarnation> e : incarnations.entrySet()) {
            if (!knowsAttempt(e.getValue().attempt)) {
                continue;
            }
            at += b.putStringUtf8(at, e.getKey().peerId());
            at += b.putStringUtf8(at, e.getKey().streamId());
            b.putLong(at, e.getKey().epoch());
            b.putLong(at + 8, e.getValue().attempt);
            b.putLong(at + 16, e.getValue().lastSequence);
            at += 24;
            count++;
        }
        b.putInt(countAt, count);
        return at;
    }

    private void replay(DirectBuffer d, int length) {
        if (length < 1) {
            throw new JournalCorruptedException(Path.of(name), "an empty document");
        }
        byte kind = d.getByte(0);
        switch (kind) {
            case DOC_BATCH -> replayBatch(d, length);
            case DOC_COMMIT -> {
                ledger.commit(d.getLong(1), d.getLong(9));
                commits++;
            }
            case DOC_DISCARD -> ledger.applyDiscard(d.getLong(1), d.getLong(9));
            case DOC_TRIM -> {
                releasedByReaders = Math.max(releasedByReaders, d.getLong(1));
                releases.addLast(new long[] {System.nanoTime(), releasedByReaders});
            }
            case DOC_SNAPSHOT -> replaySnapshot(d);
            default -> throw new JournalCorruptedException(Path.of(name), "unknown document kind " + kind);
        }
    }

    private void replaySnapshot(DirectBuffer d) {
        if (ledger.landed() > 0 || !ledger.segments().isEmpty()) {
            return; // a later generation's snapshot: the replay so far holds the same state
        }
        int at = 1;
        long landed = d.getLong(at);
        long discarded = d.getLong(at + 8);
        releasedByReaders = d.getLong(at + 16);
        landedBytes = d.getLong(at + 24);
        at += 32;
        int n = d.getInt(at);
        at += 4;
        List<EpochLedger.Segment> segments = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            EpochLedger.Segment s = new EpochLedger.Segment(d.getLong(at),
                    d.getByte(at + 8) == 1 ? LandingGuarantee.EXACTLY_ONCE : LandingGuarantee.AT_LEAST_ONCE, d.getLong(at + 9));
            s.end = d.getLong(at + 17);
            s.committed = d.getLong(at + 25);
            s.cut = d.getLong(at + 33);
            s.supersededAtNanos = System.nanoTime();
            int marks = d.getInt(at + 41);
            at += 45;
            for (int m = 0; m < marks; m++) {
                s.markEpochs.addLong(d.getLong(at));
                s.markEnds.addLong(d.getLong(at + 8));
                at += 16;
            }
            segments.add(s);
        }
        ledger.restore(landed, discarded, segments);
        int keys = d.getInt(at);
        at += 4;
        for (int i = 0; i < keys; i++) {
            String peer = d.getStringUtf8(at);
            at += 4 + d.getInt(at);
            String stream = d.getStringUtf8(at);
            at += 4 + d.getInt(at);
            Incarnation inc = new Incarnation();
            long epoch = d.getLong(at);
            inc.attempt = d.getLong(at + 8);
            inc.lastSequence = d.getLong(at + 16);
            at += 24;
            incarnations.put(new StreamKey(peer, stream, epoch), inc);
        }
        if (releasedByReaders > 0) {
            releases.addLast(new long[] {System.nanoTime(), releasedByReaders});
        }
    }

    private void replayBatch(DirectBuffer d, int length) {
        long epoch = d.getLong(1);
        long sequence = d.getLong(1 + Long.BYTES);
        long attempt = d.getLong(1 + 2 * Long.BYTES);
        long firstOrdinal = d.getLong(1 + 3 * Long.BYTES);
        replayArrivalMillis = d.getLong(1 + 4 * Long.BYTES);
        long bytes = d.getLong(BATCH_BYTES_BEFORE);
        int at = BATCH_FIXED;
        String peer = d.getStringUtf8(at);
        at += 4 + d.getInt(at);
        String stream = d.getStringUtf8(at);
        at += 4 + d.getInt(at);
        int count = d.getInt(at);
        at += 4;
        if (firstOrdinal != ledger.landed()) {
            throw new JournalCorruptedException(Path.of(name), "a batch starts at ordinal " + firstOrdinal + " after "
                    + ledger.landed() + " records");
        }
        ops.clear();
        long[] begin = new long[4];
        boolean sawBegin = false;
        for (int i = 0; i < count; i++) {
            if (at + 5 > length) {
                throw new JournalCorruptedException(Path.of(name), "a batch document ends inside its records");
            }
            int type = d.getByte(at);
            int len = d.getInt(at + 1);
            int body = at + 5;
            if (len < 0 || body + len > length) {
                throw new JournalCorruptedException(Path.of(name), "a record of " + len + " bytes past its document");
            }
            switch (type) {
                case LandingProtocol.BEGIN -> {
                    sawBegin = true;
                    begin[0] = d.getByte(body);
                    begin[1] = d.getLong(body + 1);
                    begin[2] = d.getLong(body + 9);
                    begin[3] = d.getLong(body + 17);
                }
                case LandingProtocol.DATA -> {
                    lastSentMillis = d.getLong(body);
                    bytes += len - LandingProtocol.DATA_HEADER;
                    int n = ops.size();
                    if (n > 0 && ops.getLong(n - 2) == LandingProtocol.DATA) {
                        ops.setLong(n - 1, ops.getLong(n - 1) + 1);
                    } else {
                        ops.addLong(LandingProtocol.DATA);
                        ops.addLong(1);
                    }
                }
                case LandingProtocol.MARK -> {
                    ops.addLong(LandingProtocol.MARK);
                    ops.addLong(d.getLong(body));
                }
                default -> throw new JournalCorruptedException(Path.of(name), "record type " + type + " in a batch");
            }
            at = body + len;
        }
        apply(attempt, sawBegin, begin, System.nanoTime());
        landedBytes = bytes;
        StreamKey key = new StreamKey(peer, stream, epoch);
        Incarnation inc = incarnations.computeIfAbsent(key, k -> new Incarnation());
        inc.attempt = attempt;
        inc.lastSequence = Math.max(inc.lastSequence, sequence);
        lastArrivalMillis = replayArrivalMillis;
        replayArrivalMillis = -1;
    }

    @Override
    public synchronized void close() {
        closed = true;
        log.close();
    }
}
