package io.jetstream.flink.ring;

import io.jetstream.core.ring.RecordHandler;
import io.jetstream.core.ring.RingConsumer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What other threads hand to the ring I/O thread, and how they wake it: readers whose view has data
 * ({@link #readerAvailable}), channels with credit to announce ({@link #creditAvailable}) — both per
 * buffer, so a de-duplicating flag and a lock-free array queue, no allocation — and rare commands
 * ({@link #execute}).
 *
 * <p>Threading: {@link #execute}, {@link #readerAvailable}, {@link #creditAvailable} and {@link #wake}
 * from any thread, never blocking (a full array queue spills into an unbounded one). {@link #attach} by
 * the thread that starts the I/O thread, before it runs. {@link #drain}, {@link #isEmpty} and
 * {@link #blockUnlessHandedOver} only on the I/O thread, which alone may block, in the last.
 */
final class RingHandOver {
    private static final Logger LOG = LoggerFactory.getLogger(RingHandOver.class);
    private static final int QUEUE_CAPACITY = 4096;

    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final ManyToOneConcurrentArrayQueue<RingSubpartitionReader> availableReaders =
            new ManyToOneConcurrentArrayQueue<>(QUEUE_CAPACITY);
    private final ManyToOneConcurrentArrayQueue<RingChannelHandle> creditHandles =
            new ManyToOneConcurrentArrayQueue<>(QUEUE_CAPACITY);
    /** Where notifications go when the array queues are full (rare: more than 4096 pending). */
    private final ConcurrentLinkedQueue<RingSubpartitionReader> spilledReaders = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<RingChannelHandle> spilledHandles = new ConcurrentLinkedQueue<>();

    private volatile Thread ioThread;
    private volatile RingConsumer ring;
    /** Set while the I/O thread may block on the ring's wake-up socket: notifiers then wake it. */
    private volatile boolean blocking;

    /** The I/O thread to wake and the ring whose wake-up socket it blocks on. Before the thread starts. */
    void attach(Thread thread, RingConsumer consumer) {
        this.ring = consumer;
        this.ioThread = thread;
    }

    /** Runs {@code command} on the I/O thread. Any thread. */
    void execute(Runnable command) {
        commands.add(command);
        wake();
    }

    /** A view has data: queue its reader for the I/O thread. Task threads; no allocation. */
    void readerAvailable(RingSubpartitionReader reader) {
        if (reader.notificationQueued.compareAndSet(false, true)) {
            if (!availableReaders.offer(reader)) {
                spilledReaders.add(reader);
            }
            wake();
        }
    }

    /** A channel has credit to announce. Task or buffer-recycling threads; no allocation. */
    void creditAvailable(RingChannelHandle handle) {
        if (handle.creditQueued.compareAndSet(false, true)) {
            if (!creditHandles.offer(handle)) {
                spilledHandles.add(handle);
            }
            wake();
        }
    }

    /**
     * Wakes the I/O thread after something was queued for it: unparks it, and if it may be blocked on
     * the wake-up socket, wakes that (a syscall, made only then). The queue's offer (a volatile write)
     * comes before the read of {@link #blocking}, and the I/O thread's write of {@link #blocking} before
     * its last look at the queues: one of the two always sees the other. Any thread.
     */
    void wake() {
        Thread t = ioThread;
        if (t != null) {
            LockSupport.unpark(t);
            if (blocking) {
                RingConsumer c = ring;
                if (c != null) {
                    c.wake();
                }
            }
        }
    }

    /**
     * Hands every queued reader to {@code onReader}, every queued channel to {@code onCredit}, then runs
     * the commands (a failing command is logged, the others still run). I/O thread.
     *
     * @return how many items it handled
     */
    int drain(Consumer<RingSubpartitionReader> onReader, Consumer<RingChannelHandle> onCredit) {
        int work = availableReaders.drain(onReader) + creditHandles.drain(onCredit);
        if (!spilledReaders.isEmpty() || !spilledHandles.isEmpty()) {
            work += drainSpilled(onReader, onCredit);
        }
        Runnable command;
        while ((command = commands.poll()) != null) {
            work++;
            try {
                command.run();
            } catch (RuntimeException e) {
                LOG.error("Ring command failed", e);
            }
        }
        return work;
    }

    private int drainSpilled(Consumer<RingSubpartitionReader> onReader, Consumer<RingChannelHandle> onCredit) {
        int work = 0;
        RingSubpartitionReader reader;
        while ((reader = spilledReaders.poll()) != null) {
            onReader.accept(reader);
            work++;
        }
        RingChannelHandle handle;
        while ((handle = spilledHandles.poll()) != null) {
            onCredit.accept(handle);
            work++;
        }
        return work;
    }

    /** Whether nothing waits for the I/O thread. I/O thread. */
    boolean isEmpty() {
        return commands.isEmpty() && availableReaders.isEmpty() && creditHandles.isEmpty()
                && spilledReaders.isEmpty() && spilledHandles.isEmpty();
    }

    /** Whether the I/O thread announced that it may block (tests wait for it before handing over). */
    boolean isBlocking() {
        return blocking;
    }

    /**
     * Blocks on the ring's wake-up socket (delivering to {@code inbound} what arrives first, at most
     * {@code limit} records) for at most {@code millis}, unless something was handed over: announces
     * the block before its last look at the queues (see {@link #wake}). I/O thread.
     */
    void blockUnlessHandedOver(RecordHandler inbound, int limit, long millis) {
        blocking = true;
        try {
            if (isEmpty()) {
                ring.pollOrAwait(inbound, limit, millis);
            }
        } finally {
            blocking = false;
        }
    }
}
