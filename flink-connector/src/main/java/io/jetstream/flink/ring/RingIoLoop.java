package io.jetstream.flink.ring;

import io.jetstream.core.ring.RingConsumer;
import io.jetstream.core.ring.RingSettings;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.agrona.concurrent.IdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ring I/O thread ({@code jetstream-ring-<port>}) and its loop. Each round it polls this
 * TaskManager's ring into the {@link RingMessageDecoder}, takes what other threads handed over
 * ({@link RingHandOver}), writes to the peers' rings ({@link RingPartitionServer#writeAll}), runs due
 * {@link RingTimers} and, when due, the {@link RingPeerLiveness} check.
 *
 * <p>Idle: it spins ({@code ring.idle.*}) reading neither the clock nor an empty ring (only its head,
 * one volatile read), then blocks on the ring's wake-up socket ({@code ring.wakeup}: a peer's commit
 * signals it, a hand-over wakes it) until at most the next liveness check or timer, and at most
 * {@code ring.idle.max-block-ms}; with {@code ring.wakeup: false} it backs off with parks instead.
 * Busy, it reads the clock once per 64 rounds.
 *
 * <p>Whatever escapes a round (a corrupt ring, a failing timer) marks this TaskManager's ring failed —
 * peers see that — loses every peer and ends the thread ({@link #failure}); the ring service then sends
 * new connections to Netty. On any end the thread releases every peer and closes the ring, deleting its
 * file.
 *
 * <p>Threading: {@link #start} and {@link #close} by the owning {@link RingService} (close blocks up to
 * 10 s joining the thread); {@link #isRunning}, {@link #failure} and {@link #isTerminated} from any
 * thread. The loop itself is the only thread that touches the protocol state.
 */
final class RingIoLoop {
    private static final Logger LOG = LoggerFactory.getLogger(RingIoLoop.class);
    private static final int POLL_LIMIT = 256;
    /** Busy loop rounds between two clock reads for the liveness check (each round is bounded by the budgets). */
    private static final int BUSY_ROUNDS_PER_CLOCK_READ = 64;
    private static final long JOIN_MILLIS = 10_000;

    private final RingSettings settings;
    private final LongSupplier nanoClock;
    private final RingHandOver handOver;
    private final RingMessageDecoder decoder;
    private final RingPeers peers;
    private final RingPartitionServer server;
    private final RingTimers timers;
    private final RingPeerLiveness liveness;
    private final Consumer<RingSubpartitionReader> onReaderAvailable;
    private final Consumer<RingChannelHandle> onCreditAvailable;

    private volatile RingConsumer ring;
    private volatile Thread thread;
    private volatile boolean running;
    private volatile Throwable failure;
    private int port = -1;

    RingIoLoop(RingSettings settings, LongSupplier nanoClock, RingHandOver handOver, RingMessageDecoder decoder,
            RingPeers peers, RingPartitionServer server, RingChannelDispatcher dispatcher, RingTimers timers,
            RingPeerLiveness liveness) {
        this.settings = settings;
        this.nanoClock = nanoClock;
        this.handOver = handOver;
        this.decoder = decoder;
        this.peers = peers;
        this.server = server;
        this.timers = timers;
        this.liveness = liveness;
        this.onReaderAvailable = server::onReaderAvailable;
        this.onCreditAvailable = dispatcher::onCreditAvailable;
    }

    /**
     * Creates the ring {@code ringName} and starts the thread {@code jetstream-ring-<port>} that owns it.
     *
     * @throws RuntimeException (a {@code RingFileException}) if the ring directory is unusable or full
     */
    RingConsumer start(String ringName, int port) {
        this.port = port;
        RingConsumer consumer = RingConsumer.create(settings, ringName);
        this.ring = consumer;
        this.running = true;
        Thread t = new Thread(this::run, "jetstream-ring-" + port);
        t.setDaemon(true);
        handOver.attach(t, consumer);
        this.thread = t;
        t.start();
        return consumer;
    }

    /** Started, not closed, and the loop did not fail. */
    boolean isRunning() {
        return running && failure == null;
    }

    /** What ended the loop, or null. */
    Throwable failure() {
        return failure;
    }

    /** Whether the thread ended (or never started). */
    boolean isTerminated() {
        Thread t = thread;
        return t == null || !t.isAlive();
    }

    private void run() {
        RingConsumer consumer = ring;
        IdleStrategy idle = settings.newIdleStrategy();
        int idleRounds = 0;
        int busyRounds = 0;
        int blockAfter = settings.idleSpins() + settings.idleYields();
        try {
            while (running) {
                // While spinning, neither the clock nor an empty poll (which reads it): profiled, the
                // clock reads of the spin were a fifth of this thread's CPU.
                boolean spinning = idleRounds > 0 && idleRounds < blockAfter;
                int work = !spinning || consumer.hasRecordAtHead() ? consumer.poll(decoder, POLL_LIMIT) : 0;
                work += handOver.drain(onReaderAvailable, onCreditAvailable);
                work += server.writeAll();
                if (!timers.isEmpty()) {
                    work += timers.runDue(nanoClock.getAsLong());
                }
                if (work > 0) {
                    idleRounds = 0;
                    idle.reset();
                    if ((++busyRounds & BUSY_ROUNDS_PER_CLOCK_READ - 1) == 0) {
                        liveness.checkIfDue(nanoClock.getAsLong());
                    }
                } else if (idleRounds + 1 < blockAfter) {
                    idleRounds++;
                    idle.idle();
                } else {
                    idleRounds = blockAfter; // done spinning: poll every round again, read the clock
                    long now = nanoClock.getAsLong();
                    liveness.checkIfDue(now);
                    if (consumer.hasWakeup() && !peers.hasPendingOutbound()) {
                        idleRounds = 0;
                        block(now);
                        idle.reset(); // after a block, spin briefly again before the next one
                    } else {
                        idle.idle();
                    }
                }
            }
        } catch (Throwable t) {
            failure = t;
            LOG.error("Ring service of TaskManager port {} failed; its channels fail, new connections use Netty", port, t);
            consumer.fail(t.toString());
            peers.loseAll("the ring service of this TaskManager failed: " + t);
        } finally {
            peers.releaseAll();
            consumer.close();
        }
    }

    /**
     * Idle for long: blocks on the ring's wake-up socket (a peer's commit, a hand-over, or until the
     * next liveness check or timer, at most {@code ring.idle.max-block-ms}), so an idle TaskManager
     * costs no CPU.
     */
    private void block(long now) {
        long until = liveness.nextCheck();
        if (!timers.isEmpty() && timers.nextDue() - until < 0) {
            until = timers.nextDue();
        }
        long millis = Math.min(settings.maxBlockMillis(), TimeUnit.NANOSECONDS.toMillis(until - now));
        if (millis < 1) {
            return;
        }
        handOver.blockUnlessHandedOver(decoder, POLL_LIMIT, millis);
    }

    /**
     * Stops the thread and joins it (at most 10 s; one that does not stop is logged and its ring closed
     * to producers, its file removed). A ring created but never served is closed here. Idempotent.
     */
    void close() {
        running = false;
        Thread t = thread;
        RingConsumer consumer = ring;
        if (t != null && consumer != null) {
            consumer.wake();
        }
        if (t == null) {
            if (consumer != null) {
                consumer.close();
            }
            return;
        }
        LockSupport.unpark(t);
        try {
            t.join(JOIN_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (t.isAlive()) {
            LOG.error("Ring I/O thread {} did not stop within {} ms", t.getName(), JOIN_MILLIS);
            consumer.closeForProducers();
        }
    }
}
