package io.jetstream.core.transport.netty;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The thread that makes pending records leave when their deadline expires although their producer
 * sends nothing more (Storm never calls flush), that sends link probes once the link has fallen
 * quiet between batches, and that retries batches a full ring refused. It sleeps until the earliest deadline of its senders
 * (at most {@value #MAX_SLEEP_MICROS} µs, at least {@value #MIN_SLEEP_MICROS} µs) and is woken
 * when a sender opens a batch with an earlier deadline.
 *
 * <p>Threading: {@link #register}/{@link #unregister} from any thread; {@link #wakeFor} from a
 * producer (one volatile read, an unpark only when the deadline is earlier than the planned wake-up).
 */
final class DeadlineFlusher implements AutoCloseable {
    static final long MAX_SLEEP_MICROS = 1_000;
    static final long MIN_SLEEP_MICROS = 20;

    private final CopyOnWriteArrayList<StreamSender> senders = new CopyOnWriteArrayList<>();
    private final LongSupplier clock;
    private final Thread thread;
    private volatile long plannedWakeNanos;
    private volatile boolean running = true;

    DeadlineFlusher(LongSupplier clock) {
        this.clock = clock;
        this.thread = new Thread(this::run, "jetstream-flusher");
        thread.setDaemon(true);
        thread.start();
    }

    void register(StreamSender s) {
        senders.add(s);
    }

    void unregister(StreamSender s) {
        senders.remove(s);
    }

    /** A batch was opened with this deadline; wake the flusher if it plans to sleep past it. */
    void wakeFor(long deadlineNanos) {
        if (deadlineNanos - plannedWakeNanos < 0) {
            LockSupport.unpark(thread);
        }
    }

    private void run() {
        while (running) {
            long now = clock.getAsLong();
            long earliest = now + TimeUnit.MICROSECONDS.toNanos(MAX_SLEEP_MICROS);
            for (StreamSender s : senders) {
                s.retryIfRingFull();
                long d = s.flushIfDue(now);
                if (d - earliest < 0) {
                    earliest = d;
                }
            }
            long sleep = Math.max(TimeUnit.MICROSECONDS.toNanos(MIN_SLEEP_MICROS), earliest - now);
            plannedWakeNanos = now + sleep;
            LockSupport.parkNanos(this, sleep);
        }
    }

    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
