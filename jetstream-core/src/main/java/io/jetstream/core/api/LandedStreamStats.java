package io.jetstream.core.api;

/**
 * One landed stream at a landing, as its metrics show it (MirrorMaker 2's lag figures).
 *
 * @param name the landed stream
 * @param guarantee what its sender asked for
 * @param landed records landed (the next record's ordinal)
 * @param released records released to readers or discarded
 * @param discarded records discarded (an attempt that failed before committing, or an epoch that lingered)
 * @param read the lowest position its subscribers have received up to (landed when none is subscribed)
 * @param unreleasedRecords records landed but not yet released (exactly once: waiting for their commit)
 * @param journalBytes bytes its journal holds on disk
 * @param oldestUnreleasedMillis arrival time of the oldest record not yet released (0: none)
 * @param replicationLatencyMillis arrival − send time of the last record landed
 * @param subscribers subscriptions now
 */
public record LandedStreamStats(String name, LandingGuarantee guarantee, long landed, long released, long discarded, long read,
        long unreleasedRecords, long journalBytes, long oldestUnreleasedMillis, long replicationLatencyMillis, int subscribers) {}
