package io.jetstream.jstorm.transport;

import backtype.storm.messaging.IConnection;
import backtype.storm.messaging.TaskMessage;
import backtype.storm.utils.DisruptorQueue;
import backtype.storm.utils.DisruptorQueueImpl;
import io.jetstream.core.api.DeliveryHandler;
import io.jetstream.core.api.InboundEndpoint;
import io.jetstream.core.api.RecordConsumer;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.StreamKey;
import io.jetstream.core.api.Transport;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.agrona.DirectBuffer;
import org.jboss.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shade.storm.com.lmax.disruptor.InsufficientCapacityException;

/**
 * A JStorm worker's bound server: a JetStream {@link InboundEndpoint} whose records reach the worker
 * as JStorm's own server delivers them ({@code NettyServer.enqueue}, 2.2.1): a normal tuple's payload
 * into its task's receive queue (the worker's live map, which its tasks fill after the bind, or
 * {@link #registerQueue}), a control message as a {@link TaskMessage} into the worker's control
 * queue. Before the first delivery it waits, as JStorm does, until every task of the worker has a
 * queue (unless bound with {@code startReceiving}); a tuple for a task with no queue is dropped,
 * counted and logged.
 *
 * <p><b>Back-pressure without blocking the transport for ever.</b> Records are published without
 * blocking: a delivered batch's tuples for one task together ({@code publishDirect(list, false)}),
 * else one by one ({@code publish(item, false)}). When a task queue is full the delivering thread (a Netty
 * I/O thread, or the ring thread for same-host workers) waits, holding the batch: the batch is
 * acknowledged only when delivery returns, so the sending worker's window fills and its
 * {@code send()} waits — JStorm's blocking publish turned into end-to-end back-pressure. The wait is
 * bounded by {@code jetstream.jstorm.deliver-wait-ms} per batch: then the rest of the batch goes to
 * the queue's overflow cache, which the task drains first (what JStorm's server does under its flow
 * control), so that a cycle of full queues between workers cannot block the transport for ever, and
 * nothing handed over is lost. Overflowed tuples are counted and logged.
 *
 * <p><b>Threading.</b> Deliveries run on the transport's I/O threads and ring thread, one sending
 * worker's batches never concurrently; the queues are JStorm's multi-producer queues.
 * {@link #recv}, {@link #registerQueue}, {@link #enqueue} and {@link #close} from any thread.
 */
