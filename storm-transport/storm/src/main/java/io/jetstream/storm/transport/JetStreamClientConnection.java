package io.jetstream.storm.transport;

import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import org.apache.storm.grouping.Load;
import org.apache.storm.messaging.ConnectionWithStatus;
import org.apache.storm.messaging.IConnection;
import org.apache.storm.messaging.TaskMessage;
import org.apache.storm.messaging.netty.BackPressureStatus;

/**
 * A client connection to one remote worker. It is a {@link ConnectionWithStatus} because the
 * worker activates only when every such connection reports {@code Ready}; the status is the
 * delegate's (a delegate without status counts as ready, as in Storm's {@code WorkerState}).
 *
 * <p>Threading contract (Storm's): {@link #send(Iterator)} is called only by the worker's single
 * transfer thread, which lets one reusable counting iterator serve every call without allocation.
 * The other methods may be called from any thread.
 */
final class JetStreamClientConnection extends ConnectionWithStatus {
    private final IConnection delegate;
    private final TransportMeters meters;
    /** Owned by the transfer thread. */
    private final CountingIterator counting = new CountingIterator();

    JetStreamClientConnection(IConnection delegate, TransportMeters meters) {
        this.delegate = delegate;
        this.meters = meters;
    }

    @Override
    public Status status() {
        return delegate instanceof ConnectionWithStatus withStatus ? withStatus.status() : Status.Ready;
    }

    @Override
    public void send(Iterator<TaskMessage> msgs) {
        counting.source = msgs;
        try {
            delegate.send(counting);
        } finally {
            counting.source = null;
        }
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
    public Map<Integer, Load> getLoad(Collection<Integer> tasks) {
        return delegate.getLoad(tasks);
    }

    @Override
    public int getPort() {
        return delegate.getPort();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return "JetStreamClientConnection[" + delegate + ']';
    }

    /** Counts each message as the delegate consumes it. */
    private final class CountingIterator implements Iterator<TaskMessage> {
        Iterator<TaskMessage> source;

        @Override
        public boolean hasNext() {
            return source.hasNext();
        }

        @Override
        public TaskMessage next() {
            TaskMessage message = source.next();
            meters.onSent(message);
            return message;
        }
    }
}
