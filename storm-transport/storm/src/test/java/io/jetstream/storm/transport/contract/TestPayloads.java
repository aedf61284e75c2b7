package io.jetstream.storm.transport.contract;

import java.nio.ByteBuffer;

/**
 * Payloads that say what they are: a sequence number in the first eight bytes (big-endian), then
 * bytes derived from it, so a receiver can check order, completeness and integrity without keeping
 * what was sent.
 *
 * <p>Stateless and thread-safe.
 */
final class TestPayloads {
    static final int MIN_SIZE = Long.BYTES;

    private TestPayloads() {}

    /** A payload of {@code size} bytes (at least eight) carrying {@code sequence}. */
    static byte[] of(long sequence, int size) {
        if (size < MIN_SIZE) {
            throw new IllegalArgumentException("size " + size + " < " + MIN_SIZE);
        }
        byte[] payload = new byte[size];
        ByteBuffer.wrap(payload).putLong(sequence);
        for (int i = MIN_SIZE; i < size; i++) {
            payload[i] = filler(sequence, i);
        }
        return payload;
    }

    static long sequenceOf(byte[] payload) {
        return ByteBuffer.wrap(payload).getLong(0);
    }

    /** Whether every byte after the sequence number is the one {@link #of} wrote. */
    static boolean intact(byte[] payload) {
        if (payload == null || payload.length < MIN_SIZE) {
            return false;
        }
        long sequence = sequenceOf(payload);
        for (int i = MIN_SIZE; i < payload.length; i++) {
            if (payload[i] != filler(sequence, i)) {
                return false;
            }
        }
        return true;
    }

    private static byte filler(long sequence, int index) {
        return (byte) (sequence * 31 + index);
    }
}
