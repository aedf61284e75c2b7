package io.jetstream.core.internal.transport.protocol;

import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.*;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;

/**
 * Encoding and strict decoding of the control-plane frames (everything but BATCH, which
 * {@link BatchFrameBuilder} and {@link BatchFrameReader} handle). Decoders take a frame as cut by
 * {@link FrameDecoder} (type byte first) and throw {@link ProtocolException} naming the field at fault;
 * they never allocate from a peer-supplied length beyond the protocol's fixed bounds.
 *
 * <p>Stateless; any thread.
 */
public final class Frames {
    private Frames() {}

    public record Challenge(byte[] nonce, byte[] hostToken) {}

    /**
     * A HELLO as read: its fields, and the bytes its MAC covers ({@code signed}: from the type byte to
     * the MAC length byte, excluded; at most {@link ProtocolDescriptor#PRE_AUTH_MAX_FRAME_LENGTH}).
     */
    public record Hello(int flags, long epoch, long firstSequence, int route, int routes, String peerId, String streamId,
            byte[] hostToken, byte[] senderNonce, byte[] mac, byte[] signed) {
        public boolean acknowledged() {
            return (flags & FLAG_ACKNOWLEDGED) != 0;
        }

        public boolean checksum() {
            return (flags & FLAG_CHECKSUM) != 0;
        }

        public boolean durable() {
            return (flags & FLAG_DURABLE) != 0;
        }
    }

    public static ByteBuf challenge(ByteBufAllocator alloc, byte[] nonce, byte[] hostToken) {
        ByteBuf b = start(alloc, CHALLENGE, 4 + 2 + NONCE_LENGTH + HOST_TOKEN_LENGTH);
        b.writeInt(MAGIC).writeShort(VERSION).writeBytes(nonce, 0, NONCE_LENGTH).writeBytes(hostToken, 0, HOST_TOKEN_LENGTH);
        return finish(b);
    }

    public static Challenge readChallenge(ByteBuf f) {
        expectType(f, CHALLENGE);
        checkMagicAndVersion(f);
        byte[] nonce = readFixed(f, NONCE_LENGTH, "nonce");
        byte[] host = readFixed(f, HOST_TOKEN_LENGTH, "host token");
        expectEnd(f, "CHALLENGE");
        return new Challenge(nonce, host);
    }

    /**
     * Encodes a HELLO; {@code mac} computes its MAC from the signed bytes (the frame so far, from the
     * type byte), or returns an empty array without a secret.
     */
    public static ByteBuf hello(ByteBufAllocator alloc, int flags, long epoch, long firstSequence, int route, int routes,
            String peerId, String streamId, byte[] hostToken, byte[] senderNonce, java.util.function.Function<ByteBuf, byte[]> mac) {
        byte[] peer = utf8(peerId, "peer id");
        byte[] stream = utf8(streamId, "stream id");
        ByteBuf b = start(alloc, HELLO, 4 + 2 + 1 + 8 + 8 + 4 + 4 + 2 + peer.length + 2 + stream.length
                + HOST_TOKEN_LENGTH + NONCE_LENGTH + 1 + MAC_LENGTH);
        b.writeInt(MAGIC).writeShort(VERSION).writeByte(flags).writeLong(epoch).writeLong(firstSequence).writeInt(route)
                .writeInt(routes);
        b.writeShort(peer.length).writeBytes(peer).writeShort(stream.length).writeBytes(stream);
        b.writeBytes(hostToken, 0, HOST_TOKEN_LENGTH).writeBytes(senderNonce, 0, NONCE_LENGTH);
        byte[] m = mac.apply(b.slice(LENGTH_FIELD, b.writerIndex() - LENGTH_FIELD));
        b.writeByte(m.length).writeBytes(m);
        return finish(b);
    }

    public static Hello readHello(ByteBuf f) {
        int from = f.readerIndex();
        expectType(f, HELLO);
        checkMagicAndVersion(f);
        need(f, 1 + 8 + 8 + 4 + 4, "HELLO flags, epoch, first sequence and routes");
        int flags = f.readByte();
        long epoch = f.readLong();
        long first = f.readLong();
        if (first < 1) {
            throw new ProtocolException("HELLO first sequence " + first + " < 1");
        }
        int route = f.readInt();
        int routes = f.readInt();
        if (routes < 1 || routes > 64 || route < 0 || route >= routes) {
            throw new ProtocolException("HELLO route " + route + " of " + routes + " outside [0, routes) with routes in [1, 64]");
        }
        String peer = readId(f, "peer id");
        String stream = readId(f, "stream id");
        byte[] host = readFixed(f, HOST_TOKEN_LENGTH, "host token");
        byte[] senderNonce = readFixed(f, NONCE_LENGTH, "sender nonce");
        byte[] signed = new byte[f.readerIndex() - from];
        f.getBytes(from, signed);
        byte[] mac = readMac(f, "HELLO");
        expectEnd(f, "HELLO");
        return new Hello(flags, epoch, first, route, routes, peer, stream, host, senderNonce, mac, signed);
    }

