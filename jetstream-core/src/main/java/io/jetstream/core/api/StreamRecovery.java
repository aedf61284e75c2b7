package io.jetstream.core.api;

/**
 * What a durable stream found in its journal when it opened ({@code transport.reliability: durable}):
 * the batches it replays, and the last record it holds, after which its application resumes.
 *
 * @param batches batches read back from the journal
 * @param acknowledged the highest sequence the receiver had acknowledged
 * @param lastSequence the highest sequence journaled
 * @param lastRecordTarget the target of the last record journaled, -1 without one
 * @param lastRecord the last record journaled, {@code null} without one
 */
public record StreamRecovery(long batches, long acknowledged, long lastSequence, int lastRecordTarget, byte[] lastRecord) {
    /** A stream that recovered nothing (a new journal, or no journal). */
    public static final StreamRecovery NONE = new StreamRecovery(0, 0, 0, -1, null);
}
