package io.jetstream.scheduler.storm;

import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.scheduler.traffic.TaskTraffic;
import io.jetstream.scheduler.traffic.TrafficRecorder;
import io.jetstream.scheduler.traffic.TrafficStore;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.storm.cluster.DaemonType;
import org.apache.storm.hooks.BaseTaskHook;
import org.apache.storm.hooks.info.BoltExecuteInfo;
import org.apache.storm.hooks.info.EmitInfo;
import org.apache.storm.task.TopologyContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TurboStream's online monitor as a Storm task hook: counts the tuples each task emits to each target
 * task and its executor's CPU time, and every {@code jetstream.scheduler.traffic.window-ms} writes the
 * smoothed rates where {@link JetStreamScheduler} in Nimbus reads them. Register it per topology or
 * cluster-wide:
 * <pre>
 * topology.auto.task.hooks: ["io.jetstream.scheduler.storm.TrafficRecordingHook"]
 * jetstream.scheduler.traffic.store: "zookeeper"     # or "directory" with
 * # jetstream.scheduler.traffic.dir: "/shared/jetstream-traffic"
 * </pre>
 *
 * <p>Threading: Storm calls a hook on its task's executor thread. Counting allocates nothing; once per
 * window a record is built and written by one daemon thread per worker, off the executor, through
 * one store per worker (one ZooKeeper session, not one per task).
 */
public class TrafficRecordingHook extends BaseTaskHook {
    private static final Logger LOG = LoggerFactory.getLogger(TrafficRecordingHook.class);
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final ThreadLocal<long[]> LAST_THREAD_CPU = ThreadLocal.withInitial(() -> new long[] {-1});
    private static final Object WRITER_LOCK = new Object();
    /** The worker's writer thread and store, shared by its hooks; guarded by {@link #WRITER_LOCK}. */
    private static ExecutorService writer;
    private static TrafficStore store;
    private static int openHooks;

    private TrafficRecorder recorder;
    private String topologyId;

    @Override
    public void prepare(Map<String, Object> conf, TopologyContext context) {
        JetStreamConfig config = JetStreamConfig.load(ConfigScope.STORM, conf, JetStreamSchedulerOptions.groups());
        if (config.get(JetStreamSchedulerOptions.TRAFFIC_STORE) == JetStreamSchedulerOptions.TrafficStoreKind.DIRECTORY
                && config.get(JetStreamSchedulerOptions.TRAFFIC_DIR).isEmpty()) {
            throw new InvalidConfigurationException(config.keyOf(JetStreamSchedulerOptions.TRAFFIC_DIR), "",
                    "a directory shared with Nimbus (or " + config.keyOf(JetStreamSchedulerOptions.TRAFFIC_STORE)
                            + ": zookeeper): " + getClass().getName() + " is registered in "
                            + "topology.auto.task.hooks and has nowhere to write");
        }
        topologyId = context.getStormId();
        long windowNanos = TimeUnit.MILLISECONDS.toNanos(config.get(JetStreamSchedulerOptions.TRAFFIC_WINDOW_MS));
        recorder = new TrafficRecorder(context.getThisTaskId(), windowNanos,
                config.get(JetStreamSchedulerOptions.TRAFFIC_SMOOTHING), System::nanoTime,
                System::currentTimeMillis, TrafficRecordingHook::threadCpuSinceLastCall, this::submit);
        String location;
        synchronized (WRITER_LOCK) {
            if (store == null) {
                store = TrafficStores.open(config, conf, DaemonType.WORKER);
            }
            location = store.location();
            if (writer == null) {
                writer = Executors.newSingleThreadExecutor(r -> {
                    Thread t = new Thread(r, "jetstream-traffic-writer");
                    t.setDaemon(true);
                    return t;
                });
            }
            openHooks++;
        }
        LOG.debug("Recording traffic of task {} of {} into {}", context.getThisTaskId(), topologyId, location);
    }

    private static long threadCpuSinceLastCall() {
        if (!THREADS.isCurrentThreadCpuTimeSupported()) {
            return 0;
        }
        long now = THREADS.getCurrentThreadCpuTime();
        long[] last = LAST_THREAD_CPU.get();
        long delta = last[0] < 0 ? 0 : now - last[0];
        last[0] = now;
        return Math.max(0, delta);
    }

    private void submit(TaskTraffic traffic) {
        ExecutorService w;
        TrafficStore s;
        synchronized (WRITER_LOCK) {
            w = writer;
            s = store;
        }
        if (w == null) {
            return;
        }
        try {
            w.execute(() -> {
                try {
                    s.write(topologyId, traffic);
                } catch (Exception e) {
                    LOG.warn("Cannot write traffic record of task {} into {}: {}", traffic.taskId(), s.location(),
                            e.toString());
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.debug("Traffic writer already shut down; record of task {} dropped", traffic.taskId());
        }
    }

    @Override
    public void emit(EmitInfo info) {
        Collection<Integer> targets = info.outTasks;
        if (targets == null) {
            recorder.tick();
        } else if (targets instanceof List<Integer> list) {
            recorder.recordEmit(list);
        } else {
            for (Integer t : targets) {
                recorder.recordEmit(t);
            }
        }
    }

    @Override
    public void boltExecute(BoltExecuteInfo info) {
        recorder.tick(); // sinks never emit: their windows still roll over (and report CPU)
    }

    @Override
    public void cleanup() {
        synchronized (WRITER_LOCK) {
            if (--openHooks == 0 && writer != null) {
                // The writer finishes what it was given, then the store closes behind it.
                TrafficStore closing = store;
                writer.execute(closing::close);
                writer.shutdown();
                writer = null;
                store = null;
            }
        }
    }
}
