package io.jetstream.flink.crosssite;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.ByteArrayInputStream;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Where a sink writer's landed stream stands: the stream, the writer run's attempt and an epoch. It is
 * both the sink's committable (the epoch to commit) and its writer state (the last epoch marked, from
 * which a restored writer continues). Immutable.
 */
public record LandedEpoch(String stream, long attempt, long epoch) {

    /** Versioned serializer of {@link LandedEpoch} (version 1: UTF stream, long attempt, long epoch). */
    public static final class Serializer implements SimpleVersionedSerializer<LandedEpoch> {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(LandedEpoch e) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeUTF(e.stream());
                out.writeLong(e.attempt());
                out.writeLong(e.epoch());
            }
            return bytes.toByteArray();
        }

        @Override
        public LandedEpoch deserialize(int version, byte[] serialized) throws IOException {
            if (version != 1) {
                throw new IOException("LandedEpoch version " + version + " is newer than this connector's (1)");
            }
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                return new LandedEpoch(in.readUTF(), in.readLong(), in.readLong());
            }
        }
    }
}
