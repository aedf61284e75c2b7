package io.jetstream.flink.crosssite;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.sink.legacy.RichSinkFunction;

/**
 * The receiving job's sink in the tests: records everything it is given ({@link #seen}, with
 * duplicates: at least once), and, exactly once, publishes a checkpoint's records only when that
 * checkpoint completed ({@link #committed}), idempotently: a restored job publishes the restored
 * checkpoint's records again under the same key, so a failure between the checkpoint and its
 * notification neither loses nor doubles them. The results live in static maps of this JVM (the
 * MiniClusters run in it), per label.
 *
 * <p>Threading contract: Flink's task thread; the static maps are concurrent.
 */
final class Recorder extends RichSinkFunction<Long> implements CheckpointedFunction, CheckpointListener {
    private static final long serialVersionUID = 1L;
    private static final List<String> LABELS = new CopyOnWriteArrayList<>();
    private static final Map<String, ConcurrentLinkedQueue<Long>> SEEN = new ConcurrentHashMap<>();
    private static final Map<String, Map<String, long[]>> COMMITTED = new ConcurrentHashMap<>();

    private final int label;
    private transient List<Long> current;
    private transient Map<Long, long[]> pending;
    private transient ListState<long[]> state;

    Recorder(String label) {
        synchronized (LABELS) {
            if (!LABELS.contains(label)) {
                LABELS.add(label);
            }
            this.label = LABELS.indexOf(label);
        }
        SEEN.putIfAbsent(label, new ConcurrentLinkedQueue<>());
        COMMITTED.putIfAbsent(label, new ConcurrentHashMap<>());
    }

    /** Everything the label's sinks were given, duplicates included. */
    static List<Long> seen(String label) {
        return new ArrayList<>(SEEN.getOrDefault(label, new ConcurrentLinkedQueue<>()));
    }

    /** The records of the label's completed checkpoints, each as often as it was published. */
    static List<Long> committed(String label) {
        List<Long> all = new ArrayList<>();
        for (long[] batch : COMMITTED.getOrDefault(label, Map.of()).values()) {
            for (int i = 3; i < batch.length; i++) {
                all.add(batch[i]);
            }
        }
        return all;
    }

    @Override
    public void invoke(Long value, Context context) {
        current.add(value);
        SEEN.get(LABELS.get(label)).add(value);
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        current = new ArrayList<>();
        pending = new HashMap<>();
        state = context.getOperatorStateStore().getListState(
                new ListStateDescriptor<>("recorded", PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
        if (context.isRestored()) {
            // The checkpoint restored from completed: its records count, whether or not it was notified.
            for (long[] batch : state.get()) {
                publish(batch);
            }
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        long[] batch = new long[3 + current.size()];
        batch[0] = label;
        batch[1] = context.getCheckpointId();
        batch[2] = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        for (int i = 0; i < current.size(); i++) {
            batch[3 + i] = current.get(i);
        }
        current = new ArrayList<>();
        pending.put(context.getCheckpointId(), batch);
        state.update(new ArrayList<>(pending.values()));
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        pending.entrySet().removeIf(e -> {
            if (e.getKey() <= checkpointId) {
                publish(e.getValue());
                return true;
            }
            return false;
        });
    }

    private static void publish(long[] batch) {
        COMMITTED.get(LABELS.get((int) batch[0])).putIfAbsent(batch[1] + ":" + batch[2], batch);
    }
}
