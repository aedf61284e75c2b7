package io.jetstream.core.internal.transport.handshake;

import io.jetstream.core.internal.transport.protocol.Frames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;

/**
 * The handshake between a sender and a relay, both sides, with the relay secret
 * ({@code transport.relay.auth.secret-file} on senders, {@code relay.auth.secret-file} on relays):
 * the sender's RELAY_REQUEST carries HMAC-SHA256(relay secret, "JSTM3 RELAY" ‖ relay nonce ‖ the
 * request from its type byte to its MAC length byte), the relay's RELAY_ACCEPTED
 * HMAC-SHA256(relay secret, "JSTM3 RELAY ACCEPTED" ‖ sender nonce ‖ relay nonce). Only a sender that
 * knows the secret makes a relay forward anything; a sender forwards only through a relay that
 * proved it knows it too. The relay secret differs from the stream secret, so a relay cannot act as
 * the receiver (it cannot answer the end-to-end HELLO).
 *
 * <p>Thread-safe.
 */
public final class RelayAuthentication {
    private static final String REQUEST_LABEL = "JSTM3 RELAY";
    private static final String ACCEPTED_LABEL = "JSTM3 RELAY ACCEPTED";

    private final SharedSecret secret;

    public RelayAuthentication(byte[] relaySecret) {
        this.secret = new SharedSecret(relaySecret);
    }

    /** The sender's RELAY_REQUEST answering the relay's CHALLENGE nonce. */
    public ByteBuf request(ByteBufAllocator alloc, String host, int port, String label, byte[] senderNonce, byte[] relayNonce) {
        return Frames.relayRequest(alloc, host, port, label, senderNonce, signed -> secret.mac(REQUEST_LABEL, signed, relayNonce));
    }

    /** Whether a RELAY_REQUEST proves the secret for the nonce this relay sent (constant-time comparison). */
    public boolean verifyRequest(Frames.RelayRequest request, byte[] relayNonce) {
        return secret.verify(REQUEST_LABEL, Unpooled.wrappedBuffer(request.signed()), request.mac(), relayNonce);
    }

    /** The relay's RELAY_ACCEPTED for a request that carried {@code senderNonce}. */
    public ByteBuf accepted(ByteBufAllocator alloc, byte[] senderNonce, byte[] relayNonce) {
        return Frames.relayAccepted(alloc, secret.mac(ACCEPTED_LABEL, Unpooled.EMPTY_BUFFER, senderNonce, relayNonce));
    }

    /** Whether a RELAY_ACCEPTED's MAC proves the relay knows the secret, for this connection's nonces. */
    public boolean verifyAccepted(byte[] mac, byte[] senderNonce, byte[] relayNonce) {
        return secret.verify(ACCEPTED_LABEL, Unpooled.EMPTY_BUFFER, mac, senderNonce, relayNonce);
    }
}
