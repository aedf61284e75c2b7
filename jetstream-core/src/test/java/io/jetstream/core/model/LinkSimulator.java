package io.jetstream.core.model;

import java.util.SplittableRandom;

/**
 * A deterministic virtual-time model of a sender and one route: events arrive evenly at a rate, a
 * batching policy decides when pending events leave, batches queue for the route (FIFO) and take
 * encode + latency + bytes/bandwidth, with seeded multiplicative jitter. Reports throughput and mean
 * event latency (arrival to delivery). Used by the adaptive-batching tests; no wall clock anywhere.
 */
final class LinkSimulator {
    /** A batching policy under test. */
    interface Policy {
        /** Called once per event, before it is added; may reconfigure {@code flush}. */
        default void beforeEvent(long nowNanos, int bytes) {}

        /** Bytes of a link probe to send now (it occupies the route like a batch), or 0. */
        default long probeBytes(long nowNanos) {
            return 0;
        }

        /** When to ask {@link #probeBytes} again between batches, as a transport's timer would; not before {@code nowNanos}. */
        default long probeCheckNanos(long nowNanos) {
            return Long.MAX_VALUE;
        }

        /** A batch of {@code bytes} (overheads included) leaves for the route now. */
        default void onSent(long bytes, long nowNanos) {}

        /** Observed transfer of a batch (what a real transport's monitor would see). */
        default void afterTransfer(long bytes, double seconds) {}

        FlushPolicy flush();

        String name();
    }

    record Result(String policy, double throughput, double meanLatencySeconds, long delivered) {}

    final double latencySeconds;
    final double bandwidth;
    final double jitter;
    final double encodeHeader;
    final double encodePerByte;
    final int overheadBytes;

    LinkSimulator(double latencySeconds, double bandwidth, double jitter, double encodeHeader, double encodePerByte, int overheadBytes) {
        this.latencySeconds = latencySeconds;
        this.bandwidth = bandwidth;
        this.jitter = jitter;
        this.encodeHeader = encodeHeader;
        this.encodePerByte = encodePerByte;
        this.overheadBytes = overheadBytes;
    }

    /**
     * One phase of {@code seconds} at {@code rate} events/s of {@code eventBytes}, from an idle link.
     * The policy sees virtual time {@code startNanos} + time in the phase, so a controller used over
     * several phases sees one continuous clock.
     */
    Result run(Policy policy, double rate, int eventBytes, double seconds, long seed, long startNanos) {
        SplittableRandom random = new SplittableRandom(seed);
        // Probes draw their jitter from their own stream: the k-th batch of every policy sees the
        // same jitter whether or not probes went before it (common random numbers), so policies
        // are compared on their decisions rather than on their luck.
        SplittableRandom probeRandom = new SplittableRandom(~seed);
        long events = Math.round(rate * seconds);
        long endNanos = (long) (seconds * 1e9);
        long gapNanos = (long) (1e9 / rate);
        long[] arrivals = new long[(int) Math.min(events, 1_000_000)];
        int pending = 0;
        long lastNanos = 0;
        double routeFreeAt = 0;
        latencySum = 0;
        delivered = 0;
        FlushPolicy flush = policy.flush();
        flush.onFlush(FlushPolicy.Reason.EXPLICIT);
        for (long i = 0; i <= events; i++) {
            long now = i < events ? i * gapNanos : endNanos;
            // A deadline that passed before this event fires first (a real transport's flusher).
            long deadline = flush.deadlineNanos() - startNanos;
            if (pending > 0 && deadline <= now) {
                routeFreeAt = probe(policy, startNanos, deadline, routeFreeAt, probeRandom);
                routeFreeAt = send(policy, arrivals, pending, eventBytes, startNanos, deadline, routeFreeAt, random);
                account(arrivals, pending, routeFreeAt, seconds);
                pending = 0;
                flush.onFlush(FlushPolicy.Reason.DEADLINE);
            }
            // The transport's timer (armed by its first batch): a probe waiting for the link to
            // fall quiet goes out when it does.
            long check = routeFreeAt == 0 ? Long.MAX_VALUE : policy.probeCheckNanos(startNanos + lastNanos) - startNanos;
            if (check <= now) {
                routeFreeAt = probe(policy, startNanos, Math.max(check, lastNanos), routeFreeAt, probeRandom);
            }
            lastNanos = now;
            if (i == events) {
                break;
            }
            policy.beforeEvent(startNanos + now, eventBytes);
            flush = policy.flush();
            arrivals[pending++] = now;
            if (flush.onRecord(eventBytes, startNanos + now) || pending == arrivals.length) {
                routeFreeAt = probe(policy, startNanos, now, routeFreeAt, probeRandom);
                routeFreeAt = send(policy, arrivals, pending, eventBytes, startNanos, now, routeFreeAt, random);
                account(arrivals, pending, routeFreeAt, seconds);
                pending = 0;
                flush.onFlush(FlushPolicy.Reason.SIZE);
            }
        }
        return new Result(policy.name(), delivered / seconds, delivered == 0 ? Double.POSITIVE_INFINITY : latencySum / delivered, delivered);
    }

    // Totals of the phase being run (a simulator runs one phase at a time).
    private double latencySum;
    private long delivered;

    /** Counts a batch delivered at {@code doneSeconds}, if within the phase. */
    private void account(long[] arrivals, int count, double doneSeconds, double phaseSeconds) {
        if (doneSeconds <= phaseSeconds) {
            for (int k = 0; k < count; k++) {
                latencySum += doneSeconds - arrivals[k] / 1e9;
            }
            delivered += count;
        }
    }

    /**
     * A link probe the policy asks for just before a batch leaves (as the transport asks, when it
     * seals a batch) or from the transport's timer: it queues behind earlier batches and occupies
     * the route like one; a batch leaving with it queues behind it.
     */
    private double probe(Policy policy, long startNanos, long nowNanos, double routeFreeAt, SplittableRandom random) {
        long probe = policy.probeBytes(startNanos + nowNanos);
        if (probe <= 0) {
            return routeFreeAt;
        }
        double noise = Math.max(0.5, 1 + jitter * random.nextGaussian(0, 1));
        double transfer = (latencySeconds + (probe + overheadBytes) / bandwidth) * noise;
        policy.afterTransfer(probe + overheadBytes, transfer);
        return Math.max(nowNanos / 1e9, routeFreeAt) + transfer;
    }

    /** Sends a batch sealed at {@code sealNanos} (phase time); returns when it is delivered. */
    private double send(Policy policy, long[] arrivals, int count, int eventBytes, long startNanos, long sealNanos,
            double routeFreeAt, SplittableRandom random) {
        double readySeconds = sealNanos / 1e9;
        long bytes = (long) count * eventBytes;
        policy.onSent(bytes + overheadBytes, startNanos + sealNanos);
        double encode = encodeHeader + encodePerByte * bytes;
        double noise = Math.max(0.5, 1 + jitter * random.nextGaussian(0, 1)) ;
        double transfer = (latencySeconds + (bytes + overheadBytes) / bandwidth) * noise;
        double start = Math.max(readySeconds + encode, routeFreeAt);
        policy.afterTransfer(bytes + overheadBytes, transfer);
        return start + transfer;
    }

    static Policy fixed(String name, int targetBytes, long delayNanos) {
        FlushPolicy flush = new FlushPolicy(targetBytes, delayNanos);
        return new Policy() {
            @Override
            public FlushPolicy flush() {
                return flush;
            }

            @Override
            public String name() {
                return name;
            }
        };
    }
}
