package io.jetstream.storm.transport;

import io.jetstream.core.metrics.TrafficMeter;
import java.util.List;
import org.apache.storm.messaging.TaskMessage;

/**
 * Traffic through JetStream's Storm connections. Each context has its own meters (registered as
 * worker gauges); {@link #PROCESS} adds up every context of this JVM: one per worker in a real
 * cluster, several when LocalCluster runs workers in one process.
 *
 * <p>Thread-safe: {@link TrafficMeter} is.
 */
public final class TransportMeters {
    /** Totals over every JetStream context in this JVM. */
    public static final TransportMeters PROCESS = new TransportMeters("process");

    final TrafficMeter sent;
    final TrafficMeter received;

    TransportMeters(String scope) {
        this.sent = new TrafficMeter(scope + ".sent");
        this.received = new TrafficMeter(scope + ".received");
    }

    public TrafficMeter sent() {
        return sent;
    }

    public TrafficMeter received() {
        return received;
    }

    static long payloadBytes(TaskMessage message) {
        byte[] payload = message.message();
        return payload == null ? 0 : payload.length;
    }

    /** Counts a received batch here and in {@link #PROCESS}. Allocates nothing. */
    void onReceived(List<TaskMessage> batch) {
        long bytes = 0;
        for (int i = 0, n = batch.size(); i < n; i++) {
            bytes += payloadBytes(batch.get(i));
        }
        received.onBatch(batch.size(), bytes);
        PROCESS.received.onBatch(batch.size(), bytes);
    }

    /** Counts one sent message here and in {@link #PROCESS}. */
    void onSent(TaskMessage message) {
        long bytes = payloadBytes(message);
        sent.onRecord(bytes);
        PROCESS.sent.onRecord(bytes);
    }
}
