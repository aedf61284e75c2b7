package io.jetstream.core.api;

/**
 * What a landing promises the readers of a landed stream (docs/cross-site.md, "Landing a stream").
 */
public enum LandingGuarantee {
    /**
     * Records are released to readers as they land: latency is the transfer's; after the sending
     * application fails, what it replays lands again (duplicates).
     */
    AT_LEAST_ONCE,
    /**
     * Records are released only once their epoch is committed ({@link LandingCommitter}); the
     * records of an attempt that failed before committing are discarded. Latency is at least the
     * sender's commit period (its checkpoint interval).
     */
    EXACTLY_ONCE
}
