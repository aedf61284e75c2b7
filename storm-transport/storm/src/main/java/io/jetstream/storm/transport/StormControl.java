package io.jetstream.storm.transport;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.agrona.DirectBuffer;
import org.apache.storm.messaging.netty.BackPressureStatus;

/**
 * Storm's control messages as JetStream CONTROL frames, from a worker's server to the workers
 * connected to it: the back-pressure status ({@link #BACK_PRESSURE}: which of its tasks are pushed
 * back, applied to the clients' {@code remoteBpStatus}) and the load of its tasks
 * ({@link #LOAD}: {@code getLoad}). The transport orders a tag's frames across routes, so a later
 * status is never overwritten by an earlier one. A compact binary layout of our own (big-endian):
 * no Kryo registration, and a frame from a peer is checked before anything is applied.
 *
 * <pre>
 * BACK_PRESSURE  int n, n × int task pushed back, int m, m × int task no longer pushed back, short k + k bytes worker id
 * LOAD           int n, n × (int task, double load)
 * </pre>
 *
 * <p>Stateless; any thread.
 */
final class StormControl {
    static final int BACK_PRESSURE = 1;
    static final int LOAD = 2;
    /** Most tasks one frame may name (a worker has far fewer; a CONTROL payload is at most 64 KiB anyway). */
    private static final int MAX_TASKS = 8_000;

    private StormControl() {}

    static byte[] backPressure(BackPressureStatus status) {
        byte[] worker = status.workerId == null ? new byte[0] : status.workerId.getBytes(StandardCharsets.UTF_8);
        int bp = size(status.bpTasks);
        int nonBp = size(status.nonBpTasks);
        ByteBuffer b = ByteBuffer.allocate(4 + 4 * bp + 4 + 4 * nonBp + 2 + Math.min(worker.length, 255));
        putTasks(b, status.bpTasks);
        putTasks(b, status.nonBpTasks);
        b.putShort((short) Math.min(worker.length, 255)).put(worker, 0, Math.min(worker.length, 255));
        return b.array();
    }

    /**
     * Applies a back-pressure frame to the client's per-task flags: pushed-back tasks set, released
     * ones cleared; task ids outside the array are ignored.
     *
     * @throws IllegalArgumentException if the frame is malformed
     */
    static void applyBackPressure(DirectBuffer frame, int offset, int length, AtomicBoolean[] remoteBpStatus) {
        int at = offset;
        int end = offset + length;
        for (boolean pushedBack : new boolean[] {true, false}) {
            int n = count(frame, at, end);
            at += 4;
            for (int i = 0; i < n; i++, at += 4) {
                int task = frame.getInt(at, java.nio.ByteOrder.BIG_ENDIAN);
                if (remoteBpStatus != null && task >= 0 && task < remoteBpStatus.length && remoteBpStatus[task] != null) {
                    remoteBpStatus[task].set(pushedBack);
                }
            }
        }
    }

    static byte[] load(Map<Integer, Double> taskToLoad) {
        ByteBuffer b = ByteBuffer.allocate(4 + 12 * taskToLoad.size());
        b.putInt(taskToLoad.size());
        taskToLoad.forEach((task, load) -> b.putInt(task).putDouble(load == null ? 0 : load));
        return b.array();
    }

    /** The task loads of a LOAD frame. @throws IllegalArgumentException if it is malformed */
    static Map<Integer, Double> readLoad(DirectBuffer frame, int offset, int length) {
        int end = offset + length;
        int n = count(frame, offset, end);
        if (4 + 12L * n > length) {
            throw new IllegalArgumentException("LOAD control of " + n + " tasks in " + length + " bytes");
        }
        Map<Integer, Double> loads = new HashMap<>(n * 2);
        int at = offset + 4;
        for (int i = 0; i < n; i++, at += 12) {
            loads.put(frame.getInt(at, java.nio.ByteOrder.BIG_ENDIAN), frame.getDouble(at + 4, java.nio.ByteOrder.BIG_ENDIAN));
        }
        return loads;
    }

    /** The tasks a BACK_PRESSURE frame names as pushed back (tests, logs). */
    static List<Integer> pushedBackTasks(DirectBuffer frame, int offset, int length) {
        int n = count(frame, offset, offset + length);
        List<Integer> tasks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            tasks.add(frame.getInt(offset + 4 + 4 * i, java.nio.ByteOrder.BIG_ENDIAN));
        }
        return tasks;
    }

    private static int count(DirectBuffer frame, int at, int end) {
        if (end - at < 4) {
            throw new IllegalArgumentException("control frame truncated at " + at);
        }
        int n = frame.getInt(at, java.nio.ByteOrder.BIG_ENDIAN);
        if (n < 0 || n > MAX_TASKS || (long) at + 4 + 4L * n > end) {
            throw new IllegalArgumentException("control frame names " + n + " tasks in " + (end - at - 4) + " bytes");
        }
        return n;
    }

    private static int size(Collection<Integer> tasks) {
        return tasks == null ? 0 : tasks.size();
    }

    private static void putTasks(ByteBuffer b, Collection<Integer> tasks) {
        b.putInt(size(tasks));
        if (tasks != null) {
            tasks.forEach(b::putInt);
        }
    }
}
