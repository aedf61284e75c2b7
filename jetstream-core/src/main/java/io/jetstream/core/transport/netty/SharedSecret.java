package io.jetstream.core.transport.netty;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The shared-secret handshake: the sender answers the receiver's fresh nonce with
 * HMAC-SHA256(secret, nonce ‖ peer id ‖ 0 ‖ stream id), which proves it knows the secret without
 * sending it and cannot be replayed on another connection. Compared in constant time.
 */
final class SharedSecret {
    private final SecretKeySpec key;

    SharedSecret(byte[] secret) {
        this.key = new SecretKeySpec(secret, "HmacSHA256");
    }

    byte[] mac(byte[] nonce, String peerId, String streamId) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            mac.update(nonce);
            mac.update(peerId.getBytes(StandardCharsets.UTF_8));
            mac.update((byte) 0);
            mac.update(streamId.getBytes(StandardCharsets.UTF_8));
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    boolean verify(byte[] nonce, String peerId, String streamId, byte[] presented) {
        return presented.length > 0 && MessageDigest.isEqual(mac(nonce, peerId, streamId), presented);
    }
}
