package io.jetstream.benchmarks.crosssiteflink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * One record of the cross-site benchmark, and its wire format: the one both {@link CrossSiteLink}s carry.
 *
 * <pre>
 *   offset 0  int   magic 0x4A534531 ("JSE1")
 *          4  int   sender: the sending job's subtask index
 *          8  long  sequence: the generator's index, unique across the sending job (see EventGenerator)
 *         16  long  send time, nanoseconds since the epoch (EpochClock; both jobs run on one machine)
 *         24  ...   payload, whatever length the sender chose
 * </pre>
 * Big-endian. {@link #HEADER_BYTES} plus the payload is the record's size on the link (Kafka adds its own
 * record overhead; so may JetStream).
 *
 * <p>A mutable value object (a Flink POJO): not thread-safe; each instance belongs to one task thread.
 */
public final class Event {
    /** Bytes before the payload. */
    public static final int HEADER_BYTES = 24;
    static final int MAGIC = 0x4A534531;

    public int sender;
    public long sequence;
    public long sendTimeNanos;
    public byte[] payload;

    public Event() {
        payload = new byte[0];
    }

    public Event(int sender, long sequence, long sendTimeNanos, byte[] payload) {
        this.sender = sender;
        this.sequence = sequence;
        this.sendTimeNanos = sendTimeNanos;
        this.payload = payload;
    }

    /** Bytes this event takes on the link. */
    public int encodedBytes() {
        return HEADER_BYTES + payload.length;
    }

    /** The event's wire form (a new array). */
    public static byte[] encode(Event e) {
        byte[] out = new byte[e.encodedBytes()];
        ByteBuffer b = ByteBuffer.wrap(out).order(ByteOrder.BIG_ENDIAN);
        b.putInt(MAGIC).putInt(e.sender).putLong(e.sequence).putLong(e.sendTimeNanos).put(e.payload);
        return out;
    }

    /**
     * The event {@code bytes} holds.
     *
     * @throws IllegalArgumentException if it is shorter than a header or does not start with the magic number
     */
    public static Event decode(byte[] bytes) {
        if (bytes == null || bytes.length < HEADER_BYTES) {
            throw new IllegalArgumentException("not a cross-site event: " + (bytes == null ? "null" : bytes.length + " bytes")
                    + ", expected at least " + HEADER_BYTES);
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
        int magic = b.getInt();
        if (magic != MAGIC) {
            throw new IllegalArgumentException("not a cross-site event: magic 0x" + Integer.toHexString(magic));
        }
        Event e = new Event();
        e.sender = b.getInt();
        e.sequence = b.getLong();
        e.sendTimeNanos = b.getLong();
        e.payload = new byte[bytes.length - HEADER_BYTES];
        b.get(e.payload);
        return e;
    }

    @Override
    public String toString() {
        return "Event[sender=" + sender + ", sequence=" + sequence + ", sendTimeNanos=" + sendTimeNanos + ", payload="
                + payload.length + " B]";
    }

    /**
     * {@link #encode}/{@link #decode} as Flink's schemas, for a link's sink and source.
     *
     * <p>Stateless; thread-safe.
     */
    public static final class Schema implements SerializationSchema<Event>, DeserializationSchema<Event> {
        private static final long serialVersionUID = 1L;

        @Override
        public byte[] serialize(Event element) {
            return encode(element);
        }

        @Override
        public Event deserialize(byte[] message) {
            return decode(message);
        }

        @Override
        public boolean isEndOfStream(Event nextElement) {
            return false;
        }

        @Override
        public TypeInformation<Event> getProducedType() {
            return TypeInformation.of(Event.class);
        }
    }
}
