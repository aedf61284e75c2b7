package io.jetstream.flink.ring;

/**
 * Layout of the messages TaskManagers exchange through their rings. Each message is one ring record
 * whose target is the message type and whose payload starts with a fixed 20-byte head, in native byte
 * order (both ends are on one host):
 *
 * <pre>
 *   0  int  sender's data port (names the sender's own ring, where answers go)
 *   4  int  channel handle (chosen by the consumer TaskManager per input channel; -1: the connection)
 *   8  int  field 1
 *  12  int  field 2
 *  16  int  field 3
 *  20  ...  tail (type specific)
 * </pre>
 *
 * Consumer to producer: {@link #HELLO}, {@link #REQUEST} (field 1 initial credit, 2-3 first and last
 * subpartition, tail the {@code ResultPartitionID} bytes), {@link #CREDIT} (field 1 credit),
 * {@link #RESUME}, {@link #ACK_ALL_RECORDS}, {@link #BUFFER_SIZE} (field 1 size), {@link #SEGMENT}
 * (fields 1-2 subpartition, segment), {@link #CANCEL}, {@link #TASK_EVENT} (field 1 length of the
 * partition id at the start of the tail, then the serialized event).
 *
 * <p>Producer to consumer: {@link #HELLO_ACK}, {@link #BUFFER} (fields 1-3 sequence number, backlog,
 * subpartition; then {@link #DATA_TYPE_OFFSET}, {@link #COMPRESSED_OFFSET}, {@link #SIZE_OFFSET} and the
 * bytes at {@link #BUFFER_DATA_OFFSET}), {@link #BACKLOG} (field 1), {@link #NOT_FOUND}, {@link #ERROR}
 * (tail: the Java-serialized cause), {@link #REDIRECT} (tail: UTF-8 reason; the channel uses Netty).
 *
 * <p>Stateless constants.
 */
public final class RingMessageDescriptor {
    private RingMessageDescriptor() {}

    public static final int PORT_OFFSET = 0;
    public static final int HANDLE_OFFSET = 4;
    public static final int FIELD1_OFFSET = 8;
    public static final int FIELD2_OFFSET = 12;
    public static final int FIELD3_OFFSET = 16;
    public static final int HEAD_LENGTH = 20;

    public static final int DATA_TYPE_OFFSET = 20;
    public static final int COMPRESSED_OFFSET = 24;
    public static final int SIZE_OFFSET = 28;
    public static final int BUFFER_DATA_OFFSET = 32;

    public static final int CONNECTION_HANDLE = -1;

    // consumer -> producer
    public static final int HELLO = 1;
    public static final int REQUEST = 2;
    public static final int CREDIT = 3;
    public static final int RESUME = 4;
    public static final int ACK_ALL_RECORDS = 5;
    public static final int BUFFER_SIZE = 6;
    public static final int SEGMENT = 7;
    public static final int CANCEL = 8;
    public static final int TASK_EVENT = 9;

    // producer -> consumer
    public static final int HELLO_ACK = 20;
    public static final int BUFFER = 21;
    public static final int BACKLOG = 22;
    public static final int NOT_FOUND = 23;
    public static final int ERROR = 24;
    public static final int REDIRECT = 25;

    /** The ring of the TaskManager whose data port is {@code port}. */
    public static String ringName(int port) {
        return "flink-tm-" + port;
    }
}
