package io.jetstream.flink.flush;

import io.jetstream.core.api.FlushService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flush machinery of one TaskManager's shuffle environment: core's {@link FlushService}, one
 * daemon thread that serves the flush deadlines, idle checks and drain samples of every pipelined
 * partition on this TaskManager ({@link PartitionFlushControl}), and, when {@code qos.latency-bound-ms}
 * is set, Nephele's output-buffer rule over every subpartition.
 *
 * <p>One thread per TaskManager rather than per partition: Flink's own {@code OutputFlusher} is a
 * thread per task, and on a TaskManager running dozens of tasks one more thread each would cost a
 * wake-up each per deadline.
 *
 * <p>Thread-safety: {@link #attach} and {@link #close} from any thread.
 */
public final class FlushScheduler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FlushScheduler.class);
    /** Part of the flusher thread's name (core's flusher names it {@code jetstream-flusher-flink-<owner>}). */
    public static final String THREAD_NAME_PART = "flink-";

    private final FlushSettings settings;
    private final FlushService service;

    public FlushScheduler(FlushSettings settings, String owner) {
        this.settings = settings;
        this.service = new FlushService(settings.control(), System::nanoTime, THREAD_NAME_PART + owner);
        LOG.info("JetStream flush control on TaskManager {}: max delay {} us, flush cost {} us, idle flush {}, "
                        + "latency bound {}", owner, settings.maxDelayNanos() / 1_000, settings.flushCostSeconds() * 1e6,
                settings.idleFlush(), settings.qos().enabled() ? settings.qos().latencyBoundMillis() + " ms" : "none");
    }

    public FlushSettings settings() {
        return settings;
    }

    /**
     * Flush control for a pipelined partition, served by this scheduler's thread from now until the
     * control closes; its subpartitions are under the latency constraint when one is set.
     *
     * @param name for logs
     * @param channelPrefix unique per partition on this TaskManager (its result partition id)
     */
    public PartitionFlushControl attach(String name, String channelPrefix, FlushTarget partition) {
        int n = partition.numberOfSubpartitions();
        PartitionFlushControl control = new PartitionFlushControl(name, partition, i -> service.openChannel(channelPrefix + "/" + i),
                settings.maxDelayNanos(), System::nanoTime);
        control.onClose(() -> {
            service.unregister(control);
            for (int i = 0; i < n; i++) {
                service.closeChannel(channelPrefix + "/" + i);
            }
        });
        service.register(control);
        return control;
    }

    /** Stops the flusher thread (joins it) and the QoS service. */
    @Override
    public void close() {
        service.close();
    }
}
