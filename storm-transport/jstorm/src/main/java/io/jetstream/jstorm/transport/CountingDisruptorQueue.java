package io.jetstream.jstorm.transport;

import backtype.storm.utils.DisruptorQueue;
import com.alibaba.jstorm.callback.Callback;
import java.util.List;
import shade.storm.com.lmax.disruptor.AlertException;
import shade.storm.com.lmax.disruptor.EventHandler;
import shade.storm.com.lmax.disruptor.InsufficientCapacityException;
import shade.storm.com.lmax.disruptor.TimeoutException;

/**
 * The {@code jstorm-netty} data path: a worker receive queue that counts what a JStorm server publishes into it, then forwards
 * everything to the worker's queue. Only the publishing side is counted: that is the transport's
 * delivery; the consuming side is the worker's and is forwarded untouched.
 *
 * <p>Thread-safety: as the delegate queue.
 */
final class CountingDisruptorQueue extends DisruptorQueue {
    private final DisruptorQueue delegate;
    private final JStormTransportMeters meters;

    CountingDisruptorQueue(DisruptorQueue delegate, JStormTransportMeters meters) {
        this.delegate = delegate;
        this.meters = meters;
    }

    /** The worker's queue this one forwards to. */
    DisruptorQueue delegate() {
        return delegate;
    }

    private void count(Object item) {
        meters.onReceived(1, item instanceof byte[] bytes ? bytes.length : 0);
    }

    @Override
    public void publish(Object obj) {
        count(obj);
        delegate.publish(obj);
    }

    @Override
    public void publish(Object obj, boolean block) throws InsufficientCapacityException {
        delegate.publish(obj, block);
        count(obj);
    }

    @Override
    public void publishBatch(Object obj) {
        if (obj instanceof List<?> batch) {
            for (Object item : batch) {
                count(item);
            }
        } else {
            count(obj);
        }
        delegate.publishBatch(obj);
    }

    @Override
    public void publishCache(Object obj) {
        count(obj);
        delegate.publishCache(obj);
    }

    @Override
    public void publishCallback(Callback callback) {
        delegate.publishCallback(callback);
    }

    @Override
    public String getName() {
        return delegate.getName();
    }

    @Override
    public void haltWithInterrupt() {
        delegate.haltWithInterrupt();
    }

    @Override
    public Object poll() {
        return delegate.poll();
    }

    @Override
    public Object take() {
        return delegate.take();
    }

    @Override
    public void consumeBatch(EventHandler<Object> handler) {
        delegate.consumeBatch(handler);
    }

    @Override
    public void consumeBatchWhenAvailable(EventHandler<Object> handler) {
        delegate.consumeBatchWhenAvailable(handler);
    }

    @Override
    public void consumeBatchWhenAvailableWithCallback(EventHandler<Object> handler) {
        delegate.consumeBatchWhenAvailableWithCallback(handler);
    }

    @Override
    public void multiConsumeBatchWhenAvailable(EventHandler<Object> handler) {
        delegate.multiConsumeBatchWhenAvailable(handler);
    }

    @Override
    public void multiConsumeBatchWhenAvailableWithCallback(EventHandler<Object> handler) {
        delegate.multiConsumeBatchWhenAvailableWithCallback(handler);
    }

    @Override
    public void consumeBatchWhenAvailable(EventHandler<Object> handler, boolean isSync) {
        delegate.consumeBatchWhenAvailable(handler, isSync);
    }

    @Override
    public void clear() {
        delegate.clear();
    }

    @Override
    public long population() {
        return delegate.population();
    }

    @Override
    public long capacity() {
        return delegate.capacity();
    }

    @Override
    public long writePos() {
        return delegate.writePos();
    }

    @Override
    public long readPos() {
        return delegate.readPos();
    }

    @Override
    public float pctFull() {
        return delegate.pctFull();
    }

    @Override
    public int cacheSize() {
        return delegate.cacheSize();
    }

    @Override
    public List<Object> retreiveAvailableBatch() throws AlertException, InterruptedException, TimeoutException {
        return delegate.retreiveAvailableBatch();
    }

    @Override
    public Object getState() {
        return delegate.getState();
    }
}