    /**
     * WELCOME: the watermark and, for a sender on this host, the ring to write batches to (else -1
     * and ""); {@code signed} are the bytes its MAC covers, {@code mac} empty without a secret.
     */
    public record Welcome(long lastDelivered, int ringTarget, String ringName, byte[] mac, byte[] signed) {}

    /** Encodes a WELCOME; {@code mac} computes its MAC from the signed bytes (from the type byte). */
    public static ByteBuf welcome(ByteBufAllocator alloc, long lastDelivered, int ringTarget, String ringName,
            java.util.function.Function<ByteBuf, byte[]> mac) {
        byte[] ring = utf8(ringName, "ring name");
        ByteBuf b = start(alloc, WELCOME, 8 + 4 + 2 + ring.length + 1 + MAC_LENGTH).writeLong(lastDelivered).writeInt(ringTarget)
                .writeShort(ring.length).writeBytes(ring);
        byte[] m = mac.apply(b.slice(LENGTH_FIELD, b.writerIndex() - LENGTH_FIELD));
        b.writeByte(m.length).writeBytes(m);
        return finish(b);
    }

    public static Welcome readWelcome(ByteBuf f) {
        int from = f.readerIndex();
        expectType(f, WELCOME);
        need(f, 8 + 4, "WELCOME watermark and ring target");
        long lastDelivered = f.readLong();
        int ringTarget = f.readInt();
        String ring = readId(f, "ring name");
        byte[] signed = new byte[f.readerIndex() - from];
        f.getBytes(from, signed);
        byte[] mac = readMac(f, "WELCOME");
        expectEnd(f, "WELCOME");
        return new Welcome(lastDelivered, ringTarget, ring, mac, signed);
    }

    /**
     * A RELAY_REQUEST as read: where to forward, the label the relay names the stream by, the sender's
     * nonce, the MAC, and the bytes the MAC covers (from the type byte to the MAC length byte, excluded).
     */
    public record RelayRequest(String host, int port, String label, byte[] senderNonce, byte[] mac, byte[] signed) {}

    /** Encodes a RELAY_REQUEST; {@code mac} computes its MAC from the signed bytes (from the type byte). */
    public static ByteBuf relayRequest(ByteBufAllocator alloc, String host, int port, String label, byte[] senderNonce,
            java.util.function.Function<ByteBuf, byte[]> mac) {
        byte[] h = utf8(host, "destination host");
        byte[] l = utf8(label, "stream label");
        ByteBuf b = start(alloc, RELAY_REQUEST, 4 + 2 + 2 + h.length + 4 + 2 + l.length + NONCE_LENGTH + 1 + MAC_LENGTH);
        b.writeInt(MAGIC).writeShort(VERSION).writeShort(h.length).writeBytes(h).writeInt(port).writeShort(l.length).writeBytes(l)
                .writeBytes(senderNonce, 0, NONCE_LENGTH);
        byte[] m = mac.apply(b.slice(LENGTH_FIELD, b.writerIndex() - LENGTH_FIELD));
        b.writeByte(m.length).writeBytes(m);
        return finish(b);
    }

    public static RelayRequest readRelayRequest(ByteBuf f) {
        int from = f.readerIndex();
        expectType(f, RELAY_REQUEST);
        checkMagicAndVersion(f);
        String host = readId(f, "destination host");
        need(f, 4, "destination port");
        int port = f.readInt();
        if (port < 1 || port > 65535) {
            throw new ProtocolException("RELAY_REQUEST port " + port + " outside [1, 65535]");
        }
        String label = readId(f, "stream label");
        byte[] nonce = readFixed(f, NONCE_LENGTH, "sender nonce");
        byte[] signed = new byte[f.readerIndex() - from];
        f.getBytes(from, signed);
        byte[] mac = readMac(f, "RELAY_REQUEST");
        expectEnd(f, "RELAY_REQUEST");
        return new RelayRequest(host, port, label, nonce, mac, signed);
    }

