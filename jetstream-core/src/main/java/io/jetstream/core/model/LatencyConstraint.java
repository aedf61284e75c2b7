package io.jetstream.core.model;

import java.util.List;

/**
 * A runtime latency constraint (Nephele §3.2.4): the mean sequence latency of the items entering
 * {@code sequence} during any {@code windowNanos} must stay at or below {@code boundMillis}.
 *
 * @param name for logs and reports
 * @param sequence connected channels and tasks, in order
 * @param boundMillis the bound l
 * @param windowNanos the time span t
 */
public record LatencyConstraint(String name, List<Element> sequence, double boundMillis, long windowNanos) {
    public LatencyConstraint {
        sequence = List.copyOf(sequence);
        if (sequence.isEmpty() || !(boundMillis > 0) || windowNanos <= 0) {
            throw new IllegalArgumentException("invalid constraint " + name);
        }
    }

    /** A channel (with its source task, whose latency gates buffer shrinking) or a task of a sequence. */
    public record Element(Kind kind, String id, String sourceTask) {
        public static Element channel(String id, String sourceTask) {
            return new Element(Kind.CHANNEL, id, sourceTask);
        }

        public static Element task(String id) {
            return new Element(Kind.TASK, id, null);
        }
    }

    public enum Kind { CHANNEL, TASK }
}
