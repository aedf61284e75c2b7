package io.jetstream.flink.crosssite;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The enumerator's checkpoint: every landed stream it has discovered (assigned or not) and the splits
 * not assigned to a reader yet. Immutable.
 */
public record CrossSiteEnumeratorState(Set<String> discovered, List<LandedStreamSplit> unassigned) {
    public CrossSiteEnumeratorState {
        discovered = Set.copyOf(discovered);
        unassigned = List.copyOf(unassigned);
    }

    /** Versioned serializer (version 1: int n, n UTF names; int m, m splits). */
    public static final class Serializer implements SimpleVersionedSerializer<CrossSiteEnumeratorState> {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(CrossSiteEnumeratorState state) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(state.discovered().size());
                for (String name : new TreeSet<>(state.discovered())) {
                    out.writeUTF(name);
                }
                out.writeInt(state.unassigned().size());
                for (LandedStreamSplit split : state.unassigned()) {
                    LandedStreamSplit.Serializer.write(split, out);
                }
            }
            return bytes.toByteArray();
        }

        @Override
        public CrossSiteEnumeratorState deserialize(int version, byte[] serialized) throws IOException {
            if (version != 1) {
                throw new IOException("CrossSiteEnumeratorState version " + version + " is newer than this connector's (1)");
            }
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                Set<String> discovered = new TreeSet<>();
                for (int i = 0, n = in.readInt(); i < n; i++) {
                    discovered.add(in.readUTF());
                }
                List<LandedStreamSplit> unassigned = new ArrayList<>();
                for (int i = 0, n = in.readInt(); i < n; i++) {
                    unassigned.add(LandedStreamSplit.Serializer.read(in));
                }
                return new CrossSiteEnumeratorState(discovered, unassigned);
            }
        }
    }
}
