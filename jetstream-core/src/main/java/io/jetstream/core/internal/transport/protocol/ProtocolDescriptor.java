package io.jetstream.core.internal.transport.protocol;

/**
 * Layout of JetStream transport frames, version {@value #VERSION} (docs/protocol.md). Every frame is
 * {@code [int length][byte type][body]}, big-endian, where {@code length} counts the type byte and the
 * body and never exceeds the receiver's configured maximum frame size ({@link #PRE_AUTH_MAX_FRAME_LENGTH}
 * before the handshake completes).
 *
 * <pre>
 * CHALLENGE    server→client  int magic, short version, byte[16] receiver nonce, byte[16] host token
 * HELLO        client→server  int magic, short version, byte flags, long epoch, long first sequence,
 *                             int route, int routes, short n + n bytes peer id, short n + n bytes stream id,
 *                             byte[16] host token, byte[16] sender nonce, byte n + n bytes MAC (0 or 32)
 * WELCOME      server→client  long last delivered sequence of this stream and epoch, int ring target,
 *                             short n + n bytes ring name (empty unless the sender shares the host),
 *                             byte n + n bytes MAC (0 or 32)
 * BATCH        client→server  long sequence, int record count, int CRC32C of the records (0 when off),
 *                             records: int target, int length, length bytes; at most one of them may be a
 *                             QoS tag (target {@link #TAG_TARGET}, 8 bytes: the wall-clock time in ns since
 *                             the epoch at which the record after it was emitted), neither counted nor delivered
 * ACK          server→client  long highest sequence delivered in order (cumulative); with the HELLO flag
 *                             authenticated-acks, then byte[16] truncated HMAC-SHA256(session key, "JSTM3 ACK" ‖ body)
 * CONTROL      server→client  long control sequence, int tag, int length, length bytes (back-pressure
 *                             status, load, ...); a sender applies a tag's sequences in increasing order only
 * PROBE        client→server  long probe id, padding
 * PROBE_ACK    server→client  long probe id
 * ERROR        either         short n + n bytes UTF-8 reason; the sender closes after it
 * LATENCY      server→client  long ns from a tagged record's emission to its delivery (Nephele's channel latency)
 * RING_FAILED  server→client  long last delivered sequence, short n + n bytes UTF-8 reason: the receiver's
 *                             ring stopped; resend over this connection what it did not acknowledge
 * CLOSE        client→server  (empty) the stream ends: the receiver forgets it once its routes are gone
 * RELAY_REQUEST  sender→relay  int magic, short version, short n + destination host (UTF-8), int port,
 *                             short n + stream label, byte[16] sender nonce, byte n + MAC (32)
 * RELAY_ACCEPTED relay→sender  byte n + MAC (32): the relay proves the relay secret and has connected the destination
 * </pre>
 *
 * The HELLO MAC is HMAC-SHA256(secret, "JSTM3 HELLO" ‖ receiver nonce ‖ the HELLO from its type byte
 * to its MAC length byte, excluded); the WELCOME MAC is HMAC-SHA256(secret, "JSTM3 WELCOME" ‖ sender
 * nonce ‖ receiver nonce ‖ the WELCOME from its type byte to its MAC length byte, excluded). Both
 * cover every field a peer acts on, and neither can be replayed on another connection.
 */
public final class ProtocolDescriptor {
    private ProtocolDescriptor() {}

    /** "JSTM". */
    public static final int MAGIC = 0x4A53544D;
    public static final short VERSION = 3;

    public static final byte CHALLENGE = 1;
    public static final byte HELLO = 2;
    public static final byte WELCOME = 3;
    public static final byte BATCH = 4;
    public static final byte ACK = 5;
    public static final byte CONTROL = 6;
    public static final byte PROBE = 7;
    public static final byte PROBE_ACK = 8;
    public static final byte ERROR = 9;
    public static final byte LATENCY = 10;
    public static final byte RING_FAILED = 11;
    public static final byte CLOSE = 12;
    /** Sender → relay: where to forward this connection, authenticated with the relay secret. */
    public static final byte RELAY_REQUEST = 13;
    /** Relay → sender: the destination is connected; from the next frame on the relay forwards both ways unchanged. */
    public static final byte RELAY_ACCEPTED = 14;

