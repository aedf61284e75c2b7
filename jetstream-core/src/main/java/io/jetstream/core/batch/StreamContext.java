package io.jetstream.core.batch;

/**
 * What the batch oracle knows about a stream and its link (JetStream §3.3, "context parameters"):
 * measured by a {@link StreamMonitor} or given directly. All sizes in bytes, times in seconds.
 *
 * @param eventsPerSecond acquisition rate (1 / mean time between events)
 * @param eventBytes mean event size
 * @param encodeHeaderSeconds tHe: fixed cost of encoding one batch (metadata)
 * @param encodeSecondsPerByte tDe: encoding cost per byte
 * @param decodeHeaderSeconds fixed cost of decoding one batch
 * @param decodeSecondsPerByte decoding cost per byte
 * @param transportOverheadBytes sOt: protocol bytes per batch (frame headers, TCP/IP)
 * @param encodingOverheadBytes sOe: bytes the encoding adds per batch
 * @param link thr(B) of one route
 * @param cores CPU cores of the sending node (VM_Cores)
 * @param maxEventDelaySeconds the user's bound on the time an event may wait in a batch; infinite for none
 */
public record StreamContext(
        double eventsPerSecond,
        double eventBytes,
        double encodeHeaderSeconds,
        double encodeSecondsPerByte,
        double decodeHeaderSeconds,
        double decodeSecondsPerByte,
        double transportOverheadBytes,
        double encodingOverheadBytes,
        ThroughputCurve link,
        int cores,
        double maxEventDelaySeconds) {

    public StreamContext {
        if (!(eventsPerSecond > 0) || !(eventBytes >= 0) || encodeHeaderSeconds < 0 || encodeSecondsPerByte < 0
                || decodeHeaderSeconds < 0 || decodeSecondsPerByte < 0 || transportOverheadBytes < 0
                || encodingOverheadBytes < 0 || link == null || cores < 1 || !(maxEventDelaySeconds > 0)) {
            throw new IllegalArgumentException("invalid stream context: " + this);
        }
    }

    public StreamContext withRate(double newEventsPerSecond) {
        return new StreamContext(newEventsPerSecond, eventBytes, encodeHeaderSeconds, encodeSecondsPerByte,
                decodeHeaderSeconds, decodeSecondsPerByte, transportOverheadBytes, encodingOverheadBytes, link, cores,
                maxEventDelaySeconds);
    }

    public StreamContext withEventBytes(double newEventBytes) {
        return new StreamContext(eventsPerSecond, newEventBytes, encodeHeaderSeconds, encodeSecondsPerByte,
                decodeHeaderSeconds, decodeSecondsPerByte, transportOverheadBytes, encodingOverheadBytes, link, cores,
                maxEventDelaySeconds);
    }

    public StreamContext withLink(ThroughputCurve newLink) {
        return new StreamContext(eventsPerSecond, eventBytes, encodeHeaderSeconds, encodeSecondsPerByte,
                decodeHeaderSeconds, decodeSecondsPerByte, transportOverheadBytes, encodingOverheadBytes, newLink, cores,
                maxEventDelaySeconds);
    }
}