final class JetStreamJStormServer implements IConnection {
    private static final Logger LOG = LoggerFactory.getLogger(JetStreamJStormServer.class);
    private static final long LOG_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** How long a delivery waits for the worker's tasks to register their queues (JStorm waits for ever). */
    private static final long REGISTRATION_WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** Every open server of this JVM, for {@link JetStreamJStormContext#processTotals()}. */
    static final List<JetStreamJStormServer> OPEN = new CopyOnWriteArrayList<>();

    private final InboundEndpoint receiver;
    private final int port;
    private final ConcurrentHashMap<Integer, DisruptorQueue> queues;
    private final DisruptorQueue controlQueue;
    private final Set<Integer> workerTasks;
    private final JStormTransportMeters meters;
    private final long deliverWaitNanos;
    private final JetStreamJStormContext context;
    private volatile boolean startReceiving;
    private volatile boolean closed;
    private volatile long lastLogNanos;

    JetStreamJStormServer(Transport transport, int port, ConcurrentHashMap<Integer, DisruptorQueue> queues,
            DisruptorQueue controlQueue, boolean startReceiving, Set<Integer> workerTasks, JStormTransportMeters meters,
            long deliverWaitNanos, JetStreamJStormContext context) {
        this.queues = queues == null ? new ConcurrentHashMap<>() : queues;
        this.controlQueue = controlQueue;
        this.workerTasks = workerTasks == null ? Set.of() : workerTasks;
        this.startReceiving = startReceiving;
        this.meters = meters;
        this.deliverWaitNanos = deliverWaitNanos;
        this.context = context;
        try {
            this.receiver = transport.bind(port, new Delivery(), target -> target >= 0, SequenceStore.inMemory());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while binding port " + port, e);
        }
        this.port = receiver.localAddress().getPort();
        OPEN.add(this);
        LOG.info("JetStream server of this JStorm worker bound to port {} ({}), tasks {}", this.port,
                receiver.ringUsable() ? "same-host workers write to its shared-memory ring" : "TCP only", this.workerTasks);
    }

    /** One delivered batch: each record to its queue, waiting for room at most deliver-wait-ms in all. */
    private final class Delivery implements DeliveryHandler {
        /** Each delivering thread's batch state (several streams may be delivered at once, on different threads). */
        private final ThreadLocal<BatchState> state = ThreadLocal.withInitial(BatchState::new);

        @Override
        public void deliver(StreamKey stream, long sequence, DeliveredBatch records) {
            BatchState s = state.get();
            s.deadline = 0;
            s.records = 0;
            s.bytes = 0;
            s.overflowed = 0;
            s.dropped = 0;
            records.forEach(s);
            s.publishPending();
            meters.onReceived(s.records, s.bytes);
            if (s.overflowed > 0) {
                meters.onOverflow(s.overflowed);
                logAtMostEvery10s("{} tuples from {} went to full task queues' overflow caches after waiting "
                        + "jetstream.jstorm.deliver-wait-ms: the receiving tasks are slower than their input", s.overflowed, stream.peerId());
            }
            if (s.dropped > 0) {
                meters.onDropped(s.dropped);
            }
        }
    }

    /**
     * What one delivering thread knows about the batch it delivers. A batch's tuples for one task are
     * gathered and published into its queue together at the end of the batch (one claim and one
     * wake-up of the task's consumer per batch, where JStorm's own server batches per thread with a
     * 5 ms flush timer), in the order they were sent.
     */
    private final class BatchState implements RecordConsumer {
        final java.util.Map<DisruptorQueue, ArrayList<Object>> pending = new java.util.IdentityHashMap<>();
        final ArrayList<ArrayList<Object>> spare = new ArrayList<>();
        long deadline;
        int records;
        long bytes;
        long overflowed;
        long dropped;

        @Override
        public void accept(int target, DirectBuffer buffer, int offset, int length) {
            byte[] payload = new byte[length];
            buffer.getBytes(offset, payload);
            short type = JStormMessages.type(target);
            int task = JStormMessages.task(target);
            if (!deliver(type, task, payload, this)) {
                dropped++;
            } else {
                records++;
                bytes += length;
            }
        }

        void add(DisruptorQueue queue, Object item) {
            ArrayList<Object> list = pending.get(queue);
            if (list == null) {
                list = spare.isEmpty() ? new ArrayList<>() : spare.remove(spare.size() - 1);
                pending.put(queue, list);
            }
            list.add(item);
        }

        void publishPending() {
            if (pending.isEmpty()) {
                return;
            }
            for (java.util.Map.Entry<DisruptorQueue, ArrayList<Object>> e : pending.entrySet()) {
                publishAll(e.getKey(), e.getValue(), this);
                e.getValue().clear();
                spare.add(e.getValue());
            }
            pending.clear();
        }
    }

    /** Publishes a batch's items for one queue at once if there is room for all, else one by one (waiting, overflowing). */
    private void publishAll(DisruptorQueue queue, List<Object> items, BatchState batch) {
        if (items.size() > 1 && queue instanceof DisruptorQueueImpl impl) {
            try {
                impl.publishDirect(items, false);
                return;
            } catch (InsufficientCapacityException full) {
                // not room for all of them: one by one below
            }
        }
        for (int i = 0, n = items.size(); i < n; i++) {
            publish(queue, items.get(i), batch);
        }
    }

    /**
     * Hands one message to the worker as {@code NettyServer.enqueue} does.
     *
     * @param batch the batch being delivered (its wait deadline and counters), or null for a legacy enqueue
     * @return false if it was dropped
     */
    private boolean deliver(short type, int task, byte[] payload, BatchState batch) {
        awaitQueues();
        if (type == TaskMessage.NORMAL_MESSAGE) {
            DisruptorQueue queue = queues.get(task);
            if (queue == null) {
                queue = awaitQueue(task);
                if (queue == null) {
                    logAtMostEvery10s("Received a tuple for task {}, which has no receive queue in this worker (tasks {}): dropped",
                            task, workerTasks);
                    return false;
                }
            }
            if (batch != null) {
                batch.add(queue, payload);
            } else {
                publish(queue, payload, null);
            }
            return true;
        }
        if (type == TaskMessage.CONTROL_MESSAGE) {
            if (controlQueue == null) {
                logAtMostEvery10s("Received a control message for task {} but this worker has no control queue: dropped", task, null);
                return false;
            }
            publish(controlQueue, new TaskMessage(type, task, payload), batch);
            return true;
        }
        logAtMostEvery10s("Unexpected message type {} for task {}: dropped", type, task);
        return false;
    }

    /** Publishes without blocking; while the queue is full waits until the batch's deadline, then overflows. */
    private void publish(DisruptorQueue queue, Object item, BatchState batch) {
        int idle = 0;
        while (true) {
            try {
                queue.publish(item, false);
                return;
            } catch (InsufficientCapacityException full) {
                long now = System.nanoTime();
                if (batch != null && batch.deadline == 0) {
                    batch.deadline = now + deliverWaitNanos;
                }
                if (closed || batch == null || now - batch.deadline >= 0) {
                    queue.publishCache(item);
                    if (batch != null) {
                        batch.overflowed++;
                    } else {
                        meters.onOverflow(1);
                    }
                    return;
                }
                if (idle < 32) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.parkNanos(idle < 64 ? 20_000L : 200_000L);
                }
                idle++;
            }
        }
    }

