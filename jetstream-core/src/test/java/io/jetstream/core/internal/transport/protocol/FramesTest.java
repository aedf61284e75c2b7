package io.jetstream.core.internal.transport.protocol;

import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every frame type through {@link FrameDecoder} on an {@link EmbeddedChannel} and back, and the batch layout byte by byte. */
class FramesTest {
    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

    /** Writes {@code frame} in pieces of 3 bytes and returns the one decoded frame (type byte first). */
    private static ByteBuf roundTrip(ByteBuf frame) {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(4096));
        while (frame.isReadable()) {
            ch.writeInbound(frame.readRetainedSlice(Math.min(3, frame.readableBytes())));
        }
        frame.release();
        ByteBuf out = ch.readInbound();
        Object extra = ch.readInbound();
        org.junit.jupiter.api.Assertions.assertNull(extra, "exactly one frame");
        ch.finishAndReleaseAll();
        return out;
    }

    @Test
    void handshakeFrames() {
        byte[] nonce = new byte[NONCE_LENGTH];
        byte[] host = new byte[HOST_TOKEN_LENGTH];
        nonce[3] = 7;
        host[15] = 9;
        ByteBuf c = roundTrip(Frames.challenge(ALLOC, nonce, host));
        Frames.Challenge challenge = Frames.readChallenge(c);
        c.release();
        assertArrayEquals(nonce, challenge.nonce());
        assertArrayEquals(host, challenge.hostToken());

        byte[] mac = new byte[MAC_LENGTH];
        mac[0] = 1;
        byte[] senderNonce = new byte[NONCE_LENGTH];
        senderNonce[0] = 5;
        List<Integer> signedLengths = new ArrayList<>();
        ByteBuf h = roundTrip(Frames.hello(ALLOC, FLAG_CHECKSUM | FLAG_ACKNOWLEDGED, 42, 17, 2, 4, "peer-ü", "stream", host,
                senderNonce, signed -> {
                    signedLengths.add(signed.readableBytes());
                    return mac;
                }));
        Frames.Hello hello = Frames.readHello(h);
        h.release();
        assertEquals(42, hello.epoch());
        assertEquals(17, hello.firstSequence());
        assertEquals(2, hello.route());
        assertEquals(4, hello.routes());
        assertEquals("peer-ü", hello.peerId());
        assertEquals("stream", hello.streamId());
        assertTrue(hello.acknowledged() && hello.checksum());
        assertArrayEquals(mac, hello.mac());
        assertArrayEquals(senderNonce, hello.senderNonce());
        assertEquals(signedLengths.get(0), hello.signed().length, "the MAC covers what the reader reads as signed");
        assertEquals(HELLO, hello.signed()[0], "from the type byte");

        ByteBuf w = roundTrip(Frames.welcome(ALLOC, 99, 3, "rx-a-1", signed -> new byte[0]));
        Frames.Welcome welcome = Frames.readWelcome(w);
        w.release();
        assertEquals(99, welcome.lastDelivered());
        assertEquals(3, welcome.ringTarget());
        assertEquals("rx-a-1", welcome.ringName());
        assertEquals(0, welcome.mac().length);
    }

    @Test
    void controlPlaneFrames() {
        ByteBuf a = roundTrip(Frames.ack(ALLOC, 1234));
        assertEquals(1234, Frames.readLongBody(a, ACK));
        a.release();
        ByteBuf c = roundTrip(Frames.control(ALLOC, 77, -600, new byte[] {1, 2, 3}));
        assertEquals(new Frames.ControlHeader(77, -600), Frames.readControlHeader(c));
        assertEquals(3, c.readableBytes());
        c.release();
        ByteBuf p = roundTrip(Frames.probe(ALLOC, 5, 1000, 4096));
        assertEquals(1000 - LENGTH_FIELD, p.readableBytes(), "a probe occupies its size on the wire");
        assertEquals(5, Frames.readLongBody(p, PROBE));
        p.release();
        ByteBuf l = roundTrip(Frames.latency(ALLOC, 7_500_000));
        assertEquals(7_500_000, Frames.readLongBody(l, LATENCY));
        l.release();
        ByteBuf e = roundTrip(Frames.error(ALLOC, "no"));
        assertEquals("no", Frames.readError(e));
        e.release();
        ByteBuf r = roundTrip(Frames.ringFailed(ALLOC, 41, "corrupt"));
        assertEquals(new Frames.RingFailed(41, "corrupt"), Frames.readRingFailed(r));
        r.release();
        ByteBuf close = roundTrip(Frames.close(ALLOC));
        assertEquals(CLOSE, close.readByte());
        assertEquals(0, close.readableBytes());
        close.release();
    }

    @Test
    void batchLayoutAndValidation() {
        BatchFrameBuilder b = new BatchFrameBuilder(4096);
        b.begin(ALLOC.buffer());
        b.append(7, new byte[] {10, 11, 12}, 0, 3);
        b.append(8, new byte[0], 0, 0);
        ByteBuf f = b.seal(5, true);
        assertEquals(BATCH_FRAME_OVERHEAD + 8 + 3 + 8, f.readableBytes());
        assertEquals(f.readableBytes() - LENGTH_FIELD, f.getInt(0));
        assertEquals(BATCH, f.getByte(LENGTH_FIELD));
        assertEquals(5, f.getLong(LENGTH_FIELD + TYPE_FIELD + BATCH_SEQUENCE_OFFSET));
        assertEquals(2, f.getInt(LENGTH_FIELD + TYPE_FIELD + BATCH_COUNT_OFFSET));
        assertEquals(7, f.getInt(BATCH_FRAME_OVERHEAD));
        assertEquals(3, f.getInt(BATCH_FRAME_OVERHEAD + 4));

        ByteBuf frame = roundTrip(f);
        BatchFrameReader reader = new BatchFrameReader(4096);
        reader.validate(frame, true, t -> t == 7 || t == 8);
        assertEquals(5, reader.sequence());
        List<String> got = new ArrayList<>();
        BatchRecords.deliver(reader.records(), 0, reader.recordsLength(), (target, buffer, offset, length) -> {
            StringBuilder sb = new StringBuilder().append(target).append(':');
            for (int i = 0; i < length; i++) {
                sb.append(buffer.getByte(offset + i)).append(' ');
            }
            got.add(sb.toString().trim());
        }, tag -> fail("no tag was sent"));
        assertEquals(List.of("7:10 11 12", "8:"), got);
        frame.release();
    }

    @Test
    void aQosTagTravelsWithTheRecordsButIsNeitherCountedNorDelivered() {
        BatchFrameBuilder b = new BatchFrameBuilder(4096);
        b.begin(ALLOC.buffer());
        b.append(7, new byte[] {1}, 0, 1);
        b.appendTag(1_700_000_000_123_456_789L);
        b.append(8, new byte[] {2}, 0, 1);
        assertEquals(2, b.recordCount());
        ByteBuf frame = roundTrip(b.seal(9, true));
        BatchFrameReader reader = new BatchFrameReader(4096);
        reader.validate(frame, true, t -> t == 7 || t == 8);
        assertEquals(2, reader.count());
        List<String> seen = new ArrayList<>();
        BatchRecords.deliver(reader.records(), 0, reader.recordsLength(), (target, buffer, offset, length) -> seen.add("record " + target),
                tag -> seen.add("tag " + tag));
        assertEquals(List.of("record 7", "tag 1700000000123456789", "record 8"), seen,
                "the tag is handed over where its record is delivered");
        frame.release();
    }

    @Test
    void aMalformedQosTagIsRefusedByName() {
        BatchFrameReader reader = new BatchFrameReader(4096);
        // A "tag" of 4 bytes.
        ByteBuf shortTag = batchOf(f -> f.writeInt(TAG_TARGET).writeInt(4).writeInt(0).writeInt(7).writeInt(0), 1);
        ProtocolException e = assertThrows(ProtocolException.class, () -> reader.validate(shortTag, false, t -> t == 7));
        assertTrue(e.getMessage().contains("QoS tag of 4 B; a tag has 8"), e.getMessage());
        shortTag.release();
        // Two tags in one batch.
        ByteBuf twoTags = batchOf(f -> {
            f.writeInt(TAG_TARGET).writeInt(8).writeLong(1);
            f.writeInt(TAG_TARGET).writeInt(8).writeLong(2);
            f.writeInt(7).writeInt(0);
        }, 1);
        e = assertThrows(ProtocolException.class, () -> reader.validate(twoTags, false, t -> t == 7));
        assertTrue(e.getMessage().contains("more than one QoS tag"), e.getMessage());
        twoTags.release();
        // A tag after the last counted record.
        ByteBuf trailing = batchOf(f -> f.writeInt(7).writeInt(0).writeInt(TAG_TARGET).writeInt(8).writeLong(1), 1);
        e = assertThrows(ProtocolException.class, () -> reader.validate(trailing, false, t -> t == 7));
        assertTrue(e.getMessage().contains("bytes after its 1 records"), e.getMessage());
        trailing.release();
    }

    /** A BATCH frame body (type byte first) of sequence 1 declaring {@code count} records, written by {@code records}. */
    private static ByteBuf batchOf(java.util.function.Consumer<ByteBuf> records, int count) {
        ByteBuf f = ALLOC.buffer().writeByte(BATCH).writeLong(1).writeInt(count).writeInt(0);
        records.accept(f);
        return f;
    }

    @Test
    void aLimitSealsBatchesEarlierButALargeRecordStillGetsAFrame() {
        BatchFrameBuilder b = new BatchFrameBuilder(4096);
        b.limit(100);
        b.begin(ALLOC.buffer());
        assertTrue(b.fits(100 - BATCH_FRAME_OVERHEAD - RECORD_HEADER_LENGTH));
        assertTrue(!b.fits(100 - BATCH_FRAME_OVERHEAD - RECORD_HEADER_LENGTH + 1));
        b.discard();
    }

    @Test
    void decoderRefusesLengthsOutsideItsBoundBeforeBuffering() {
        FrameDecoder decoder = new FrameDecoder(1 << 20);
        decoder.authenticated();
        EmbeddedChannel ch = new EmbeddedChannel(decoder);
        DecoderException e = assertThrows(DecoderException.class,
                () -> ch.writeInbound(ALLOC.buffer().writeInt((1 << 20) + 1).writeByte(BATCH)));
        assertTrue(e.getCause() instanceof ProtocolException && e.getCause().getMessage().contains("1048577"), e.toString());
        ch.finishAndReleaseAll();
        assertThrows(IllegalArgumentException.class, () -> new FrameDecoder(100));
    }

    @Test
    void beforeTheHandshakeOnlySmallFramesAreAccepted() {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1 << 20));
        int tooLarge = PRE_AUTH_MAX_FRAME_LENGTH + 1;
        DecoderException e = assertThrows(DecoderException.class, () -> ch.writeInbound(ALLOC.buffer().writeInt(tooLarge).writeByte(HELLO)));
        assertTrue(e.getCause().getMessage().contains(tooLarge + " outside [1, " + PRE_AUTH_MAX_FRAME_LENGTH + "] before the handshake"),
                e.getCause().getMessage());
        ch.finishAndReleaseAll();
    }

    @Test
    void strictDecodingNamesTheField() {
        ByteBuf w = Frames.welcome(ALLOC, 1, -1, "ring", signed -> new byte[0]);
        w.skipBytes(LENGTH_FIELD);
        ByteBuf truncated = w.readSlice(w.readableBytes() - 2);
        ProtocolException e = assertThrows(ProtocolException.class, () -> Frames.readWelcome(truncated));
        assertTrue(e.getMessage().contains("truncated frame: ring name"), e.getMessage());
        w.release();
        ByteBuf ack = Frames.ack(ALLOC, 1);
        ack.skipBytes(LENGTH_FIELD);
        ProtocolException wrongType = assertThrows(ProtocolException.class, () -> Frames.readLongBody(ack, WELCOME));
        assertTrue(wrongType.getMessage().contains("expected WELCOME, got ACK"), wrongType.getMessage());
        ack.release();
    }
}
