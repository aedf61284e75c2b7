package io.jetstream.jstorm.transport;

import backtype.storm.messaging.IConnection;
import backtype.storm.messaging.TaskMessage;
import backtype.storm.utils.DisruptorQueue;
import java.util.List;
import org.jboss.netty.channel.Channel;

/**
 * The {@code jstorm-netty} data path: a JStorm Netty connection (client or server) that counts what the worker sends through it; queues
 * registered later on a server are wrapped to count what it receives.
 *
 * <p>Thread-safety: as the delegate; {@link JStormTransportMeters} is thread-safe.
 */
final class JetStreamJStormConnection implements IConnection {
    private final IConnection delegate;
    private final JStormTransportMeters meters;

    JetStreamJStormConnection(IConnection delegate, JStormTransportMeters meters) {
        this.delegate = delegate;
        this.meters = meters;
    }

    @Override
    public Object recv(Integer taskId, int flags) {
        return delegate.recv(taskId, flags);
    }

    @Override
    public void registerQueue(Integer taskId, DisruptorQueue recvQueue) {
        delegate.registerQueue(taskId, new CountingDisruptorQueue(recvQueue, meters));
    }

    @Override
    public void enqueue(TaskMessage message, Channel channel) {
        delegate.enqueue(message, channel);
    }

    @Override
    public void send(List<TaskMessage> messages) {
        long bytes = 0;
        for (int i = 0, n = messages.size(); i < n; i++) {
            bytes += payloadBytes(messages.get(i));
        }
        delegate.send(messages);
        meters.onSent(messages.size(), bytes);
    }

    @Override
    public void send(TaskMessage message) {
        delegate.send(message);
        meters.onSent(1, payloadBytes(message));
    }

    private static long payloadBytes(TaskMessage message) {
        byte[] payload = message.message();
        return payload == null ? 0 : payload.length;
    }

    @Override
    public boolean available() {
        return delegate.available();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public boolean isClosed() {
        return delegate.isClosed();
    }

    @Override
    public String toString() {
        return "JetStreamJStormConnection[" + delegate + ']';
    }
}
