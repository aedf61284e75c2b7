package io.jetstream.flink.ring;

import static io.jetstream.flink.ring.RingMessageDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.ring.RingConsumer;
import io.jetstream.core.ring.RingSettings;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.flink.runtime.io.network.buffer.Buffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The decoder of {@link RingMessageDescriptor} records, fed hand-made records: well-formed ones reach
 * the right side with their fields; malformed ones are rejected with an error naming what is wrong
 * before anything is read past the record; records of strangers are dropped. The peer is attached to a
 * real ring in a temporary directory (losing it is real).
 */
class RingMessageDecoderTest {
    private static final int PEER_PORT = 31_001;
    private static final int STRANGER_PORT = 31_002;

    @TempDir
    Path temp;

    private RingConsumer peerRing;
    private RingPeers peers;
    private RingPeer peer;
    private final RecordingMessages handlers = new RecordingMessages();
    private RingMessageDecoder decoder;
    private final UnsafeBuffer record = new UnsafeBuffer(new byte[256]);

    @BeforeEach
    void attachPeer() {
        RingSettings settings = RingSettings.defaults(temp).withCapacity(64 << 10, 16 << 10, 64 << 10);
        peerRing = RingConsumer.create(settings, ringName(PEER_PORT));
        peers = new RingPeers(settings, new StaleRingReclaimer(temp));
        peer = peers.attach(PEER_PORT, InetSocketAddress.createUnresolved("localhost", PEER_PORT));
        decoder = new RingMessageDecoder(peers, handlers, handlers);
    }

    @AfterEach
    void close() {
        peers.releaseAll();
        peerRing.close();
    }

    private void head(int from, int handle, int f1, int f2, int f3) {
        record.putInt(PORT_OFFSET, from);
        record.putInt(HANDLE_OFFSET, handle);
        record.putInt(FIELD1_OFFSET, f1);
        record.putInt(FIELD2_OFFSET, f2);
        record.putInt(FIELD3_OFFSET, f3);
    }

    private void bufferHead(int dataType, boolean compressed, int size) {
        head(PEER_PORT, 5, 11, 3, 2);
        record.putInt(DATA_TYPE_OFFSET, dataType);
        record.putInt(COMPRESSED_OFFSET, compressed ? 1 : 0);
        record.putInt(SIZE_OFFSET, size);
    }

    @Test
    void aBufferRecordReachesTheConsumerSideWithItsFieldsAndBytes() {
        bufferHead(Buffer.DataType.DATA_BUFFER.ordinal(), true, 4);
        record.putBytes(BUFFER_DATA_OFFSET, new byte[] {1, 2, 3, 4});
        decoder.onRecord(BUFFER, record, 0, BUFFER_DATA_OFFSET + 4);
        assertEquals(List.of("BUFFER 31001/5 seq 11 backlog 3 subpartition 2 DATA_BUFFER compressed 4 bytes"), handlers.log);
        assertArrayEquals(new byte[] {1, 2, 3, 4}, handlers.lastData);
    }

    @Test
    void controlMessagesReachTheirSideWithTheirFieldsAndTails() {
        head(PEER_PORT, 9, 4, 0, 7);
        record.putBytes(HEAD_LENGTH, new byte[] {42, 43});
        decoder.onRecord(REQUEST, record, 0, HEAD_LENGTH + 2);
        head(PEER_PORT, 9, 6, 0, 0);
        decoder.onRecord(CREDIT, record, 0, HEAD_LENGTH);
        head(PEER_PORT, 9, 1, 2, 0);
        decoder.onRecord(SEGMENT, record, 0, HEAD_LENGTH);
        head(PEER_PORT, 9, 0, 0, 0);
        record.putBytes(HEAD_LENGTH, RecordingMessages.utf8("blocking"));
        decoder.onRecord(REDIRECT, record, 0, HEAD_LENGTH + 8);
        decoder.onRecord(HELLO_ACK, record, 0, HEAD_LENGTH);
        assertEquals(List.of(
                "REQUEST 31001/9 credit 4 subpartitions 0-7 partition [42, 43]",
                "CREDIT 31001/9 6",
                "SEGMENT 31001/9 1 2",
                "REDIRECT 31001/9 blocking",
                "HELLO_ACK 31001"), handlers.log);
    }

