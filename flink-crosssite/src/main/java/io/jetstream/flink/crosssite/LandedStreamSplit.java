package io.jetstream.flink.crosssite;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A split of {@link CrossSiteSource}: one landed stream ({@code <stream-name>/<i>}, a sink subtask's) and
 * the ordinal of the next record to read from it. Immutable.
 */
public record LandedStreamSplit(String stream, long nextOrdinal) implements SourceSplit {
    @Override
    public String splitId() {
        return stream;
    }

    /** Versioned serializer (version 1: UTF stream, long next ordinal). */
    public static final class Serializer implements SimpleVersionedSerializer<LandedStreamSplit> {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(LandedStreamSplit split) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                write(split, out);
            }
            return bytes.toByteArray();
        }

        @Override
        public LandedStreamSplit deserialize(int version, byte[] serialized) throws IOException {
            if (version != 1) {
                throw new IOException("LandedStreamSplit version " + version + " is newer than this connector's (1)");
            }
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                return read(in);
            }
        }

        static void write(LandedStreamSplit split, DataOutputStream out) throws IOException {
            out.writeUTF(split.stream());
            out.writeLong(split.nextOrdinal());
        }

        static LandedStreamSplit read(DataInputStream in) throws IOException {
            return new LandedStreamSplit(in.readUTF(), in.readLong());
        }
    }
}
