package io.jetstream.jstorm.transport;

import backtype.storm.utils.DisruptorQueue;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code jstorm-netty} data path: the worker's per-task receive queues as JStorm's own server sees them: a live view
 * of the worker's map whose queues count what the server publishes.
 *
 * <p>A JStorm 2.2.1 worker binds its server with an empty map and each task puts its queue into
 * that same map when it starts ({@code Task}), after the bind; the server waits until every task of
 * the worker has a queue there before it delivers anything ({@code NettyServer.enqueue}). So the
 * map handed to the server must follow the worker's map, not copy it at bind time: a copy never
 * fills, and the server waits for ever (found in a real two-host JStorm cluster, see
 * {@code JStormClusterITCase}).
 *
 * <p>JStorm's server uses {@link #get} and {@link #put} only ({@code NettyServer}, 2.2.1); both, and
 * {@link #containsKey}, {@link #remove}, {@link #size} and {@link #isEmpty}, read or write the
 * worker's map. Each task's queue is wrapped once, when first looked up, and again only if the
 * worker replaces it; iterating this map sees the wrappers made so far.
 *
 * <p>Thread-safe: the server's threads look queues up concurrently with the tasks putting them.
 */
final class CountingQueueMap extends ConcurrentHashMap<Integer, DisruptorQueue> {
    private static final long serialVersionUID = 1L;

    private final transient ConcurrentHashMap<Integer, DisruptorQueue> worker;
    private final transient JStormTransportMeters received;

    CountingQueueMap(ConcurrentHashMap<Integer, DisruptorQueue> worker, JStormTransportMeters received) {
        this.worker = Objects.requireNonNull(worker, "worker");
        this.received = Objects.requireNonNull(received, "received");
    }

    @Override
    public DisruptorQueue get(Object task) {
        DisruptorQueue queue = worker.get(task);
        if (queue == null) {
            return null;
        }
        DisruptorQueue wrapped = super.get(task);
        if (wrapped instanceof CountingDisruptorQueue counting && counting.delegate() == queue) {
            return wrapped;
        }
        CountingDisruptorQueue counting = new CountingDisruptorQueue(queue, received);
        super.put((Integer) task, counting);
        return counting;
    }

    @Override
    public DisruptorQueue put(Integer task, DisruptorQueue queue) {
        super.remove(task);
        return worker.put(task, queue);
    }

    @Override
    public DisruptorQueue remove(Object task) {
        super.remove(task);
        return worker.remove(task);
    }

    @Override
    public boolean containsKey(Object task) {
        return worker.containsKey(task);
    }

    @Override
    public int size() {
        return worker.size();
    }

    @Override
    public boolean isEmpty() {
        return worker.isEmpty();
    }
}
