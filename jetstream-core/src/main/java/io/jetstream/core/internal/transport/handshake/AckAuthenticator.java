package io.jetstream.core.internal.transport.handshake;

import io.jetstream.core.internal.transport.protocol.Frames;
import io.jetstream.core.internal.transport.protocol.ProtocolDescriptor;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The MAC of acknowledgements on a connection through a relay (HELLO flag
 * {@code authenticated-acks}): the first {@value ProtocolDescriptor#ACK_MAC_LENGTH} bytes of
 * HMAC-SHA256(session key, "JSTM3 ACK" ‖ the ACK's body), with the session key
 * HMAC-SHA256(stream secret, "JSTM3 SESSION" ‖ sender nonce ‖ receiver nonce) — known to both ends,
 * not to the relay, and different on every connection. HMAC over two reused SHA-256 digests and
 * scratch arrays: nothing is allocated per acknowledgement.
 *
 * <p>Thread-safe by its monitor (uncontended: a receiver's acknowledgements of one connection come
 * from its event loop and, rarely, from another route's thread); one instance per connection.
 */
public final class AckAuthenticator implements Frames.AckSigner {
    private static final byte[] LABEL = "JSTM3 ACK".getBytes(StandardCharsets.US_ASCII);
    private static final int BLOCK = 64;
    private static final int DIGEST = 32;

    private final MessageDigest inner;
    private final MessageDigest outer;
    private final byte[] innerPad = new byte[BLOCK];
    private final byte[] outerPad = new byte[BLOCK];
    private final byte[] innerHash = new byte[DIGEST];
    private final byte[] mac = new byte[DIGEST];
    private final byte[] presented = new byte[ProtocolDescriptor.ACK_MAC_LENGTH];
    private final byte[] body = new byte[Long.BYTES];

    /** @param sessionKey 32 bytes, {@link Handshake#sessionKey} of the connection */
    public AckAuthenticator(byte[] sessionKey) {
        if (sessionKey.length > BLOCK) {
            throw new IllegalArgumentException("session key of " + sessionKey.length + " B > " + BLOCK);
        }
        try {
            inner = MessageDigest.getInstance("SHA-256");
            outer = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
        for (int i = 0; i < BLOCK; i++) {
            byte k = i < sessionKey.length ? sessionKey[i] : 0;
            innerPad[i] = (byte) (k ^ 0x36);
            outerPad[i] = (byte) (k ^ 0x5c);
        }
    }

    /** Appends the MAC of an ACK of {@code watermark} to {@code frame} (whose body so far is that long). */
    @Override
    public synchronized void sign(long watermark, ByteBuf frame) {
        compute(watermark);
        frame.writeBytes(mac, 0, ProtocolDescriptor.ACK_MAC_LENGTH);
    }

    /**
     * Whether the {@value ProtocolDescriptor#ACK_MAC_LENGTH} bytes of {@code frame} at {@code macIndex}
     * are the MAC of an ACK of {@code watermark} (constant-time comparison).
     */
    public synchronized boolean verify(long watermark, ByteBuf frame, int macIndex) {
        compute(watermark);
        frame.getBytes(macIndex, presented);
        int diff = 0;
        for (int i = 0; i < presented.length; i++) {
            diff |= presented[i] ^ mac[i];
        }
        return diff == 0;
    }

    private void compute(long watermark) {
        for (int i = 0; i < Long.BYTES; i++) {
            body[i] = (byte) (watermark >>> (56 - 8 * i));
        }
        try {
            inner.update(innerPad);
            inner.update(LABEL);
            inner.update(body);
            inner.digest(innerHash, 0, DIGEST);
            outer.update(outerPad);
            outer.update(innerHash);
            outer.digest(mac, 0, DIGEST);
        } catch (DigestException e) {
            throw new IllegalStateException(e);
        }
    }
}
