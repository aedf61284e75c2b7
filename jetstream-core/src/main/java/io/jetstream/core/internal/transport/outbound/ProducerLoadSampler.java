package io.jetstream.core.internal.transport.outbound;

import io.jetstream.core.model.BatchController;
import java.util.function.LongSupplier;

/**
 * Measures the share of the producer's time spent in the transport — JetStream's CPU ratio — and
 * reports it to the controller ({@link BatchController#onProducerLoad}), which treats a producer
 * that the transport keeps busy like one it pushes back. One offer in {@value #SAMPLE_EVERY} is
 * timed from entry to exit (sealing included when it sealed); those times, scaled up, over the wall
 * time of a {@value #WINDOW_NANOS} ns window, are the share. The other offers read no clock here.
 *
 * <p>Threading contract: not thread-safe; for the thread that holds the accumulator's claim (the
 * producer, inside an offer).
 */
final class ProducerLoadSampler {
    /** One offer in this many is timed (a power of two). */
    static final int SAMPLE_EVERY = 64;
    private static final long WINDOW_NANOS = 50_000_000;

    private final BatchController controller;
    private final LongSupplier nanoClock;
    private long offers;
    private long sampledBusyNanos;
    private long windowStartNanos;

    ProducerLoadSampler(BatchController controller, LongSupplier nanoClock) {
        this.controller = controller;
        this.nanoClock = nanoClock;
    }

    /** Whether the offer about to begin is timed: the caller then reads the clock as it enters. */
    boolean timesNextOffer() {
        return ((offers + 1) & (SAMPLE_EVERY - 1)) == 0;
    }

    /**
     * An offer that appended its record ends; {@code enteredNanos} is the clock read as it entered
     * if {@link #timesNextOffer} said so (and is not read otherwise).
     */
    void onOfferEnd(long enteredNanos) {
        if ((++offers & (SAMPLE_EVERY - 1)) != 0) {
            return;
        }
        long exit = nanoClock.getAsLong();
        sampledBusyNanos += exit - enteredNanos;
        long span = exit - windowStartNanos;
        if (span >= WINDOW_NANOS) {
            if (windowStartNanos != 0) {
                controller.onProducerLoad((double) sampledBusyNanos * SAMPLE_EVERY / span, exit);
            }
            windowStartNanos = exit;
            sampledBusyNanos = 0;
        }
    }
}
