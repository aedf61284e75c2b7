package io.jetstream.core.internal.transport.netty;

import static io.jetstream.core.internal.transport.netty.TransportTestSupport.await;
import static io.jetstream.core.internal.transport.netty.TransportTestSupport.record;
import static io.jetstream.core.internal.transport.netty.TransportTestSupport.settings;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.internal.transport.handshake.Handshake;
import io.jetstream.core.internal.transport.handshake.SharedSecret;
import io.jetstream.core.internal.transport.netty.TransportTestSupport.Collector;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What only an authenticated peer may do, from real sockets: every HELLO field is covered by its
 * MAC, a sender never streams to a receiver that cannot prove the secret, a spoofed HELLO cannot
 * make a live stream's batches be taken for duplicates, and a receiver bounds what an
 * unauthenticated peer costs it (frame size, time, connections).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HandshakeSecurityTest {
    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;
    private static final String SECRET = "a shared secret of enough bytes";

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private NettyTransport transport(String peer, Map<String, ?> options) {
        NettyTransport t = new NettyTransport(settings(options), peer);
        open.add(t);
        return t;
    }

    private Path secretFile(String name, String secret) throws IOException {
        return Files.writeString(dir.resolve(name), secret);
    }

    private static InetSocketAddress at(StreamReceiver r) {
        return new InetSocketAddress("127.0.0.1", r.localAddress().getPort());
    }

    private static byte[] readFrame(DataInputStream in) throws IOException {
        int n = in.readInt();
        assertTrue(n > 0 && n <= PRE_AUTH_MAX_FRAME_LENGTH, "frame length from the receiver: " + n);
        byte[] f = new byte[n];
        in.readFully(f);
        return f;
    }

    /** The ERROR reason the receiver sends before closing, or null if it closed without one. */
    private static String errorThenClose(DataInputStream in) throws IOException {
        String reason = null;
        try {
            while (true) {
                byte[] f = readFrame(in);
                if (f[0] == ERROR) {
                    reason = new String(f, 3, f.length - 3, StandardCharsets.UTF_8);
                }
            }
        } catch (EOFException | SocketException closed) {
            return reason;
        }
    }

    private static byte[] bytes(ByteBuf frame) {
        byte[] b = new byte[frame.readableBytes()];
        frame.readBytes(b);
        frame.release();
        return b;
    }

    @Test
    void everyHelloFieldIsCoveredByItsMac() throws Exception {
        Map<String, Object> o = Map.of("transport.auth.secret-file", secretFile("secret", SECRET).toString());
        StreamReceiver r = transport("receiver", o).bind(0, new Collector(), t -> true, SequenceStore.inMemory());
        Handshake handshake = new Handshake(new SharedSecret(SECRET.getBytes(StandardCharsets.UTF_8)));
        // Each field the receiver acts on, altered after the MAC was computed: flags, epoch, first sequence, route, host token.
        int[] offsets = {
            LENGTH_FIELD + TYPE_FIELD + 6, // flags
            LENGTH_FIELD + TYPE_FIELD + 7 + 7, // epoch, low byte
            LENGTH_FIELD + TYPE_FIELD + 15 + 7, // first sequence, low byte
            LENGTH_FIELD + TYPE_FIELD + 23 + 3, // route, low byte
        };
        for (int offset : offsets) {
            try (Socket s = new Socket()) {
                s.connect(at(r), 5_000);
                s.setSoTimeout(10_000);
                DataInputStream in = new DataInputStream(s.getInputStream());
                byte[] challenge = readFrame(in);
                byte[] nonce = Arrays.copyOfRange(challenge, 7, 7 + NONCE_LENGTH);
                byte[] hello = bytes(handshake.hello(ALLOC, FLAG_ACKNOWLEDGED, 5, 1, 0, 4, "p", "s", new byte[16],
                        Handshake.newNonce(), nonce));
                hello[offset] ^= 0x02; // each altered value stays valid on its own: only the MAC can tell
                s.getOutputStream().write(hello);
                String reason = errorThenClose(in);
                assertNotNull(reason, "refused, altered byte " + offset);
                assertTrue(reason.contains("authentication failed"), "altered byte " + offset + ": " + reason);
            }
        }
        assertEquals(offsets.length, r.metrics().authenticationFailures());
        assertEquals(0, r.streams(), "no stream was opened by an altered HELLO");
    }

    @Test
    void aSenderNeverStreamsToAReceiverThatCannotProveTheSecret() throws Exception {
        Collector c = new Collector();
        StreamReceiver impostor = transport("impostor", Map.of()).bind(0, c, t -> true, SequenceStore.inMemory());
        StreamSender s = transport("sender", Map.of("transport.auth.secret-file", secretFile("secret", SECRET).toString(),
                "transport.reliability", "acknowledged")).openSender("s", at(impostor), ControlListener.NONE);
        byte[] rec = record(0, 64);
        s.offer(0, rec, 0, rec.length);
        s.flush();
        await("the sender tried and refused", 10, () -> impostor.metrics().connectionsAccepted() >= 2);
        assertFalse(s.isReady(), "a receiver without the secret is never trusted");
        assertEquals(0, c.size());
        assertEquals(0, impostor.metrics().batchesReceived(), "not one batch reached it");
    }

    @Test
    void aSpoofedHelloCannotMakeALiveStreamsBatchesLookLikeDuplicates() throws Exception {
        Map<String, Object> o = Map.of("transport.reliability", "acknowledged");
        Collector c = new Collector();
        StreamReceiver r = transport("receiver", o).bind(0, c, t -> true, SequenceStore.inMemory());
        StreamSender s = transport("sender", o).openSender("s", at(r), ControlListener.NONE);
        await("ready", 10, s::isReady);
        for (int i = 0; i < 1_000; i++) {
            byte[] rec = record(i, 64);
            s.send(0, rec, 0, rec.length);
        }
        s.flush();
        await("first 1,000", 10, () -> c.size() >= 1_000);

        // An attacker who learnt the stream's peer, id and epoch claims it resumes far ahead.
        try (Socket attack = new Socket()) {
            attack.connect(at(r), 5_000);
            attack.setSoTimeout(10_000);
            DataInputStream in = new DataInputStream(attack.getInputStream());
            byte[] nonce = Arrays.copyOfRange(readFrame(in), 7, 7 + NONCE_LENGTH);
            attack.getOutputStream().write(bytes(new Handshake(null).hello(ALLOC, FLAG_ACKNOWLEDGED | FLAG_CHECKSUM, s.epoch(),
                    1_000_000, 0, 1, "sender", "s", new byte[16], Handshake.newNonce(), nonce)));
            String reason = errorThenClose(in);
            assertNotNull(reason);
            assertTrue(reason.contains("would skip sequences") && reason.contains("unauthenticated"), reason);
        }
        // A new incarnation claimed for the live stream is refused too.
        try (Socket attack = new Socket()) {
            attack.connect(at(r), 5_000);
            attack.setSoTimeout(10_000);
            DataInputStream in = new DataInputStream(attack.getInputStream());
            byte[] nonce = Arrays.copyOfRange(readFrame(in), 7, 7 + NONCE_LENGTH);
            attack.getOutputStream().write(bytes(new Handshake(null).hello(ALLOC, FLAG_ACKNOWLEDGED | FLAG_CHECKSUM,
                    s.epoch() + 2, 1, 0, 1, "sender", "s", new byte[16], Handshake.newNonce(), nonce)));
            String reason = errorThenClose(in);
            assertNotNull(reason);
            assertTrue(reason.contains("would replace incarnation"), reason);
        }
        assertEquals(2, r.metrics().hellosRefused());
        for (int i = 1_000; i < 2_000; i++) {
            byte[] rec = record(i, 64);
            s.send(0, rec, 0, rec.length);
        }
        s.flush();
        await("the real batches after the attack", 10, () -> c.size() >= 2_000,
                () -> c.size() + " delivered, receiver " + r.metrics() + " " + r.watermarks());
        assertEquals(2_000, c.size());
        assertEquals(0, r.metrics().duplicatesDropped(), "no real batch was taken for a duplicate");
    }

    @Test
    void anUnauthenticatedPeerIsBoundedInFrameSizeTimeAndConnections() throws Exception {
        Map<String, Object> o = Map.of("transport.handshake-timeout-ms", 300L, "transport.max-connections", 3);
        Collector c = new Collector();
        StreamReceiver r = transport("receiver", o).bind(0, c, t -> true, SequenceStore.inMemory());

        // A frame larger than the handshake needs, before the handshake: refused from its length alone.
        try (Socket s = new Socket()) {
            s.connect(at(r), 5_000);
            s.setSoTimeout(10_000);
            DataInputStream in = new DataInputStream(s.getInputStream());
            readFrame(in);
            s.getOutputStream().write(java.nio.ByteBuffer.allocate(5).putInt(PRE_AUTH_MAX_FRAME_LENGTH + 1).put(HELLO).array());
            String reason = errorThenClose(in);
            assertNotNull(reason);
            assertTrue(reason.contains("before the handshake"), reason);
        }

        // Silence after the CHALLENGE: closed after the handshake timeout.
        try (Socket s = new Socket()) {
            s.connect(at(r), 5_000);
            s.setSoTimeout(10_000);
            DataInputStream in = new DataInputStream(s.getInputStream());
            readFrame(in);
            long start = System.nanoTime();
            String reason = errorThenClose(in);
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertNotNull(reason);
            assertTrue(reason.contains("no authenticated HELLO within transport.handshake-timeout-ms"), reason);
            assertTrue(tookMs < 5_000, "closed after " + tookMs + " ms");
        }

        // Three silent connections take every place; a fourth is closed at once, without a CHALLENGE.
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Socket s = new Socket();
                s.connect(at(r), 5_000);
                s.setSoTimeout(10_000);
                readFrame(new DataInputStream(s.getInputStream()));
                held.add(s);
            }
            try (Socket fourth = new Socket()) {
                fourth.connect(at(r), 5_000);
                fourth.setSoTimeout(10_000);
                assertEquals(-1, fourth.getInputStream().read(), "closed at once");
            }
            assertTrue(r.metrics().connectionsRefused() >= 1, r.metrics().toString());
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
        // Once they are gone (closed, or timed out), a real sender gets in.
        StreamSender sender = transport("sender", Map.of()).openSender("s", at(r), ControlListener.NONE);
        await("a real sender connects once places are free", 10, sender::isReady);
    }
}