    public static ByteBuf relayAccepted(ByteBufAllocator alloc, byte[] mac) {
        return finish(start(alloc, RELAY_ACCEPTED, 1 + mac.length).writeByte(mac.length).writeBytes(mac));
    }

    /** The MAC of a RELAY_ACCEPTED. */
    public static byte[] readRelayAccepted(ByteBuf f) {
        expectType(f, RELAY_ACCEPTED);
        byte[] mac = readMac(f, "RELAY_ACCEPTED");
        expectEnd(f, "RELAY_ACCEPTED");
        return mac;
    }

    /** RING_FAILED: the receiver's ring stopped; what it delivered so far, and why. */
    public record RingFailed(long lastDelivered, String reason) {}

    public static ByteBuf ringFailed(ByteBufAllocator alloc, long lastDelivered, String reason) {
        byte[] r = reason.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(r.length, MAX_REASON_LENGTH);
        return finish(start(alloc, RING_FAILED, 8 + 2 + n).writeLong(lastDelivered).writeShort(n).writeBytes(r, 0, n));
    }

    public static RingFailed readRingFailed(ByteBuf f) {
        expectType(f, RING_FAILED);
        need(f, 8 + 2, "RING_FAILED watermark and reason length");
        long lastDelivered = f.readLong();
        int n = f.readUnsignedShort();
        if (n > MAX_REASON_LENGTH) {
            throw new ProtocolException("RING_FAILED reason of " + n + " B > " + MAX_REASON_LENGTH);
        }
        need(f, n, "RING_FAILED reason");
        String reason = f.readCharSequence(n, StandardCharsets.UTF_8).toString();
        expectEnd(f, "RING_FAILED");
        return new RingFailed(lastDelivered, reason);
    }

    /** CLOSE: the sender ends the stream. */
    public static ByteBuf close(ByteBufAllocator alloc) {
        return finish(start(alloc, CLOSE, 0));
    }

    public static ByteBuf ack(ByteBufAllocator alloc, long sequence) {
        return finish(start(alloc, ACK, 8).writeLong(sequence));
    }

    /** Appends the MAC of an authenticated ACK ({@code authenticated-acks}) to its frame. */
    public interface AckSigner {
        void sign(long watermark, ByteBuf frame);
    }

    /** An ACK followed by its {@link ProtocolDescriptor#ACK_MAC_LENGTH}-byte MAC. */
    public static ByteBuf ack(ByteBufAllocator alloc, long sequence, AckSigner signer) {
        ByteBuf b = start(alloc, ACK, 8 + ACK_MAC_LENGTH).writeLong(sequence);
        signer.sign(sequence, b);
        return finish(b);
    }

    /** Nephele's channel latency of one tagged record, measured by the receiver. */
    public static ByteBuf latency(ByteBufAllocator alloc, long nanos) {
        return finish(start(alloc, LATENCY, 8).writeLong(nanos));
    }

    public static ByteBuf probeAck(ByteBufAllocator alloc, long id) {
        return finish(start(alloc, PROBE_ACK, 8).writeLong(id));
    }

    /** A probe of {@code bytes} on the wire (at least the header); the padding is zeros. */
    public static ByteBuf probe(ByteBufAllocator alloc, long id, int bytes, int maxFrameLength) {
        int body = Math.max(8, Math.min(bytes - LENGTH_FIELD - TYPE_FIELD, maxFrameLength - TYPE_FIELD));
        ByteBuf b = start(alloc, PROBE, body).writeLong(id);
        b.writeZero(body - 8);
        return finish(b);
    }

    /** A CONTROL frame; {@code sequence} orders a receiver's control frames across its connections. */
    public static ByteBuf control(ByteBufAllocator alloc, long sequence, int tag, byte[] payload) {
        if (payload.length > MAX_CONTROL_LENGTH) {
            throw new IllegalArgumentException("control payload of " + payload.length + " B > " + MAX_CONTROL_LENGTH);
        }
        return finish(start(alloc, CONTROL, 16 + payload.length).writeLong(sequence).writeInt(tag).writeInt(payload.length)
                .writeBytes(payload));
    }

    public static ByteBuf error(ByteBufAllocator alloc, String reason) {
        byte[] r = reason.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(r.length, MAX_REASON_LENGTH);
        return finish(start(alloc, ERROR, 2 + n).writeShort(n).writeBytes(r, 0, n));
    }

