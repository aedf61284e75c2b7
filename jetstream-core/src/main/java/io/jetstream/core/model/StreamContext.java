package io.jetstream.core.model;

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
 * @param transportOverheadBytes sOt: protocol bytes per segment the transport cuts a batch into
 *     (TCP/IP and link headers), or per batch when {@code segmentBytes} is infinite (the paper's sOt)
 * @param encodingOverheadBytes sOe: bytes the encoding adds per batch
 * @param link thr(B) of one route
 * @param cores CPU cores of the sending node (VM_Cores)
 * @param maxEventDelaySeconds the user's bound on the time an event may wait in a batch; infinite for none
 * @param segmentBytes most bytes of a batch per segment (a TCP maximum segment size: 1,448 behind an
 *     Ethernet MTU with timestamps); infinite for one segment per batch. Counting the overhead per
 *     segment keeps large and small sends on one scale: a 64 KiB probe carries 45 TCP/IP headers, a
 *     single event's frame one, and a link fitted with one header per send reads the large sends'
 *     extra headers as 4.5 % less bandwidth.
 * @param arrivalVariation coefficient of variation of the time between events (0 for a paced source,
 *     1 for Poisson arrivals): how bursty the load is, which sets the queue in front of a busy link
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
        double maxEventDelaySeconds,
        double segmentBytes,
        double arrivalVariation) {

    /** A context with one transport overhead per batch (the paper's sOt) and evenly spaced events. */
    public StreamContext(double eventsPerSecond, double eventBytes, double encodeHeaderSeconds, double encodeSecondsPerByte,
            double decodeHeaderSeconds, double decodeSecondsPerByte, double transportOverheadBytes,
            double encodingOverheadBytes, ThroughputCurve link, int cores, double maxEventDelaySeconds) {
        this(eventsPerSecond, eventBytes, encodeHeaderSeconds, encodeSecondsPerByte, decodeHeaderSeconds,
                decodeSecondsPerByte, transportOverheadBytes, encodingOverheadBytes, link, cores, maxEventDelaySeconds,
                Double.POSITIVE_INFINITY, 0);
    }

    public StreamContext {
        if (!(eventsPerSecond > 0) || !(eventBytes >= 0) || encodeHeaderSeconds < 0 || encodeSecondsPerByte < 0
                || decodeHeaderSeconds < 0 || decodeSecondsPerByte < 0 || transportOverheadBytes < 0
                || encodingOverheadBytes < 0 || link == null || cores < 1 || !(maxEventDelaySeconds > 0)
                || !(segmentBytes >= 1) || !(arrivalVariation >= 0) || Double.isInfinite(arrivalVariation)) {
            throw new IllegalArgumentException("invalid stream context: " + this);
        }
    }

    public StreamContext withRate(double newEventsPerSecond) {
        return new StreamContext(newEventsPerSecond, eventBytes, encodeHeaderSeconds, encodeSecondsPerByte,
                decodeHeaderSeconds, decodeSecondsPerByte, transportOverheadBytes, encodingOverheadBytes, link, cores,
                maxEventDelaySeconds, segmentBytes, arrivalVariation);
    }

    public StreamContext withEventBytes(double newEventBytes) {
        return new StreamContext(eventsPerSecond, newEventBytes, encodeHeaderSeconds, encodeSecondsPerByte,
                decodeHeaderSeconds, decodeSecondsPerByte, transportOverheadBytes, encodingOverheadBytes, link, cores,
                maxEventDelaySeconds, segmentBytes, arrivalVariation);
    }

    public StreamContext withLink(ThroughputCurve newLink) {
        return new StreamContext(eventsPerSecond, eventBytes, encodeHeaderSeconds, encodeSecondsPerByte,
                decodeHeaderSeconds, decodeSecondsPerByte, transportOverheadBytes, encodingOverheadBytes, newLink, cores,
                maxEventDelaySeconds, segmentBytes, arrivalVariation);
    }

    /**
     * Bytes on the wire for a send of {@code framedBytes} (payload plus encoding overhead): one
     * transport overhead per segment. What transports report to {@link StreamMonitor#onTransfer}.
     */
    public double wireBytes(double framedBytes) {
        double segments = Double.isInfinite(segmentBytes) ? 1 : Math.max(1, Math.ceil(framedBytes / segmentBytes));
        return framedBytes + segments * transportOverheadBytes;
    }
}
