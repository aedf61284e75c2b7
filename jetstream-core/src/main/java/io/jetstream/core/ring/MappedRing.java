package io.jetstream.core.ring;

import io.jetstream.core.internal.ring.RingDescriptor;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

/** A ring file mapped into this process: the header and data region through one buffer. */
final class MappedRing {
    final Path file;
    final MappedByteBuffer mapping;
    final UnsafeBuffer buffer;
    final int capacity;
    final int mask;
    final int maxPayload;

    MappedRing(Path file, MappedByteBuffer mapping, int capacity, int maxPayload) {
        this.file = file;
        this.mapping = mapping;
        this.buffer = new UnsafeBuffer(mapping);
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.maxPayload = maxPayload;
    }

    /** Offset in {@link #buffer} of the data-region index of {@code position}. */
    int offsetOf(long position) {
        return RingDescriptor.HEADER_LENGTH + (int) (position & mask);
    }

    void unmap() {
        IoUtil.unmap(mapping);
    }
}
