package io.jetstream.storm.transport.contract;

import io.jetstream.core.internal.transport.protocol.ProtocolDescriptor;
import io.jetstream.storm.transport.JetStreamContext;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;

/**
 * {@link StormTransportHardening} against JetStream's Storm context: bad input is refused by the
 * core's frame decoder and handshake (before the handshake a frame may not exceed
 * {@link ProtocolDescriptor#PRE_AUTH_MAX_FRAME_LENGTH}; a peer that says nothing is closed after
 * {@code jetstream.transport.handshake-timeout-ms}), and toward a peer that stopped reading the
 * client holds at most its window ({@code jetstream.transport.window-bytes}) and then pushes back.
 */
class JetStreamContextHardeningTest extends StormTransportHardening {
    private static final long HANDSHAKE_TIMEOUT_MS = 1_000;

    @Override
    protected String contextClassName() {
        return JetStreamContext.class.getName();
    }

    @Override
    protected Map<String, Object> extraConf() {
        // A short send wait so that the transfer thread, pushed back, drops and moves on within the test.
        return Map.of("jetstream.transport.handshake-timeout-ms", HANDSHAKE_TIMEOUT_MS, "jetstream.storm.send-wait-ms", 200L);
    }

    @Override
    protected Duration silentPeerClosedWithin() {
        return Duration.ofMillis(HANDSHAKE_TIMEOUT_MS * 5);
    }

    @Override
    protected byte[] wrongVersionHandshake() {
        ByteBuffer hello = ByteBuffer.allocate(64);
        int body = ProtocolDescriptor.TYPE_FIELD + Integer.BYTES + Short.BYTES + 16;
        hello.putInt(body).put(ProtocolDescriptor.HELLO).putInt(ProtocolDescriptor.MAGIC).putShort((short) 9);
        hello.put(new byte[16]);
        return java.util.Arrays.copyOf(hello.array(), hello.position());
    }

    @Override
    protected byte[] hugeLengthFrame() {
        ByteBuffer frame = ByteBuffer.allocate(64);
        frame.putInt(Integer.MAX_VALUE - 8).put(ProtocolDescriptor.HELLO).putInt(ProtocolDescriptor.MAGIC)
                .putShort(ProtocolDescriptor.VERSION);
        frame.put(new byte[32]);
        return java.util.Arrays.copyOf(frame.array(), frame.position());
    }
}