    /** Waits, as JStorm's server does, until every task of the worker has its queue (bounded). */
    private void awaitQueues() {
        if (startReceiving) {
            return;
        }
        long deadline = System.nanoTime() + REGISTRATION_WAIT_NANOS;
        while (!closed) {
            boolean all = true;
            for (Integer task : workerTasks) {
                if (queues.get(task) == null) {
                    all = false;
                    break;
                }
            }
            if (all) {
                startReceiving = true;
                return;
            }
            if (System.nanoTime() - deadline >= 0) {
                LOG.warn("Not every task of this worker registered its receive queue within {} s; delivering anyway",
                        TimeUnit.NANOSECONDS.toSeconds(REGISTRATION_WAIT_NANOS));
                startReceiving = true;
                return;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    /** A worker task's queue that is not registered yet: wait for it (bounded); null for a task of another worker. */
    private DisruptorQueue awaitQueue(int task) {
        if (!workerTasks.contains(task)) {
            return null;
        }
        long deadline = System.nanoTime() + REGISTRATION_WAIT_NANOS;
        DisruptorQueue queue;
        while ((queue = queues.get(task)) == null && !closed && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        return queue;
    }

    private void logAtMostEvery10s(String format, Object a, Object b) {
        long now = System.nanoTime();
        long last = lastLogNanos;
        if (last == 0 || now - last > LOG_EVERY_NANOS) {
            lastLogNanos = now;
            LOG.warn("JStorm worker port " + port + ": " + format, a, b);
        }
    }

    /** JStorm's legacy receive: a task's next message, without blocking when {@code (flags & 1) == 1}. */
    @Override
    public Object recv(Integer taskId, int flags) {
        DisruptorQueue queue = queues.get(taskId);
        if (queue == null) {
            return null;
        }
        return (flags & 0x01) == 0x01 ? queue.poll() : queue.take();
    }

    @Override
    public void registerQueue(Integer taskId, DisruptorQueue recvQueue) {
        queues.put(taskId, recvQueue);
    }

    /** JStorm's legacy direct enqueue: a message delivered as if it had arrived (the channel is not used). */
    @Override
    public void enqueue(TaskMessage message, Channel channel) {
        if (message == null) {
            return;
        }
        byte[] payload = message.message();
        if (deliver(message.get_type(), message.task(), payload, null)) {
            meters.onReceived(1, payload == null ? 0 : payload.length);
        } else {
            meters.onDropped(1);
        }
    }

    @Override
    public void send(List<TaskMessage> messages) {
        throw new UnsupportedOperationException("a worker's server connection does not send messages");
    }

    @Override
    public void send(TaskMessage message) {
        throw new UnsupportedOperationException("a worker's server connection does not send messages");
    }

    /** Batches received over the shared-memory ring and over TCP so far. */
    long[] routeBatches() {
        long ring = receiver.metrics().ringBatches();
        return new long[] {ring, Math.max(0, receiver.metrics().batchesReceived() - ring)};
    }

    @Override
    public boolean available() {
        return !closed;
    }

    /** The JetStream receiver underneath (tests, metrics). */
    InboundEndpoint receiver() {
        return receiver;
    }

    int port() {
        return port;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        receiver.close();
        long[] routes = routeBatches();
        OPEN.remove(this);
        meters.onReceiverClosed(routes[0], routes[1]);
        context.forget(this);
        LOG.info("JetStream server on port {} closed: {} ring batches, {} TCP batches, {}", port, routes[0], routes[1],
                receiver.metrics());
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return "JetStreamJStormServer[port " + port + "]";
    }
}
