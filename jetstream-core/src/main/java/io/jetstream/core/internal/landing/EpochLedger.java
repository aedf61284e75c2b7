package io.jetstream.core.internal.landing;

import io.jetstream.core.api.LandingGuarantee;
import java.util.ArrayList;
import java.util.List;
import org.agrona.collections.LongArrayList;

/**
 * Which records of one landed stream are released, pending or discarded: the exactly-once rule of
 * a landing (docs/cross-site.md, "Exactly once").
 *
 * <p>The stream's records get ordinals 0, 1, ... as they land. Each run of the sender (an
 * <em>attempt</em>) owns one contiguous segment of ordinals; within it, {@link #mark}s end epochs.
 * With {@link LandingGuarantee#EXACTLY_ONCE} a record is released once its epoch is committed
 * (commits are cumulative: committing epoch e commits every earlier epoch of the attempt, as a later
 * Flink checkpoint commits what an earlier, failed one held). A new attempt {@link #begin}s naming
 * the attempt and epoch it was restored from: the earlier segments' epochs after that point, and
 * their unmarked tails, are discarded (the new attempt sends them again); their epochs up to it wait
 * for their commit (Flink retries it after recovery) at most {@code lingeringNanos} from that
 * moment, then they are discarded too so that the records after them are released. With
 * {@link LandingGuarantee#AT_LEAST_ONCE} every record is released as it lands.
 *
 * <p>Records are released in ordinal order: {@link #released()} is the first ordinal not yet
 * decided. Pure logic with the time passed in (tested in virtual time); not thread-safe (its
 * landed stream calls it under its lock).
 */
final class EpochLedger {
    static final int RELEASED = 0;
    static final int PENDING = 1;
    static final int DISCARDED = 2;

    /** What {@link #expire} discarded: epochs {@code (fromEpoch, toEpoch]} of {@code attempt}, {@code records} records. */
    record Expired(long attempt, long fromEpoch, long toEpoch, long records) {}

    /** One attempt's ordinals {@code [first, end)}. */
    static final class Segment {
        final long attempt;
        final LandingGuarantee guarantee;
        final long first;
        long end;
        /** Epochs marked, ascending, and the ordinal each one ends before. */
        final LongArrayList markEpochs = new LongArrayList();
        final LongArrayList markEnds = new LongArrayList();
        /** Highest epoch committed. */
        long committed;
        /** Epochs after this one are discarded (Long.MAX_VALUE while the attempt is the current one). */
        long cut = Long.MAX_VALUE;
        /** When a later attempt began (its lingering clock), in nanos. */
        long supersededAtNanos;

        Segment(long attempt, LandingGuarantee guarantee, long first) {
            this.attempt = attempt;
            this.guarantee = guarantee;
            this.first = first;
            this.end = first;
        }

        boolean superseded() {
            return cut != Long.MAX_VALUE;
        }

        /** The ordinal that epochs up to {@code epoch} end before ({@code first} if none is marked). */
        long endOf(long epoch) {
            long e = first;
            for (int i = 0, n = markEpochs.size(); i < n && markEpochs.getLong(i) <= epoch; i++) {
                e = markEnds.getLong(i);
            }
            return e;
        }

        /** First ordinal of this segment not decided, or {@code end} when all are. */
        long firstPending() {
            if (guarantee == LandingGuarantee.AT_LEAST_ONCE) {
                return end;
            }
            long from = endOf(committed);
            long to = superseded() ? endOf(cut) : end;
            return from < to ? from : end;
        }

        int decide(long ordinal) {
            if (guarantee == LandingGuarantee.AT_LEAST_ONCE) {
                return RELEASED;
            }
            int i = firstMarkEndingAfter(ordinal);
            if (i < 0) {
                return superseded() ? DISCARDED : PENDING;
            }
            long epoch = markEpochs.getLong(i);
            if (epoch <= committed) {
                return RELEASED;
            }
            return epoch > cut ? DISCARDED : PENDING;
        }

