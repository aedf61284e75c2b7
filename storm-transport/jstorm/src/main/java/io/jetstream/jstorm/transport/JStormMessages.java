package io.jetstream.jstorm.transport;

import backtype.storm.messaging.TaskMessage;

/**
 * How a JStorm {@link TaskMessage} travels as one JetStream record: its payload is the record, and
 * its target task and message type ({@link TaskMessage#NORMAL_MESSAGE}, {@link TaskMessage#CONTROL_MESSAGE},
 * {@link TaskMessage#BACK_PRESSURE_REQUEST} …) share the record's 32-bit target: the type in the top
 * byte, the task in the lower 24 bits. A normal tuple's target is therefore its task id, and every
 * target is non-negative (what the receiver accepts).
 *
 * <p>Stateless; any thread.
 */
final class JStormMessages {
    /** Largest task id that travels (JStorm's task ids are small ints, counted per topology). */
    static final int MAX_TASK = (1 << 24) - 1;
    /** Largest message type that travels (JStorm 2.2.1 has 0, 1 and 2). */
    static final int MAX_TYPE = 127;

    private JStormMessages() {}

    /** @throws IllegalArgumentException if the task or type is out of range */
    static int target(short type, int task) {
        if (task < 0 || task > MAX_TASK) {
            throw new IllegalArgumentException("task id " + task + " out of range 0.." + MAX_TASK);
        }
        if (type < 0 || type > MAX_TYPE) {
            throw new IllegalArgumentException("message type " + type + " out of range 0.." + MAX_TYPE);
        }
        return (type << 24) | task;
    }

    static short type(int target) {
        return (short) (target >>> 24);
    }

    static int task(int target) {
        return target & MAX_TASK;
    }
}
