package io.jetstream.core.internal.transport.netty;

import static io.jetstream.core.internal.transport.netty.TransportTestSupport.record;
import static io.jetstream.core.internal.transport.netty.TransportTestSupport.settings;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.internal.transport.handshake.Handshake;
import io.jetstream.core.internal.transport.handshake.SharedSecret;
import io.jetstream.core.internal.transport.netty.TransportTestSupport.Collector;
import io.jetstream.core.internal.transport.protocol.BatchFrameBuilder;
import io.jetstream.core.internal.transport.protocol.Frames;
import io.jetstream.core.testing.LeakRecorder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Seeded fuzzing of the receiver's whole connection pipeline (frame decoder, handshake, batch
 * validation with QoS tags, ordering) on an {@link EmbeddedChannel}: valid streams with random mutations
 * (flipped bytes, truncations, random lengths, junk) cut into random chunks. No exception may escape
 * the connection, no corrupted record may be delivered on a stream whose HELLO declared checksums
 * (a flip can clear that flag; such a stream is counted apart), memory stays bounded by the
 * maximum frame, and nothing leaks ({@link LeakRecorder}: a leak fails the test). Run without and
 * with authentication (the HELLO's MAC over the receiver's nonce; mutations break it), and with
 * oversized frames before the handshake, which must be refused from their length alone. Bounded in
 * iterations and time.
 */
class ReceiverFuzzTest {
    private static final int MAX_FRAME = 16 << 10;
    private static final int ITERATIONS = 3_000;
    private static final long TIME_BUDGET_NANOS = TimeUnit.SECONDS.toNanos(20);
    private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