    @Test
    void aBufferClaimingMoreBytesThanItsRecordHoldsLosesItsSenderNamingTheCorruption() {
        bufferHead(Buffer.DataType.DATA_BUFFER.ordinal(), false, 1 << 30);
        decoder.onRecord(BUFFER, record, 0, BUFFER_DATA_OFFSET);
        assertTrue(handlers.log.isEmpty(), "nothing delivered: " + handlers.log);
        assertTrue(peer.lost, "the sender is lost");
        assertEquals("corrupt ring record: a buffer of 1073741824 bytes in a record holding 0", peer.lostCause);
    }

    @Test
    void aBufferOfANegativeSizeOrAnUnknownDataTypeIsCorrupt() {
        bufferHead(Buffer.DataType.DATA_BUFFER.ordinal(), false, -1);
        assertEquals("a buffer of -1 bytes in a record holding 8",
                RingMessageDecoder.malformed(BUFFER, record, 0, BUFFER_DATA_OFFSET + 8));
        bufferHead(99, false, 0);
        assertEquals("data type 99 (Flink has " + Buffer.DataType.values().length + ")",
                RingMessageDecoder.malformed(BUFFER, record, 0, BUFFER_DATA_OFFSET));
        decoder.onRecord(BUFFER, record, 0, BUFFER_DATA_OFFSET);
        assertTrue(handlers.log.isEmpty(), "nothing delivered: " + handlers.log);
        assertEquals("corrupt ring record: data type 99 (Flink has " + Buffer.DataType.values().length + ")", peer.lostCause);
    }

    @Test
    void aBufferRecordShorterThanItsOwnHeadIsCorrupt() {
        bufferHead(Buffer.DataType.DATA_BUFFER.ordinal(), false, 0);
        decoder.onRecord(BUFFER, record, 0, HEAD_LENGTH + 4);
        assertTrue(handlers.log.isEmpty(), "nothing delivered: " + handlers.log);
        assertEquals("corrupt ring record: a buffer record of 24 bytes, shorter than its 32-byte head", peer.lostCause);
    }

    @Test
    void aRecordShorterThanTheHeadIsDroppedWithoutBlamingAnyone() {
        head(PEER_PORT, 1, 1, 0, 0);
        assertEquals("12 bytes of type 3, shorter than the 20-byte head", RingMessageDecoder.malformed(CREDIT, record, 0, 12));
        decoder.onRecord(CREDIT, record, 0, 12);
        assertTrue(handlers.log.isEmpty(), "nothing delivered: " + handlers.log);
        assertFalse(peer.lost, "no sender to blame: its port is not even in the record");
    }

    @Test
    void wellFormedRecordsAreNotMalformed() {
        bufferHead(Buffer.DataType.EVENT_BUFFER.ordinal(), false, 8);
        assertNull(RingMessageDecoder.malformed(BUFFER, record, 0, BUFFER_DATA_OFFSET + 8));
        assertNull(RingMessageDecoder.malformed(CANCEL, record, 0, HEAD_LENGTH));
    }

    @Test
    void messagesOfATaskManagerThatIsNoPeerAreDroppedButItsHandshakeIsAnswered() {
        head(STRANGER_PORT, 1, 5, 0, 0);
        decoder.onRecord(CREDIT, record, 0, HEAD_LENGTH);
        bufferHead(99, false, 1 << 30);
        record.putInt(PORT_OFFSET, STRANGER_PORT);
        decoder.onRecord(BUFFER, record, 0, BUFFER_DATA_OFFSET);
        head(STRANGER_PORT, CONNECTION_HANDLE, 0, 0, 0);
        decoder.onRecord(HELLO, record, 0, HEAD_LENGTH);
        assertEquals(List.of("HELLO from 31002"), handlers.log);
        assertFalse(peer.lost, "a stranger's corrupt record does not lose a peer");
    }

    @Test
    void messagesOfALostPeerAreDropped() {
        peers.lose(peer, "test");
        head(PEER_PORT, 1, 5, 0, 0);
        decoder.onRecord(CREDIT, record, 0, HEAD_LENGTH);
        assertTrue(handlers.log.isEmpty(), "nothing delivered: " + handlers.log);
    }

    @Test
    void unknownTypesAndFailingHandlersNeverThrowIntoTheRing() {
        head(PEER_PORT, 1, 0, 0, 0);
        decoder.onRecord(77, record, 0, HEAD_LENGTH);
        handlers.failWith = new IllegalStateException("handler bug");
        decoder.onRecord(CANCEL, record, 0, HEAD_LENGTH);
        assertTrue(handlers.log.isEmpty(), "nothing delivered: " + handlers.log);
        assertFalse(peer.lost, "a handler's bug is logged, not blamed on the peer");
    }
}
