package io.jetstream.core.internal.transport.handshake;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The secret peers share ({@code transport.auth.secret-file}, or the engine's own topology secret):
 * HMAC-SHA256 over a domain label, the nonces of the connection and the bytes of a handshake frame.
 * A MAC proves knowledge of the secret without sending it, covers every field of the frame, and
 * cannot be replayed on another connection (the nonces are fresh). Compared in constant time.
 *
 * <p>Thread-safe (a new {@link Mac} per call: handshakes only).
 */
public final class SharedSecret {
    private final SecretKeySpec key;

    public SharedSecret(byte[] secret) {
        if (secret.length < 16) {
            throw new IllegalArgumentException("a shared secret needs at least 16 bytes, has " + secret.length);
        }
        this.key = new SecretKeySpec(secret, "HmacSHA256");
    }

    /** HMAC-SHA256(secret, label ‖ each nonce ‖ the readable bytes of {@code signed}). */
    byte[] mac(String label, ByteBuf signed, byte[]... nonces) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            mac.update(label.getBytes(StandardCharsets.US_ASCII));
            for (byte[] nonce : nonces) {
                mac.update(nonce);
            }
            mac.update(signed.nioBuffer());
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    boolean verify(String label, ByteBuf signed, byte[] presented, byte[]... nonces) {
        return presented.length > 0 && MessageDigest.isEqual(mac(label, signed, nonces), presented);
    }
}