    /** HELLO flags. */
    public static final int FLAG_ACKNOWLEDGED = 1;
    public static final int FLAG_CHECKSUM = 2;
    /** The sender journals every batch and keeps its epoch across restarts (informational). */
    public static final int FLAG_DURABLE = 4;
    /**
     * The sender frees a ring batch once the ring's consumer head has passed it (best-effort streams):
     * the receiver does not acknowledge the batches this stream sends through its ring.
     */
    public static final int FLAG_RING_DELIVERY_FREES = 8;
    /**
     * Set on a HELLO sent through a relay with a stream secret: the receiver appends a truncated MAC
     * ({@link #ACK_MAC_LENGTH} bytes) to every ACK of the connection, which a relay cannot forge.
     */
    public static final int FLAG_AUTHENTICATED_ACKS = 16;
    /** The truncated HMAC-SHA256 of an authenticated ACK. */
    public static final int ACK_MAC_LENGTH = 16;

    public static final int LENGTH_FIELD = Integer.BYTES;
    public static final int TYPE_FIELD = 1;

    public static final int NONCE_LENGTH = 16;
    public static final int HOST_TOKEN_LENGTH = 16;
    public static final int MAC_LENGTH = 32;
    /** Longest peer or stream id, in UTF-8 bytes. */
    public static final int MAX_ID_LENGTH = 255;
    /** Longest ERROR reason, in UTF-8 bytes. */
    public static final int MAX_REASON_LENGTH = 1024;
    /** Largest CONTROL payload. */
    public static final int MAX_CONTROL_LENGTH = 64 << 10;

    /** BATCH body offsets, relative to the first byte after the type. */
    public static final int BATCH_SEQUENCE_OFFSET = 0;
    public static final int BATCH_COUNT_OFFSET = 8;
    public static final int BATCH_CHECKSUM_OFFSET = 12;
    public static final int BATCH_HEADER_LENGTH = 16;
    /** Bytes in front of a batch's first record, counting the length and type fields. */
    public static final int BATCH_FRAME_OVERHEAD = LENGTH_FIELD + TYPE_FIELD + BATCH_HEADER_LENGTH;
    /** Per record: target id and length. */
    public static final int RECORD_HEADER_LENGTH = 8;
    /** The target id of a QoS tag record: never a receiver's target. */
    public static final int TAG_TARGET = Integer.MIN_VALUE;
    /** A tag record's payload: one long, the emission time of the record after it. */
    public static final int TAG_LENGTH = Long.BYTES;

    /** Smallest allowed maximum frame: a handshake must fit. */
    public static final int MIN_MAX_FRAME_LENGTH = 1024;
    /**
     * Largest frame either side accepts before the handshake has authenticated the peer (a HELLO is
     * at most 627 bytes, a WELCOME 304, a CHALLENGE 39, an ERROR 1,027): an unauthenticated peer
     * cannot make a receiver buffer {@code transport.max-frame-bytes}.
     */
    public static final int PRE_AUTH_MAX_FRAME_LENGTH = 4096;
    /** Largest frame a sender accepts after the handshake: a CONTROL frame with the largest payload. */
    public static final int MAX_RECEIVER_FRAME_LENGTH = TYPE_FIELD + 8 + 8 + MAX_CONTROL_LENGTH;

    /** Largest payload of one record in a frame of at most {@code maxFrameLength} (length field excluded). */
    public static int maxRecordLength(int maxFrameLength) {
        return maxFrameLength - TYPE_FIELD - BATCH_HEADER_LENGTH - RECORD_HEADER_LENGTH;
    }

    public static String typeName(int type) {
        return switch (type) {
            case CHALLENGE -> "CHALLENGE";
            case HELLO -> "HELLO";
            case WELCOME -> "WELCOME";
            case BATCH -> "BATCH";
            case ACK -> "ACK";
            case CONTROL -> "CONTROL";
            case PROBE -> "PROBE";
            case PROBE_ACK -> "PROBE_ACK";
            case ERROR -> "ERROR";
            case LATENCY -> "LATENCY";
            case RING_FAILED -> "RING_FAILED";
            case CLOSE -> "CLOSE";
            case RELAY_REQUEST -> "RELAY_REQUEST";
            case RELAY_ACCEPTED -> "RELAY_ACCEPTED";
            default -> "unknown type " + type;
        };
    }
}
