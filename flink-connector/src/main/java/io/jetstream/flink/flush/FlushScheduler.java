package io.jetstream.flink.flush;

import io.jetstream.core.qos.QosListener;
import io.jetstream.core.qos.QosService;
import io.jetstream.core.transport.outbound.DeadlineFlusher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flush machinery of one TaskManager's shuffle environment: core's {@link DeadlineFlusher}, one
 * daemon thread that serves the flush deadlines, idle checks and drain samples of every pipelined
 * partition on this TaskManager ({@link PartitionFlushControl}), and, when {@code qos.latency-bound-ms}
 * is set, core's {@link QosService} applying Nephele's output-buffer rule to every subpartition.
 *
 * <p>One thread per TaskManager rather than per partition: Flink's own {@code OutputFlusher} is a
 * thread per task, and on a TaskManager running dozens of tasks one more thread each would cost a
 * wake-up each per deadline. The thread sleeps until the earliest deadline (at most 1 ms, core's
 * {@code DeadlineFlusher}) and is woken by a task thread that opens a batch with an earlier one.
 *
 * <p>Thread-safety: {@link #register}, {@link #unregister} and {@link #close} from any thread;
 * {@link #wakeFor} from task threads.
 */
public final class FlushScheduler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FlushScheduler.class);
    /** Prefix of the flusher thread's name (core's {@code DeadlineFlusher} adds {@code jetstream-flusher-}). */
    public static final String THREAD_NAME_PART = "flink-";

    private final FlushSettings settings;
    private final DeadlineFlusher flusher;
    private final QosService qos;

    public FlushScheduler(FlushSettings settings, String owner) {
        this.settings = settings;
        this.flusher = new DeadlineFlusher(System::nanoTime, THREAD_NAME_PART + owner);
        if (settings.qos().enabled()) {
            qos = new QosService(settings.qos(), QosListener.NONE, System::nanoTime);
            qos.start("flink-" + owner);
        } else {
            qos = null;
        }
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
        PartitionFlushControl control = new PartitionFlushControl(name, partition, settings, System::nanoTime, flusher::wakeFor);
        int n = partition.numberOfSubpartitions();
        if (qos != null) {
            control.bindQos(i -> qos.register(channelPrefix + "/" + i, control.sizeCap(i)));
        }
        control.onClose(() -> {
            flusher.unregister(control);
            if (qos != null) {
                for (int i = 0; i < n; i++) {
                    qos.unregister(channelPrefix + "/" + i);
                }
            }
        });
        flusher.register(control);
        return control;
    }

    /** Stops the flusher thread (joins it) and the QoS service. */
    @Override
    public void close() {
        flusher.close();
        if (qos != null) {
            qos.close();
        }
    }
}
