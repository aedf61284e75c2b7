package io.jetstream.core.internal.landing;

import static io.jetstream.core.internal.landing.EpochLedger.DISCARDED;
import static io.jetstream.core.internal.landing.EpochLedger.PENDING;
import static io.jetstream.core.internal.landing.EpochLedger.RELEASED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.LandingGuarantee;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The exactly-once rule of a landed stream, in virtual time. */
class EpochLedgerTest {
    private static final long LINGER = TimeUnit.MINUTES.toNanos(15);
    private static final long A = 0xa;
    private static final long B = 0xb;
    private static final long C = 0xc;

    private final EpochLedger ledger = new EpochLedger(LINGER);

    @Test
    void atLeastOnceReleasesEveryRecordAsItLands() {
        ledger.begin(A, LandingGuarantee.AT_LEAST_ONCE, 0, 0, 0);
        assertEquals(0, ledger.land(5));
        assertEquals(5, ledger.released());
        assertEquals(RELEASED, ledger.decide(4));
    }

    @Test
    void exactlyOnceReleasesAnEpochWhenItIsCommittedAndCommitsAreCumulative() {
        ledger.begin(A, LandingGuarantee.EXACTLY_ONCE, 0, 0, 0);
        ledger.land(3);
        ledger.mark(1);
        ledger.land(2);
        ledger.mark(2);
        ledger.land(4); // epoch 3, open
        assertEquals(0, ledger.released());
        assertEquals(PENDING, ledger.decide(0));

        assertEquals(EpochLedger.CommitOutcome.COMMITTED, ledger.commit(A, 1));
        assertEquals(3, ledger.released());
        assertEquals(RELEASED, ledger.decide(2));
        assertEquals(PENDING, ledger.decide(3));

        // Epoch 2's own commit was lost (its checkpoint failed); the next one commits both.
        ledger.mark(3);
        assertEquals(EpochLedger.CommitOutcome.COMMITTED, ledger.commit(A, 3));
        assertEquals(9, ledger.released());
        assertEquals(EpochLedger.CommitOutcome.ALREADY_COMMITTED, ledger.commit(A, 2));
        assertEquals(EpochLedger.CommitOutcome.ALREADY_COMMITTED, ledger.commit(A, 3));
    }

    @Test
    void aRestoredAttemptDiscardsWhatItsPredecessorSentAfterTheRestoredEpochAndWaitsForTheRestToBeCommitted() {
        ledger.begin(A, LandingGuarantee.EXACTLY_ONCE, 0, 0, 0);
        ledger.land(2);
        ledger.mark(1); // [0,2)
        ledger.land(3);
        ledger.mark(2); // [2,5): its checkpoint completed, the commit did not arrive before A died
        ledger.land(4);
        ledger.mark(3); // [5,9): its checkpoint never completed
        ledger.land(1); // [9,10): open
        ledger.commit(A, 1);
        assertEquals(2, ledger.released());

        // B restores A's checkpoint of epoch 2; Flink retries its commit after the restore.
        ledger.begin(B, LandingGuarantee.EXACTLY_ONCE, A, 2, 100);
        assertEquals(DISCARDED, ledger.decide(5));
        assertEquals(DISCARDED, ledger.decide(9));
        assertEquals(PENDING, ledger.decide(2));
        assertEquals(5, ledger.discarded());
        ledger.land(2); // B's records, epoch 3 of B: [10,12)
        ledger.mark(3);
        assertEquals(EpochLedger.CommitOutcome.COMMITTED, ledger.commit(B, 3));
        assertEquals(2, ledger.released(), "B's epoch waits behind A's uncommitted epoch 2: order is kept");

        assertEquals(EpochLedger.CommitOutcome.COMMITTED, ledger.commit(A, 2));
        assertEquals(12, ledger.released());
        assertEquals(RELEASED, ledger.decide(4));
        assertEquals(RELEASED, ledger.decide(11));
        assertEquals(EpochLedger.CommitOutcome.DISCARDED_BEFORE, ledger.commit(A, 3));
    }

