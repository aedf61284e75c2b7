package io.jetstream.storm.transport.contract;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.storm.messaging.IConnectionCallback;
import org.apache.storm.messaging.TaskMessage;

/**
 * A server's callback that keeps what it receives, as the worker's
 * {@code DeserializingConnectionCallback} uses it: each message is read inside {@code recv} (its
 * payload copied: a transport may reuse its buffers once {@code recv} returns) and nothing of the
 * batch is kept.
 *
 * <p>Thread-safe: {@code recv} may run on any of the transport's threads, the test reads from its own.
 */
final class ReceivedMessages implements IConnectionCallback {
    /** One delivered message: its task and a copy of its payload ({@code null} stays {@code null}). */
    record Received(int task, byte[] payload) {}

    private final List<Received> received = new ArrayList<>();
    private final Set<String> recvThreads = ConcurrentHashMap.newKeySet();
    private volatile Consumer<List<TaskMessage>> onBatch = batch -> {};

    /** Runs {@code action} on the receiving thread before each batch is kept (to stall it, or to answer from it). */
    void onEachBatch(Consumer<List<TaskMessage>> action) {
        this.onBatch = action;
    }

    @Override
    public void recv(List<TaskMessage> batch) {
        recvThreads.add(Thread.currentThread().getName());
        onBatch.accept(batch);
        List<Received> copies = new ArrayList<>(batch.size());
        for (TaskMessage message : batch) {
            byte[] payload = message.message();
            copies.add(new Received(message.task(), payload == null ? null : payload.clone()));
        }
        synchronized (this) {
            received.addAll(copies);
        }
    }

    synchronized int size() {
        return received.size();
    }

    synchronized Received get(int index) {
        return received.get(index);
    }

    synchronized List<Received> snapshot() {
        return new ArrayList<>(received);
    }

    synchronized long countForTask(int task) {
        return received.stream().filter(r -> r.task() == task).count();
    }

    /** Names of the threads {@code recv} ran on. */
    Set<String> recvThreads() {
        return new TreeSet<>(recvThreads);
    }

    /** Messages per task, for failure messages. */
    synchronized String describe() {
        Map<Integer, Integer> perTask = new HashMap<>();
        received.forEach(r -> perTask.merge(r.task(), 1, Integer::sum));
        return received.size() + " received, per task " + perTask;
    }
}
