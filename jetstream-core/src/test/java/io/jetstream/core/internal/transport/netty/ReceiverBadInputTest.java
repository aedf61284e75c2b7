package io.jetstream.core.internal.transport.netty;

import static io.jetstream.core.internal.transport.netty.TransportTestSupport.await;
import static io.jetstream.core.internal.transport.netty.TransportTestSupport.record;
import static io.jetstream.core.internal.transport.netty.TransportTestSupport.settings;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.internal.transport.handshake.Handshake;
import io.jetstream.core.internal.transport.handshake.SharedSecret;
import io.jetstream.core.internal.transport.netty.TransportTestSupport.Collector;
import io.jetstream.core.internal.transport.protocol.BatchFrameBuilder;
import io.jetstream.core.internal.transport.protocol.Frames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input from real sockets: each case is refused with an ERROR frame naming the cause and its
 * connection closed, the protocol-error metric counts it, and a well-behaved stream to the same
 * receiver goes on delivering everything in order.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReceiverBadInputTest {
    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;
    private static final int MAX_FRAME = 64 << 10;

    @TempDir
    Path dir;

    private NettyTransport receiving;
    private NettyTransport sending;
    private StreamReceiver receiver;
    private StreamSender good;
    private final Collector delivered = new Collector();
    private long sentByGood;

    @BeforeEach
    void start() throws Exception {
        Path secret = dir.resolve("secret");
        Files.writeString(secret, "a shared secret of enough bytes");
        Map<String, Object> o = Map.of("transport.max-frame-bytes", MAX_FRAME, "transport.reliability", "acknowledged",
                "transport.auth.secret-file", secret.toString());
        receiving = new NettyTransport(settings(o), "receiver");
        sending = new NettyTransport(settings(o), "good");
        receiver = receiving.bind(0, delivered, t -> t >= 0 && t < 4, SequenceStore.inMemory());
        good = sending.openSender("good", address(), ControlListener.NONE);
        await("good stream ready", 10, good::isReady);
    }

    @AfterEach
    void stop() {
        sending.close();
        receiving.close();
    }

    private InetSocketAddress address() {
        return new InetSocketAddress("127.0.0.1", receiver.localAddress().getPort());
    }

    private void goodTraffic(int n) throws Exception {
        for (int i = 0; i < n; i++) {
            byte[] r = record(sentByGood, 40);
            good.send((int) (sentByGood++ % 4), r, 0, r.length);
        }
        good.flush();
    }

    /**
     * Connects, reads the CHALLENGE, writes what {@code attack} makes of the nonce, and returns the
     * ERROR reason the receiver answered with before closing.
     */
    private String refused(Function<byte[], byte[]> attack) throws Exception {
        long errorsBefore = receiver.metrics().protocolErrors();
        goodTraffic(500);
        try (Socket s = new Socket()) {
            s.connect(address(), 5_000);
            s.setSoTimeout(10_000);
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] challenge = readFrame(in);
            assertEquals(CHALLENGE, challenge[0]);
            byte[] nonce = java.util.Arrays.copyOfRange(challenge, 7, 7 + NONCE_LENGTH);
            OutputStream out = s.getOutputStream();
            out.write(attack.apply(nonce));
            out.flush();
            String reason = null;
            try {
                while (true) {
                    byte[] f = readFrame(in);
                    if (f[0] == ERROR) {
                        reason = new String(f, 3, f.length - 3, StandardCharsets.UTF_8);
                    }
                }
            } catch (EOFException | java.net.SocketException closed) {
                // the receiver closed the connection
            }
            await("the protocol error is counted", 5, () -> receiver.metrics().protocolErrors() == errorsBefore + 1);
            goodTraffic(500);
            await("the good stream goes on", 10, () -> delivered.size() == sentByGood);
            return reason;
        }
    }

    private static byte[] readFrame(DataInputStream in) throws IOException {
        int n = in.readInt();
        assertTrue(n > 0 && n <= MAX_FRAME, "frame length from the receiver: " + n);
        byte[] f = new byte[n];
        in.readFully(f);
        return f;
    }

    private static byte[] bytes(ByteBuf... frames) {
        ByteBuf all = Unpooled.wrappedBuffer(frames);
        byte[] b = new byte[all.readableBytes()];
        all.readBytes(b);
        all.release();
        return b;
    }

    private static ByteBuf hello(byte[] nonce, String peer, int flags) {
        return new Handshake(new SharedSecret("a shared secret of enough bytes".getBytes(StandardCharsets.UTF_8)))
                .hello(ALLOC, flags, 1, 1, 0, 1, peer, "bad", new byte[16], Handshake.newNonce(), nonce);
    }

    private static ByteBuf batch(int target, boolean checksum, int corruptAt) {
        BatchFrameBuilder b = new BatchFrameBuilder(MAX_FRAME);
        b.begin(ALLOC.buffer());
        byte[] r = record(0, 40);
        b.append(target, r, 0, r.length);
        ByteBuf f = b.seal(1, checksum);
        if (corruptAt >= 0) {
            f.setByte(corruptAt, f.getByte(corruptAt) ^ 0x5a);
        }
        return f;
    }

    @Test
    void wrongMagic() throws Exception {
        String reason = refused(nonce -> {
            byte[] h = bytes(hello(nonce, "p", 0));
            h[5] ^= 1;
            return h;
        });
        assertTrue(reason.contains("bad magic"), reason);
    }

    @Test
    void wrongVersion() throws Exception {
        String reason = refused(nonce -> {
            byte[] h = bytes(hello(nonce, "p", 0));
            h[10] = 9;
            return h;
        });
        assertTrue(reason.contains("unsupported protocol version"), reason);
    }

    @Test
    void negativeLength() throws Exception {
        String reason = refused(nonce -> new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xf0, 1, 2, 3});
        assertTrue(reason.contains("frame length -16"), reason);
    }

    @Test
    void oversizedLength() throws Exception {
        String reason = refused(nonce -> new byte[] {0x7f, 0, 0, 0, BATCH});
        assertTrue(reason.contains("frame length 2130706432 outside"), reason);
    }

    @Test
    void recordLengthBeyondTheFrame() throws Exception {
        String reason = refused(nonce -> {
            ByteBuf b = batch(1, false, -1);
            b.setInt(BATCH_FRAME_OVERHEAD + 4, 1 << 20);
            return bytes(hello(nonce, "p", 0), b);
        });
        assertTrue(reason.contains("length 1048576 outside"), reason);
    }

    @Test
    void recordCountBeyondTheFrame() throws Exception {
        String reason = refused(nonce -> {
            ByteBuf b = batch(1, false, -1);
            b.setInt(LENGTH_FIELD + TYPE_FIELD + BATCH_COUNT_OFFSET, Integer.MAX_VALUE);
            return bytes(hello(nonce, "p", 0), b);
        });
        assertTrue(reason.contains("records cannot fit"), reason);
    }

    @Test
    void unknownTarget() throws Exception {
        String reason = refused(nonce -> bytes(hello(nonce, "p", 0), batch(99, false, -1)));
        assertTrue(reason.contains("unknown target id 99"), reason);
    }

    @Test
    void corruptedPayloadFailsTheChecksum() throws Exception {
        String reason = refused(nonce -> bytes(hello(nonce, "p", FLAG_CHECKSUM), batch(1, true, BATCH_FRAME_OVERHEAD + 12)));
        assertTrue(reason.contains("corrupted in transit"), reason);
    }

    @Test
    void batchBeforeHello() throws Exception {
        String reason = refused(nonce -> bytes(batch(1, false, -1)));
        assertTrue(reason.contains("expected HELLO, got BATCH"), reason);
    }

    @Test
    void wrongSecret() throws Exception {
        String reason = refused(nonce -> {
            return bytes(new Handshake(new SharedSecret("another secret, also long enough".getBytes(StandardCharsets.UTF_8)))
                    .hello(ALLOC, 0, 1, 1, 0, 1, "p", "bad", new byte[16], Handshake.newNonce(), nonce));
        });
        assertTrue(reason.contains("authentication failed for peer 'p'"), reason);
        assertEquals(1, receiver.metrics().authenticationFailures());
    }

    @Test
    void randomBytes() throws Exception {
        Random random = new Random(42);
        String reason = refused(nonce -> {
            byte[] junk = new byte[4096];
            random.nextBytes(junk);
            junk[0] = 0x10; // a length beyond the maximum frame
            return junk;
        });
        assertTrue(reason.contains("outside"), reason);
    }

    @Test
    void aPeerThatDiesMidFrameDeliversNothingOfIt() throws Exception {
        goodTraffic(100);
        await("good traffic", 10, () -> delivered.size() == sentByGood);
        try (Socket s = new Socket()) {
            s.connect(address(), 5_000);
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] nonce = java.util.Arrays.copyOfRange(readFrame(in), 7, 7 + NONCE_LENGTH);
            byte[] all = bytes(hello(nonce, "dies", 0), batch(1, false, -1));
            s.getOutputStream().write(all, 0, all.length - 10); // the batch's last 10 bytes never come
            s.getOutputStream().flush();
            await("handshake", 5, () -> receiver.watermarks().keySet().stream().anyMatch(k -> k.peerId().equals("dies")));
        }
        goodTraffic(100);
        await("good traffic", 10, () -> delivered.size() == sentByGood);
        assertTrue(delivered.snapshot().stream().noneMatch(d -> d.stream().peerId().equals("dies")));
    }

    static byte[] drain(InputStream in) throws IOException {
        return in.readAllBytes();
    }
}