    @Test
    void anAttemptThatRestoredNothingDiscardsEverythingUncommittedOfTheOneBefore() {
        ledger.begin(A, LandingGuarantee.EXACTLY_ONCE, 0, 0, 0);
        ledger.land(2);
        ledger.mark(1);
        ledger.land(2);
        ledger.mark(2);
        ledger.commit(A, 1);
        ledger.begin(B, LandingGuarantee.EXACTLY_ONCE, 0, 0, 0);
        assertEquals(4, ledger.released());
        assertEquals(DISCARDED, ledger.decide(3));
        assertEquals(2, ledger.discarded());
    }

    @Test
    void aLingeringEpochIsDiscardedAfterTheTimeoutSoThatLaterOnesAreReleased() {
        ledger.begin(A, LandingGuarantee.EXACTLY_ONCE, 0, 0, 0);
        ledger.land(3);
        ledger.mark(1);
        ledger.begin(B, LandingGuarantee.EXACTLY_ONCE, A, 1, 1_000);
        ledger.land(2);
        ledger.mark(2);
        ledger.commit(B, 2);
        assertEquals(0, ledger.released(), "A's epoch 1 may still be committed by B's committer");
        assertEquals(List.of(), ledger.expire(1_000 + LINGER - 1));

        List<EpochLedger.Expired> expired = ledger.expire(1_000 + LINGER);
        assertEquals(List.of(new EpochLedger.Expired(A, 0, 1, 3)), expired);
        assertEquals(5, ledger.released());
        assertEquals(DISCARDED, ledger.decide(0));
        assertEquals(RELEASED, ledger.decide(3));
        assertEquals(EpochLedger.CommitOutcome.DISCARDED_BEFORE, ledger.commit(A, 1));
    }

    @Test
    void theCurrentAttemptNeverExpiresHowLongItsCheckpointsFail() {
        ledger.begin(A, LandingGuarantee.EXACTLY_ONCE, 0, 0, 0);
        ledger.land(3);
        ledger.mark(1);
        assertEquals(List.of(), ledger.expire(10 * LINGER));
        assertEquals(PENDING, ledger.decide(0));
    }

    @Test
    void aChainOfRestoresCutsOnlyTheRestoredAttempt() {
        ledger.begin(A, LandingGuarantee.EXACTLY_ONCE, 0, 0, 0);
        ledger.land(1);
        ledger.mark(1);
        ledger.land(1);
        ledger.mark(2);
        ledger.begin(B, LandingGuarantee.EXACTLY_ONCE, A, 2, 0); // A keeps epochs 1..2 pending
        ledger.land(1);
        ledger.mark(3);
        ledger.begin(C, LandingGuarantee.EXACTLY_ONCE, A, 1, 0); // C restored an older checkpoint of A
        assertEquals(DISCARDED, ledger.decide(1), "A's epoch 2 is not in C's restored state");
        assertEquals(PENDING, ledger.decide(0));
        assertEquals(DISCARDED, ledger.decide(2), "B restored nothing C has");
        ledger.commit(A, 1);
        assertEquals(3, ledger.released());
    }

    @Test
    void theSameAttemptBeginningTwiceChangesNothing() {
        ledger.begin(A, LandingGuarantee.EXACTLY_ONCE, 0, 0, 0);
        ledger.land(2);
        assertFalse(ledger.begin(A, LandingGuarantee.EXACTLY_ONCE, 0, 0, 0));
        assertEquals(0, ledger.discarded());
        assertTrue(ledger.isCurrent(A));
    }

    @Test
    void pruningKeepsTheDecisionsOfWhatRemains() {
        ledger.begin(A, LandingGuarantee.EXACTLY_ONCE, 0, 0, 0);
        for (int e = 1; e <= 5; e++) {
            ledger.land(10);
            ledger.mark(e);
        }
        ledger.commit(A, 3);
        ledger.prune(25);
        assertEquals(RELEASED, ledger.decide(29));
        assertEquals(PENDING, ledger.decide(30));
        ledger.commit(A, 5);
        assertEquals(50, ledger.released());
        assertEquals(RELEASED, ledger.decide(45));
    }
}
