package io.jetstream.flink.crosssite;

import java.nio.ByteBuffer;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;

/** A long as 8 big-endian bytes, both ways. Stateless. */
final class LongSchema implements SerializationSchema<Long>, DeserializationSchema<Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public byte[] serialize(Long value) {
        return ByteBuffer.allocate(Long.BYTES).putLong(value).array();
    }

    @Override
    public Long deserialize(byte[] message) {
        if (message.length != Long.BYTES) {
            throw new IllegalStateException("a record of " + message.length + " bytes, expected 8");
        }
        return ByteBuffer.wrap(message).getLong();
    }

    @Override
    public boolean isEndOfStream(Long nextElement) {
        return false;
    }

    @Override
    public TypeInformation<Long> getProducedType() {
        return Types.LONG;
    }
}
