package io.jetstream.core.internal.transport.outbound;

import io.jetstream.core.api.StreamRoutes.RelayChoice;
import io.jetstream.core.api.TransportOptions.Reliability;
import io.jetstream.core.internal.metrics.SenderCounters;
import io.jetstream.core.internal.transport.journal.StreamJournal;
import io.jetstream.core.model.BatchController;
import io.jetstream.core.model.FlushPolicy;
import io.jetstream.core.model.RelaySelection;
import io.netty.buffer.ByteBufAllocator;
import java.util.function.LongSupplier;

/**
 * An {@link Outbox}'s settings and collaborators ({@link Outbox#builder}). Limits come from {@link #limits}; a new stream starts
 * at sequence 0 unless {@link #resumeAfter} says otherwise. Not thread-safe; for the thread that
 * opens the stream.
 */
public final class OutboxBuilder {
    final String name;
    int routeCount = 1;
    Reliability reliability;
    int windowBytes;
    long memoryBytes;
    int maxFrameBytes;
    long maxEventDelayNanos;
    LongSupplier clock;
    ByteBufAllocator alloc;
    SenderCounters metrics;
    FlushPolicy policy;
    BatchController controller;
    StreamJournal journal;
    long lastSequence;
    long acknowledgedSequence;
    RelayChoice relayChoice = RelayChoice.IN_ORDER;
    long relayChoiceIntervalNanos = 2_000_000_000L;
    RelaySelection relaySelection;

    OutboxBuilder(String name) {
        this.name = name;
    }

    /** How many routes the stream has (1 by default). */
    public OutboxBuilder routes(int routeCount) {
        this.routeCount = routeCount;
        return this;
    }

    public OutboxBuilder reliability(Reliability reliability) {
        this.reliability = reliability;
        return this;
    }

    /**
     * {@code transport.window-bytes} (bytes in flight), {@code transport.memory-bytes} (the
     * outbox's memory), {@code transport.max-frame-bytes} and the user's maximum event delay
     * (which bounds the adaptive outbox).
     */
    public OutboxBuilder limits(int windowBytes, long memoryBytes, int maxFrameBytes, long maxEventDelayNanos) {
        this.windowBytes = windowBytes;
        this.memoryBytes = memoryBytes;
        this.maxFrameBytes = maxFrameBytes;
        this.maxEventDelayNanos = maxEventDelayNanos;
        return this;
    }

    /** The nanosecond clock of send times and acknowledgement delays. */
    public OutboxBuilder clock(LongSupplier nanoClock) {
        this.clock = nanoClock;
        return this;
    }

    /** Where batches read back from the journal are allocated. */
    public OutboxBuilder alloc(ByteBufAllocator alloc) {
        this.alloc = alloc;
        return this;
    }

    public OutboxBuilder metrics(SenderCounters metrics) {
        this.metrics = metrics;
        return this;
    }

    /**
     * The stream's flush policy (whose target sizes the adaptive bound) and its controller, null
     * in fixed batch mode (then the outbox's bound stays {@code transport.memory-bytes}).
     */
    public OutboxBuilder batching(FlushPolicy policy, BatchController controller) {
        this.policy = policy;
        this.controller = controller;
        return this;
    }

    /** The stream's journal; none by default. */
    public OutboxBuilder journal(StreamJournal journal) {
        this.journal = journal;
        return this;
    }

    /**
     * A restarted stream: {@code lastSequence} was the last numbered, {@code acknowledgedSequence}
     * the last known delivered (a durable journal's). Both 0 by default.
     */
    public OutboxBuilder resumeAfter(long lastSequence, long acknowledgedSequence) {
        this.lastSequence = lastSequence;
        this.acknowledgedSequence = acknowledgedSequence;
        return this;
    }

    /**
     * Which relays carry the stream when the oracle uses fewer routes than there are
     * ({@link io.jetstream.core.api.StreamRoutes#choice()}; {@code IN_ORDER} by default), and, for
     * {@code ANT_COLONY}, how often the colony chooses again ({@code transport.relay.choice-interval-ms}).
     */
    public OutboxBuilder relayChoice(RelayChoice choice, long intervalNanos) {
        this.relayChoice = choice;
        this.relayChoiceIntervalNanos = intervalNanos;
        return this;
    }

    /** What chooses the relays for {@code ANT_COLONY} (a seeded {@link io.jetstream.core.model.RelayColony} by default). */
    OutboxBuilder relaySelection(RelaySelection selection) {
        this.relaySelection = selection;
        return this;
    }

    public Outbox build() {
        return new Outbox(this);
    }
}
