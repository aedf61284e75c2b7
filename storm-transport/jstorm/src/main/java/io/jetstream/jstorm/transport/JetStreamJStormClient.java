package io.jetstream.jstorm.transport;

import backtype.storm.messaging.IConnection;
import backtype.storm.messaging.TaskMessage;
import backtype.storm.utils.DisruptorQueue;
import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.Transport;
import io.jetstream.jstorm.transport.JetStreamJStormOptions.SendFlush;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.agrona.DirectBuffer;
import org.jboss.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JStorm worker's client connection to one remote worker: one JetStream {@link OutboundStream}.
 * Each tuple is offered to the stream (copied into the open batch: nothing is allocated per tuple
 * beyond the {@link TaskMessage} JStorm hands in), its task and message type carried in the record's
 * target ({@link JStormMessages}). Same-host workers get the receiver's shared-memory ring as their
 * route, other hosts adaptively batched TCP.
 *
 * <p><b>Threading.</b> Unlike Storm, JStorm calls {@code send()} from many threads at once: every
 * task's serialize threads ({@code TaskTransfer}), the transfer drainer and the control drainer
 * ({@code DrainerCtrlRunable}). An {@link OutboundStream} takes one producer at a time, so every
 * {@code send()} of a connection runs under that connection's monitor ({@code synchronized}, which
 * allocates nothing, unlike a contended {@code ReentrantLock}); one stream per connection keeps a
 * worker's tuples to one receiver in one ordered stream. The producer that leaves the monitor with
 * nobody else waiting for it ends the burst. With {@code jetstream.jstorm.send-flush: each-send-on-ring}
 * (the default) what the burst handed over leaves at once as one batch ({@link OutboundStream#flush})
 * while the receiver's shared-memory ring carries the stream ({@link OutboundStream#carriedByRing}: a ring
 * batch costs a claim, a copy and at most a wake-up, and JStorm has batched the tuples per target task
 * already); over TCP, where every batch is acknowledged, the stream's flush policy is told
 * ({@link OutboundStream#endOfSend}) and gathers what its deadline brings. {@code each-send} and
 * {@code batch-policy} do one or the other on every path. Concurrent producers share batches either way.
 *
 * <p><b>Cost.</b> Per {@code send()} call: one monitor enter and, at the end of a burst, the stream's
 * {@code flush} or {@code endOfSend} (each reads the clock once). Per tuple within the call: its record
 * target, two volatile reads (closed, {@link OutboundStream#isReady}) and the stream's {@code offer}
 * (a copy into the open batch); no clock read, lock or allocation. The clock is read per tuple only
 * while a send waits (not connected, pushed back). {@code JStormSendBenchmark} (benchmarks/jstorm)
 * measures both paths.
 *
 * <p><b>Contract.</b> {@code send()} never throws into the worker. While the stream is not connected
 * yet, or its receiver pushes back, the calling thread waits (as JStorm's own client blocks it) up to
 * {@code jetstream.jstorm.send-wait-ms}; then what that {@code send()} still holds is dropped,
 * counted ({@link JStormTransportMeters#dropped()}) and logged with the cause, JStorm's acking replays
 * it, and later {@code send()}s do not wait again until the stream takes a tuple. {@link #available()}
 * is "connected and not pushed back": JStorm uses it to activate a worker and to pick shuffle targets.
 * {@link #close()} delivers what was handed over, waiting at most
 * {@code jetstream.transport.close-timeout-ms} (and never longer than JStorm's own client, 10 s).
 */
final class JetStreamJStormClient implements IConnection {
    private static final Logger LOG = LoggerFactory.getLogger(JetStreamJStormClient.class);
    private static final byte[] EMPTY = new byte[0];
    private static final long LOG_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final OutboundStream stream;
    private final InetSocketAddress remote;
    private final JStormTransportMeters meters;
    private final long sendWaitNanos;
    /** {@code jstorm.send-flush}: whether a burst leaves at its end, always or on the ring, or when the flush policy says. */
    private final SendFlush sendFlush;
    private final JetStreamJStormContext context;
    /** The producers' monitor: one offers at a time. */
    private final Object producer = new Object();
    /** Producers waiting for or holding the monitor. */
    private final AtomicInteger producers = new AtomicInteger();
    private volatile boolean closed;
    /** Set when a wait timed out: sends offer once without waiting until the stream takes a tuple again. */
    private boolean givingUp;
    /** When the current send() stops waiting (0: it has not waited yet). Under the monitor. */
    private long sendDeadline;
    private long lastDropLogNanos;

    JetStreamJStormClient(Transport transport, String streamId, InetSocketAddress remote, JStormTransportMeters meters,
            long sendWaitNanos, SendFlush sendFlush, JetStreamJStormContext context) {
        this.sendFlush = sendFlush;
        this.remote = remote;
        this.meters = meters;
        this.sendWaitNanos = sendWaitNanos;
        this.context = context;
        this.stream = transport.openSender(streamId, remote, new Controls());
    }

    /** CONTROL frames from the receiving worker: JStorm's transport has none on this path (its back-pressure is the stream's window). */
    private final class Controls implements ControlListener {
        @Override
        public void onControl(int tag, DirectBuffer buffer, int offset, int length) {
            LOG.warn("Connection to {}: unexpected control frame (tag {}, {} bytes) ignored", remote, tag, length);
        }
    }

    @Override
    public void send(TaskMessage message) {
        if (message == null) {
            return;
        }
        producers.incrementAndGet();
        synchronized (producer) {
            producers.decrementAndGet();
            sendDeadline = 0;
            int result = offer(message);
            if (result == OutboundStream.ACCEPTED) {
                meters.onSent(1, length(message));
            } else {
                dropped(1, result);
            }
            endOfBurst();
        }
    }

    @Override
    public void send(List<TaskMessage> messages) {
        if (messages == null || messages.isEmpty()) {
            return;
        }
        producers.incrementAndGet();
        synchronized (producer) {
            producers.decrementAndGet();
            sendDeadline = 0;
            int records = 0;
            long bytes = 0;
            long dropped = 0;
            int lastRefusal = OutboundStream.ACCEPTED;
            for (int i = 0, n = messages.size(); i < n; i++) {
                TaskMessage m = messages.get(i);
                if (m == null) {
                    continue;
                }
                int result = offer(m);
                if (result == OutboundStream.ACCEPTED) {
                    records++;
                    bytes += length(m);
                } else {
                    dropped++;
                    lastRefusal = result;
                }
            }
            if (records > 0) {
                meters.onSent(records, bytes);
            }
            if (dropped > 0) {
                dropped(dropped, lastRefusal);
            }
            endOfBurst();
        }
    }

    /**
     * Offers one message, waiting while the stream is not connected or pushes back, until
     * {@link #sendDeadline} (0: now + send-wait, set by the first wait of the send()). Under the monitor.
     *
     * @return ACCEPTED or why it was refused
     */
    private int offer(TaskMessage m) {
        int target;
        try {
            target = JStormMessages.target(m.get_type(), m.task());
        } catch (IllegalArgumentException e) {
            LOG.error("Connection to {}: {}; tuple dropped", remote, e.getMessage());
            return OutboundStream.FAILED;
        }
        byte[] payload = m.message();
        if (payload == null) {
            payload = EMPTY;
        }
        int idle = 0;
        while (true) {
            int result;
            if (closed) {
                return OutboundStream.CLOSED;
            }
            if (!stream.isReady() && !givingUp) {
                result = OutboundStream.NOT_CONNECTED; // wait for the route rather than drop at once (JStorm buffers too)
            } else {
                try {
                    result = stream.offer(target, payload, 0, payload.length);
                } catch (IllegalArgumentException e) {
                    LOG.error("Connection to {}: a tuple of {} bytes for task {} is larger than a frame (jetstream.transport."
                            + "max-frame-bytes); dropped", remote, payload.length, m.task());
                    return OutboundStream.FAILED;
                }
                if (result == OutboundStream.ACCEPTED) {
                    givingUp = false;
                    return OutboundStream.ACCEPTED;
                }
                if (result != OutboundStream.BACK_PRESSURED) {
                    return result; // NOT_CONNECTED (dropped and counted by the stream), CLOSED, FAILED
                }
            }
            if (givingUp || sendWaitNanos == 0 || Thread.currentThread().isInterrupted()) {
                return result;
            }
            long now = System.nanoTime();
            if (sendDeadline == 0) {
                sendDeadline = now + sendWaitNanos;
            } else if (now - sendDeadline >= 0) {
                givingUp = true;
                return result;
            }
            idle = idle(idle);
        }
    }

    /** Spins briefly, then parks for growing periods up to 1 ms. */
    private static int idle(int idle) {
        if (idle < 64) {
            Thread.onSpinWait();
        } else if (idle < 96) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(Math.min(1_000_000L, 10_000L << Math.min(7, (idle - 96) / 16)));
        }
        return idle + 1;
    }

    /**
     * The last producer of a burst sends what the stream holds ({@code each-send}, or
     * {@code each-send-on-ring} while the ring carries the stream) or tells the flush policy that the
     * burst ended. Under the monitor.
     */
    private void endOfBurst() {
        if (producers.get() == 0 && !closed) {
            if (sendFlush == SendFlush.EACH_SEND || sendFlush == SendFlush.EACH_SEND_ON_RING && stream.carriedBySharedMemory()) {
                stream.flush();
            } else {
                stream.endOfSend();
            }
        }
    }

    private static long length(TaskMessage m) {
        byte[] p = m.message();
        return p == null ? 0 : p.length;
    }

    /** Counts (and, at most every 10 s, logs with the cause) tuples a send() gave up. Under the monitor. */
    private void dropped(long count, int result) {
        meters.onDropped(count);
        long now = System.nanoTime();
        if (lastDropLogNanos == 0 || now - lastDropLogNanos > LOG_EVERY_NANOS) {
            lastDropLogNanos = now;
            String cause = switch (result) {
                case OutboundStream.CLOSED -> "the connection is closed";
                case OutboundStream.FAILED -> stream.failure().map(Throwable::toString).orElse("the tuple cannot travel (see above)");
                case OutboundStream.NOT_CONNECTED -> "the remote worker was not connected within jetstream.jstorm.send-wait-ms";
                default -> "the remote worker pushed back for longer than jetstream.jstorm.send-wait-ms";
            };
            LOG.warn("Connection to {}: dropped {} tuples ({}); JStorm's acking replays them. Stream: {}", remote, count, cause,
                    stream.metrics());
        }
    }

    /** Connected and not pushed back: JStorm activates a worker and picks shuffle targets by it. */
    @Override
    public boolean available() {
        return !closed && stream.isReady() && !stream.isBackPressured();
    }

    @Override
    public Object recv(Integer taskId, int flags) {
        throw new UnsupportedOperationException("a client connection does not receive messages");
    }

    @Override
    public void registerQueue(Integer taskId, DisruptorQueue recvQueue) {
        throw new UnsupportedOperationException("a client connection does not receive messages");
    }

    @Override
    public void enqueue(TaskMessage message, Channel channel) {
        throw new UnsupportedOperationException("a client connection does not receive messages");
    }

    /** The JetStream stream underneath (tests, metrics). */
    OutboundStream stream() {
        return stream;
    }

    /**
     * Delivers what was handed over (waiting at most the close timeout), then closes. A send() racing it
     * drops and counts. Never throws.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            stream.close();
        } catch (RuntimeException e) {
            LOG.warn("Closing the connection to {} failed: {}", remote, e.toString());
        }
        context.forget(this);
        LOG.info("Connection to {} closed: {}", remote, stream.metrics());
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return "JetStreamJStormClient[" + remote + "]";
    }
}