        private int firstMarkEndingAfter(long ordinal) {
            int lo = 0;
            int hi = markEnds.size() - 1;
            int found = -1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (markEnds.getLong(mid) > ordinal) {
                    found = mid;
                    hi = mid - 1;
                } else {
                    lo = mid + 1;
                }
            }
            return found;
        }
    }

    private final long lingeringNanos;
    private final List<Segment> segments = new ArrayList<>();
    private long landed;
    private long released;
    private long discarded;

    EpochLedger(long lingeringNanos) {
        this.lingeringNanos = lingeringNanos;
    }

    /** The current (last) attempt, or 0 before the first BEGIN. */
    long currentAttempt() {
        return segments.isEmpty() ? 0 : last().attempt;
    }

    /**
     * A run of the sender begins. A BEGIN of the current attempt again changes nothing.
     *
     * @return false if it was the current attempt already
     */
    boolean begin(long attempt, LandingGuarantee guarantee, long restoredAttempt, long restoredEpoch, long nowNanos) {
        if (!segments.isEmpty() && last().attempt == attempt) {
            return false;
        }
        for (Segment s : segments) {
            if (s.superseded()) {
                long cut = Math.max(restoredEpoch, s.committed);
                if (s.attempt == restoredAttempt && cut < s.cut && s.guarantee == LandingGuarantee.EXACTLY_ONCE) {
                    discarded += s.endOf(s.cut) - s.endOf(cut);
                    s.cut = cut;
                }
                continue;
            }
            // The attempt it replaces: what it sent after the restored point is sent again by the new one.
            s.cut = s.attempt == restoredAttempt ? Math.max(restoredEpoch, s.committed) : s.committed;
            s.supersededAtNanos = nowNanos;
            if (s.guarantee == LandingGuarantee.EXACTLY_ONCE) {
                discarded += s.end - s.endOf(s.cut);
            }
        }
        segments.add(new Segment(attempt, guarantee, landed));
        advance();
        return true;
    }

    /**
     * {@code count} records of the current attempt landed.
     *
     * @return the first one's ordinal
     * @throws IllegalStateException before any BEGIN
     */
    long land(int count) {
        if (segments.isEmpty()) {
            throw new IllegalStateException("records before the stream's BEGIN");
        }
        long first = landed;
        landed += count;
        last().end = landed;
        advance();
        return first;
    }

    /**
     * The current attempt ends epoch {@code epoch}.
     *
     * @return false if it is not above the last epoch marked (ignored)
     */
    boolean mark(long epoch) {
        if (segments.isEmpty()) {
            throw new IllegalStateException("a mark before the stream's BEGIN");
        }
        Segment s = last();
        if (!s.markEpochs.isEmpty() && s.markEpochs.getLong(s.markEpochs.size() - 1) >= epoch) {
            return false;
        }
        s.markEpochs.addLong(epoch);
        s.markEnds.addLong(landed);
        advance();
        return true;
    }

    /** Outcome of {@link #commit}. */
    enum CommitOutcome { COMMITTED, ALREADY_COMMITTED, UNKNOWN_ATTEMPT, DISCARDED_BEFORE }

    /** Epoch {@code epoch} (and every earlier one) of {@code attempt} is committed. */
    CommitOutcome commit(long attempt, long epoch) {
        for (Segment s : segments) {
            if (s.attempt != attempt) {
                continue;
            }
            if (epoch <= s.committed) {
                return CommitOutcome.ALREADY_COMMITTED;
            }
            if (epoch > s.cut) {
                if (s.cut > s.committed) {
                    s.committed = s.cut;
                    advance();
                }
                return CommitOutcome.DISCARDED_BEFORE;
            }
            s.committed = epoch;
            advance();
            return CommitOutcome.COMMITTED;
        }
        return CommitOutcome.UNKNOWN_ATTEMPT;
    }

    /** Discards the pending epochs of attempts superseded more than the lingering timeout ago. */
    List<Expired> expire(long nowNanos) {
        List<Expired> expired = null;
        for (Segment s : segments) {
            if (!s.superseded() || s.guarantee != LandingGuarantee.EXACTLY_ONCE || s.cut <= s.committed
                    || nowNanos - s.supersededAtNanos < lingeringNanos) {
                continue;
            }
            long records = s.endOf(s.cut) - s.endOf(s.committed);
            if (expired == null) {
                expired = new ArrayList<>(2);
            }
            expired.add(new Expired(s.attempt, s.committed, s.cut, records));
            applyDiscard(s.attempt, s.committed);
        }
        return expired == null ? List.of() : expired;
    }

    /** Epochs of {@code attempt} after {@code keepUpTo} are discarded (an expiry, replayed from the journal). */
    void applyDiscard(long attempt, long keepUpTo) {
        for (Segment s : segments) {
            if (s.attempt == attempt && s.superseded() && keepUpTo < s.cut) {
                discarded += s.endOf(s.cut) - s.endOf(Math.max(keepUpTo, s.committed));
                s.cut = Math.max(keepUpTo, s.committed);
                advance();
            }
        }
    }

    /** Whether {@code ordinal} (below {@link #landed()}) is released, pending or discarded. */
    int decide(long ordinal) {
        for (int i = segments.size() - 1; i >= 0; i--) {
            Segment s = segments.get(i);
            if (ordinal >= s.first) {
                return s.decide(ordinal);
            }
        }
        return DISCARDED; // before the first segment kept: pruned, hence decided long ago
    }

    /** Whether records of the stream's current attempt are accepted from an attempt {@code attempt}. */
    boolean isCurrent(long attempt) {
        return !segments.isEmpty() && last().attempt == attempt;
    }

    /** Records landed: the next record's ordinal. */
    long landed() {
        return landed;
    }

    /** The first ordinal not decided (every one before it is released or discarded). */
    long released() {
        return released;
    }

    long discarded() {
        return discarded;
    }

    LandingGuarantee guarantee() {
        return segments.isEmpty() ? LandingGuarantee.AT_LEAST_ONCE : last().guarantee;
    }

    /** Forgets segments and marks that end at or before {@code ordinal} (deleted from the journal). */
    void prune(long ordinal) {
        while (segments.size() > 1 && segments.get(0).end <= ordinal && segments.get(0).end <= released) {
            segments.remove(0);
        }
        for (Segment s : segments) {
            int drop = 0;
            // Keep a mark at or below the committed epoch: endOf(committed) stays exact.
            while (drop + 1 < s.markEnds.size() && s.markEpochs.getLong(drop + 1) <= s.committed
                    && s.markEnds.getLong(drop) <= ordinal) {
                drop++;
            }
            if (drop > 0) {
                s.markEpochs.subList(0, drop).clear();
                s.markEnds.subList(0, drop).clear();
            }
        }
    }

    List<Segment> segments() {
        return segments;
    }

    /** Restores a snapshot's state (see {@link LandedLog}). */
    void restore(long landed, long discarded, List<Segment> restored) {
        this.landed = landed;
        this.discarded = discarded;
        segments.clear();
        segments.addAll(restored);
        advance();
    }

    private Segment last() {
        return segments.get(segments.size() - 1);
    }

    private void advance() {
        long r = landed;
        for (Segment s : segments) {
            long p = s.firstPending();
            if (p < s.end) {
                r = p;
                break;
            }
        }
        released = r;
    }
}