    @org.junit.jupiter.params.ParameterizedTest(name = "authentication {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void randomAndMutatedFramesNeverEscapeTheConnection(boolean authenticated, @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        LeakRecorder.reset();
        Collector delivered = new Collector();
        Map<String, Object> options = new java.util.HashMap<>(Map.of("transport.max-frame-bytes", MAX_FRAME));
        Handshake handshake = new Handshake(null);
        if (authenticated) {
            java.nio.file.Path secret = dir.resolve("secret");
            java.nio.file.Files.writeString(secret, SECRET);
            options.put("transport.auth.secret-file", secret.toString());
            handshake = new Handshake(new SharedSecret(SECRET.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        }
        try (NettyTransport t = new NettyTransport(settings(options), "fuzz")) {
            StreamReceiver receiver = new StreamReceiver(t, delivered, target -> target >= 0 && target < 8, SequenceStore.inMemory());
            Random random = new Random(authenticated ? 20261124 : 20261122);
            long start = System.nanoTime();
            long maxDirect = 0;
            int iterations = 0;
            int corruptWithChecksums = 0;
            int withoutChecksums = 0;
            for (; iterations < ITERATIONS && System.nanoTime() - start < TIME_BUDGET_NANOS; iterations++) {
                EmbeddedChannel ch = new EmbeddedChannel(receiver.connectionInitializer());
                ch.runPendingTasks();
                ByteBuf challenge = ch.readOutbound();
                challenge.skipBytes(LENGTH_FIELD);
                byte[] nonce = Frames.readChallenge(challenge).nonce();
                challenge.release();
                ByteBuf input = input(random, iterations, handshake, nonce);
                // A flip of HELLO's flags byte can declare the stream unchecked: its records then carry
                // no CRC by the sender's own word, and corruption in them cannot be told apart.
                boolean checked = input.readableBytes() > HELLO_FLAGS_OFFSET && (input.getByte(HELLO_FLAGS_OFFSET) & FLAG_CHECKSUM) != 0;
                int corruptBefore = delivered.corrupt;
                try {
                    for (ByteBuf chunk : chunks(input, random)) {
                        if (!ch.isOpen()) {
                            chunk.release();
                            continue;
                        }
                        ch.writeInbound(chunk);
                        ch.runPendingTasks();
                        ch.checkException();
                        maxDirect = Math.max(maxDirect, PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory());
                    }
                } finally {
                    ch.finishAndReleaseAll();
                }
                if (checked) {
                    corruptWithChecksums += delivered.corrupt - corruptBefore;
                } else {
                    withoutChecksums++;
                }
            }
            receiver.close();
            assertTrue(iterations >= 200, "only " + iterations + " iterations in the time budget");
            assertEquals(0, corruptWithChecksums, "corrupted records delivered on streams with checksums ("
                    + withoutChecksums + " streams had the flag flipped off)");
            assertTrue(receiver.metrics().protocolErrors() > iterations / 4, "mutations refused: " + receiver.metrics());
            assertTrue(receiver.metrics().recordsDelivered() > 0, "intact batches delivered: " + receiver.metrics());
            if (authenticated) {
                assertTrue(receiver.metrics().authenticationFailures() > 0, "mutated HELLOs fail their MAC: " + receiver.metrics());
            }
            assertTrue(delivered.snapshot().stream().allMatch(d -> d.target() >= 0 && d.target() < 8),
                    "only records of known targets delivered (no QoS tag)");
            assertTrue(maxDirect < 64L << 20, "pooled direct memory peaked at " + maxDirect + " B");
        }
        LeakRecorder.assertNoLeaks();
    }

    private static final String SECRET = "a fuzzing secret of enough bytes";

    /** Where HELLO's flags byte sits in the stream: after its length, type, magic and version. */
    private static final int HELLO_FLAGS_OFFSET = LENGTH_FIELD + TYPE_FIELD + 4 + 2;

    /**
     * A valid stream (HELLO with checksums, its MAC over {@code nonce} when authenticating, batches
     * 1..n, a QoS tag in some), then one mutation.
     */
    private static ByteBuf input(Random random, int iteration, Handshake handshake, byte[] nonce) {
        ByteBuf all = ALLOC.buffer();
        ByteBuf hello = handshake.hello(ALLOC, FLAG_CHECKSUM, iteration + 1, 1, 0, 1, "p" + (iteration % 16), "s", new byte[16],
                Handshake.newNonce(), nonce);
        all.writeBytes(hello);
        hello.release();
        int batches = 1 + random.nextInt(4);
        for (int b = 1; b <= batches; b++) {
            BatchFrameBuilder builder = new BatchFrameBuilder(MAX_FRAME);
            builder.begin(ALLOC.buffer());
            int records = random.nextInt(6);
            int tagged = random.nextBoolean() ? random.nextInt(records + 1) : -1; // a QoS tag before one record in half the batches
            for (int r = 0; r < records; r++) {
                if (r == tagged) {
                    builder.appendTag(System.currentTimeMillis() * 1_000_000L);
                }
                byte[] rec = record(r, 8 + random.nextInt(200));
                builder.append(random.nextInt(8), rec, 0, rec.length);
            }
            ByteBuf f = builder.seal(b, true);
            all.writeBytes(f);
            f.release();
        }
        switch (random.nextInt(7)) {
            case 0 -> { } // intact
            case 1 -> { // flip bytes anywhere
                for (int i = 0, n = 1 + random.nextInt(4); i < n; i++) {
                    int at = random.nextInt(all.writerIndex());
                    all.setByte(at, all.getByte(at) ^ (1 + random.nextInt(255)));
                }
            }
            case 2 -> all.writerIndex(random.nextInt(all.writerIndex())); // truncated
            case 3 -> all.writeInt(random.nextInt()).writeByte(random.nextInt(12)); // a random frame header
            case 4 -> { // junk appended
                byte[] junk = new byte[random.nextInt(512)];
                random.nextBytes(junk);
                all.writeBytes(junk);
            }
            case 5 -> { // an oversized frame before the handshake: refused from its length alone
                ByteBuf big = ALLOC.buffer().writeInt(PRE_AUTH_MAX_FRAME_LENGTH + 1 + random.nextInt(MAX_FRAME - PRE_AUTH_MAX_FRAME_LENGTH))
                        .writeByte(HELLO);
                all = Unpooled.wrappedBuffer(big, all);
            }
            default -> { // a random length field inside the stream
                int at = random.nextInt(Math.max(1, all.writerIndex() - 4));
                all.setInt(at, random.nextInt());
            }
        }
        return all;
    }

    private static List<ByteBuf> chunks(ByteBuf all, Random random) {
        List<ByteBuf> out = new ArrayList<>();
        while (all.isReadable()) {
            out.add(all.readRetainedSlice(Math.min(all.readableBytes(), 1 + random.nextInt(700))));
        }
        all.release();
        return out;
    }
}
