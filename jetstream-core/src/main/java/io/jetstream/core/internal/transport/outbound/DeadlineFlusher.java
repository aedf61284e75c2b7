package io.jetstream.core.internal.transport.outbound;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that makes pending records leave when their deadline expires although their producer
 * sends nothing more (Storm never calls flush), that sends link probes once the link has fallen
 * quiet between batches, and that retries batches a full ring refused. It sleeps until the earliest
 * deadline of its streams (at least {@value #MIN_SLEEP_MICROS} µs), at most {@value #MAX_SLEEP_MICROS}
 * µs while any stream has one and {@value #IDLE_SLEEP_MILLIS} ms while none has (a safety net: a full
 * route is also retried by the next acknowledgement), and is woken when a stream opens a batch with
 * an earlier deadline. An idle flusher costs no wake-ups: a worker of four streams woke it 1,000
 * times a second for nothing.
 *
 * <p>A failure is confined to its stream: whatever one stream throws, that stream is failed with the
 * cause ({@link Client#fail}, which logs it) and dropped from the flusher, and the others keep flushing.
 *
 * <p>Threading: {@link #register}/{@link #unregister} from any thread; {@link #wakeFor} from a
 * producer (one volatile read, an unpark only when the deadline is earlier than the planned wake-up).
 */
public final class DeadlineFlusher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DeadlineFlusher.class);
    static final long MAX_SLEEP_MICROS = 1_000;
    static final long MIN_SLEEP_MICROS = 20;
    static final long IDLE_SLEEP_MILLIS = 50;
    /** What {@link Client#onDeadline} returns when its stream has nothing due (no pending data, no probe). */
    public static final long NONE = Long.MAX_VALUE;

    /** What the flusher drives: one stream. */
    public interface Client {
        /** Flushes what is due and retries what a full route refused; returns when to be called again, or {@link #NONE}. */
        long onDeadline(long nowNanos);

        /** {@link #onDeadline} threw: the stream fails with {@code cause}. */
        void fail(Throwable cause);
    }

    private final CopyOnWriteArrayList<Client> clients = new CopyOnWriteArrayList<>();
    private final LongSupplier clock;
    private final Thread thread;
    private volatile long plannedWakeNanos;
    private volatile boolean running = true;

    public DeadlineFlusher(LongSupplier clock, String name) {
        this.clock = clock;
        this.thread = new Thread(this::run, "jetstream-flusher-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    public void register(Client c) {
        clients.add(c);
    }

    public void unregister(Client c) {
        clients.remove(c);
    }

    /** A batch was opened with this deadline; wake the flusher if it plans to sleep past it. */
    public void wakeFor(long deadlineNanos) {
        if (deadlineNanos - plannedWakeNanos < 0) {
            LockSupport.unpark(thread);
        }
    }

    private void run() {
        while (running) {
            long now = clock.getAsLong();
            long earliest = now + TimeUnit.MILLISECONDS.toNanos(IDLE_SLEEP_MILLIS);
            long cap = now + TimeUnit.MICROSECONDS.toNanos(MAX_SLEEP_MICROS);
            for (Client c : clients) {
                long d;
                try {
                    d = c.onDeadline(now);
                } catch (RuntimeException | Error e) {
                    clients.remove(c); // the client logs its failure (Client#fail); the others go on
                    try {
                        c.fail(e);
                    } catch (RuntimeException suppressed) {
                        LOG.error("Failing stream {} failed too", c, suppressed);
                    }
                    continue;
                }
                if (d != NONE && d - earliest < 0) {
                    earliest = d - cap > 0 ? cap : d; // a stream has a deadline: look again within MAX_SLEEP_MICROS
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