    public static String readError(ByteBuf f) {
        expectType(f, ERROR);
        need(f, 2, "ERROR reason length");
        int n = f.readUnsignedShort();
        if (n > MAX_REASON_LENGTH) {
            throw new ProtocolException("ERROR reason of " + n + " B > " + MAX_REASON_LENGTH);
        }
        need(f, n, "ERROR reason");
        return f.readCharSequence(n, StandardCharsets.UTF_8).toString();
    }

    /** The long of an 8-byte body (ACK, PROBE_ACK, LATENCY; PROBE may carry padding after it). */
    public static long readLongBody(ByteBuf f, byte type) {
        expectType(f, type);
        need(f, 8, typeName(type) + " body");
        long v = f.readLong();
        if (type != PROBE) {
            expectEnd(f, typeName(type));
        }
        return v;
    }

    /** A CONTROL frame's header; the payload stays in the frame (its readable bytes). */
    public record ControlHeader(long sequence, int tag) {}

    /** Reads a CONTROL header; the payload stays in {@code f} (readable bytes = payload). */
    public static ControlHeader readControlHeader(ByteBuf f) {
        expectType(f, CONTROL);
        need(f, 16, "CONTROL sequence, tag and length");
        long sequence = f.readLong();
        int tag = f.readInt();
        int n = f.readInt();
        if (n < 0 || n > MAX_CONTROL_LENGTH || n != f.readableBytes()) {
            throw new ProtocolException("CONTROL length " + n + " does not match the " + f.readableBytes()
                    + " bytes that follow (max " + MAX_CONTROL_LENGTH + ")");
        }
        return new ControlHeader(sequence, tag);
    }

    private static byte[] readMac(ByteBuf f, String frame) {
        need(f, 1, frame + " MAC length");
        int macLength = f.readUnsignedByte();
        if (macLength != 0 && macLength != MAC_LENGTH) {
            throw new ProtocolException(frame + " MAC length " + macLength + " is neither 0 nor " + MAC_LENGTH);
        }
        return readFixed(f, macLength, "MAC");
    }

    static void expectType(ByteBuf f, byte type) {
        byte t = f.readByte();
        if (t != type) {
            throw new ProtocolException("expected " + typeName(type) + ", got " + typeName(t));
        }
    }

    private static void checkMagicAndVersion(ByteBuf f) {
        need(f, 6, "magic and version");
        int magic = f.readInt();
        if (magic != MAGIC) {
            throw new ProtocolException(String.format("bad magic 0x%08x (expected 0x%08x): not a JetStream peer", magic, MAGIC));
        }
        short version = f.readShort();
        if (version != VERSION) {
            throw new ProtocolException("unsupported protocol version " + version + "; this peer speaks " + VERSION);
        }
    }

    private static String readId(ByteBuf f, String what) {
        need(f, 2, what + " length");
        int n = f.readUnsignedShort();
        if (n > MAX_ID_LENGTH) {
            throw new ProtocolException(what + " of " + n + " B > " + MAX_ID_LENGTH);
        }
        need(f, n, what);
        return f.readCharSequence(n, StandardCharsets.UTF_8).toString();
    }

    private static byte[] readFixed(ByteBuf f, int n, String what) {
        need(f, n, what);
        byte[] b = new byte[n];
        f.readBytes(b);
        return b;
    }

    static void need(ByteBuf f, int n, String what) {
        if (f.readableBytes() < n) {
            throw new ProtocolException("truncated frame: " + what + " needs " + n + " B, " + f.readableBytes() + " left");
        }
    }

    private static void expectEnd(ByteBuf f, String frame) {
        if (f.isReadable()) {
            throw new ProtocolException(frame + " has " + f.readableBytes() + " unexpected trailing bytes");
        }
    }

    private static byte[] utf8(String s, String what) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > MAX_ID_LENGTH) {
            throw new IllegalArgumentException(what + " '" + s + "' longer than " + MAX_ID_LENGTH + " B");
        }
        return b;
    }

    private static ByteBuf start(ByteBufAllocator alloc, byte type, int body) {
        return alloc.buffer(LENGTH_FIELD + TYPE_FIELD + body).writeInt(0).writeByte(type);
    }

    private static ByteBuf finish(ByteBuf b) {
        return b.setInt(0, b.readableBytes() - LENGTH_FIELD);
    }
}
