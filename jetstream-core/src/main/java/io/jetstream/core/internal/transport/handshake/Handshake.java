package io.jetstream.core.internal.transport.handshake;

import io.jetstream.core.internal.transport.protocol.Frames;
import io.jetstream.core.internal.transport.protocol.ProtocolDescriptor;
import io.jetstream.core.internal.transport.protocol.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.security.SecureRandom;

/**
 * The handshake of a connection, both sides: the receiver's CHALLENGE carries a fresh nonce, the
 * sender's HELLO its own nonce and a MAC over every HELLO field and the receiver's nonce, the
 * receiver's WELCOME a MAC over every WELCOME field and both nonces. With a shared secret the
 * authentication is mutual: the receiver accepts only a sender that knows the secret, the sender
 * streams only to a receiver that proved it knows it too. Without one nothing is authenticated:
 * any peer that reaches the port may open a stream (docs/protocol.md, "Trust").
 *
 * <p>Thread-safe.
 */
public final class Handshake {
    private static final String HELLO_LABEL = "JSTM3 HELLO";
    private static final String WELCOME_LABEL = "JSTM3 WELCOME";
    private static final String SESSION_LABEL = "JSTM3 SESSION";
    private static final SecureRandom NONCES = new SecureRandom();
    private static final byte[] NO_MAC = new byte[0];

    /** Null without a secret. */
    private final SharedSecret secret;

    public Handshake(SharedSecret secret) {
        this.secret = secret;
    }

    /** Whether a secret is configured: peers are authenticated (mutually). */
    public boolean authenticates() {
        return secret != null;
    }

    public static byte[] newNonce() {
        byte[] nonce = new byte[ProtocolDescriptor.NONCE_LENGTH];
        NONCES.nextBytes(nonce);
        return nonce;
    }

    /**
     * The key of a connection's authenticated acknowledgements: HMAC-SHA256(secret, "JSTM3 SESSION" ‖
     * sender nonce ‖ receiver nonce); null without a secret.
     */
    public byte[] sessionKey(byte[] senderNonce, byte[] receiverNonce) {
        return secret == null ? null : secret.mac(SESSION_LABEL, Unpooled.EMPTY_BUFFER, senderNonce, receiverNonce);
    }

    /** The sender's HELLO answering {@code receiverNonce}. */
    public ByteBuf hello(ByteBufAllocator alloc, int flags, long epoch, long firstSequence, int route, int routes, String peerId,
            String streamId, byte[] hostToken, byte[] senderNonce, byte[] receiverNonce) {
        return Frames.hello(alloc, flags, epoch, firstSequence, route, routes, peerId, streamId, hostToken, senderNonce,
                signed -> secret == null ? NO_MAC : secret.mac(HELLO_LABEL, signed, receiverNonce));
    }

    /**
     * Checks a HELLO against the nonce this receiver sent. Returns whether it is authenticated
     * (false only without a secret).
     *
     * @throws ProtocolException if a secret is configured and the HELLO does not prove it
     */
    public boolean verifyHello(Frames.Hello hello, byte[] receiverNonce) {
        if (secret == null) {
            return false;
        }
        if (!secret.verify(HELLO_LABEL, Unpooled.wrappedBuffer(hello.signed()), hello.mac(), receiverNonce)) {
            throw new ProtocolException("authentication failed for peer '" + hello.peerId() + "' (transport.auth.secret-file "
                    + (hello.mac().length == 0 ? "is not set on the sender)" : "differs, or the HELLO was altered)"));
        }
        return true;
    }

    /** The receiver's WELCOME to a HELLO that carried {@code senderNonce}. */
    public ByteBuf welcome(ByteBufAllocator alloc, long lastDelivered, int ringTarget, String ringName, byte[] senderNonce,
            byte[] receiverNonce) {
        return Frames.welcome(alloc, lastDelivered, ringTarget, ringName,
                signed -> secret == null ? NO_MAC : secret.mac(WELCOME_LABEL, signed, senderNonce, receiverNonce));
    }

    /**
     * Checks a WELCOME against the nonces of this connection. With a secret, a WELCOME without a
     * valid MAC means the peer is not the receiver it claims to be: nothing may be sent to it.
     *
     * @throws ProtocolException naming why the receiver is not trusted
     */
    public void verifyWelcome(Frames.Welcome welcome, byte[] senderNonce, byte[] receiverNonce) {
        if (secret == null) {
            return;
        }
        if (!secret.verify(WELCOME_LABEL, Unpooled.wrappedBuffer(welcome.signed()), welcome.mac(), senderNonce, receiverNonce)) {
            throw new ProtocolException("the receiver did not prove the shared secret (" + (welcome.mac().length == 0
                    ? "it has no transport.auth.secret-file" : "its secret differs, or the WELCOME was altered")
                    + "): not sending to it");
        }
    }
}
