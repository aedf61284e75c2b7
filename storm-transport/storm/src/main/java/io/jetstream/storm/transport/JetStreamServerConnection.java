package io.jetstream.storm.transport;

import java.util.Collection;
import java.util.Map;
import java.util.function.Function;
import org.apache.storm.grouping.Load;
import org.apache.storm.messaging.IConnection;
import org.apache.storm.messaging.IConnectionCallback;
import org.apache.storm.messaging.TaskMessage;
import org.apache.storm.messaging.netty.BackPressureStatus;
import org.apache.storm.metric.api.IStatefulObject;

/**
 * The worker's bound server connection. Received batches reach the worker's callback through
 * JetStream's counting callback. Implements {@link IStatefulObject} so that Storm's
 * {@code __recv-iconnection} metric keeps reporting the delegate's state.
 *
 * <p>Thread-safety: as the delegate; the callback runs on the delegate's I/O threads.
 */
final class JetStreamServerConnection implements IConnection, IStatefulObject {
    private final IConnection delegate;

    JetStreamServerConnection(IConnectionCallback countingCallback, Function<IConnectionCallback, IConnection> binder) {
        this.delegate = binder.apply(countingCallback);
    }

    @Override
    public void sendLoadMetrics(Map<Integer, Double> taskToLoad) {
        delegate.sendLoadMetrics(taskToLoad);
    }

    @Override
    public void sendBackPressureStatus(BackPressureStatus bpStatus) {
        delegate.sendBackPressureStatus(bpStatus);
    }

    @Override
    public void send(java.util.Iterator<TaskMessage> msgs) {
        delegate.send(msgs);
    }

    @Override
    public Map<Integer, Load> getLoad(Collection<Integer> tasks) {
        return delegate.getLoad(tasks);
    }

    @Override
    public int getPort() {
        return delegate.getPort();
    }

    @Override
    public Object getState() {
        return delegate instanceof IStatefulObject stateful ? stateful.getState() : Map.of();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return "JetStreamServerConnection[" + delegate + ']';
    }
}
