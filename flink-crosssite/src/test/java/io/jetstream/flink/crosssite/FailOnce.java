package io.jetstream.flink.crosssite;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;

/**
 * Passes records through and throws once per label (across restarts: the flag is static in this JVM)
 * after a subtask passed {@code after} records and saw two checkpoints complete (so that the job
 * restores from a checkpoint, not from nothing): the injected failure of the fault tests.
 */
final class FailOnce implements MapFunction<Long, Long>, CheckpointListener {
    private static final long serialVersionUID = 1L;
    private static final Map<String, AtomicBoolean> FAILED = new ConcurrentHashMap<>();

    private final String label;
    private final long after;
    private long passed;
    private int checkpointsCompleted;

    FailOnce(String label, long after) {
        this.label = label;
        this.after = after;
        FAILED.putIfAbsent(label, new AtomicBoolean());
    }

    static boolean failed(String label) {
        return FAILED.get(label).get();
    }

    @Override
    public Long map(Long value) {
        if (++passed > after && checkpointsCompleted >= 2 && FAILED.get(label).compareAndSet(false, true)) {
            throw new IllegalStateException("injected failure (" + label + ") after " + after + " records");
        }
        return value;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        checkpointsCompleted++;
    }
}
