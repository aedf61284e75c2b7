package io.jetstream.core.internal.transport.handshake;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.internal.transport.protocol.ProtocolDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** The allocation-free HMAC of authenticated ACKs is HMAC-SHA256 as the JDK computes it, truncated; a changed bit fails it. */
class AckAuthenticatorTest {
    private final byte[] key = new Handshake(new SharedSecret("a stream secret of 32 bytes......".getBytes(StandardCharsets.UTF_8)))
            .sessionKey(Handshake.newNonce(), Handshake.newNonce());

    @Test
    void theMacIsTruncatedHmacSha256OfTheLabelAndTheBody() throws Exception {
        AckAuthenticator a = new AckAuthenticator(key);
        for (long watermark : new long[] {0, 1, 42, Long.MAX_VALUE, -1}) {
            ByteBuf frame = Unpooled.buffer();
            a.sign(watermark, frame);
            byte[] ours = new byte[frame.readableBytes()];
            frame.readBytes(ours);
            Mac jdk = Mac.getInstance("HmacSHA256");
            jdk.init(new SecretKeySpec(key, "HmacSHA256"));
            jdk.update("JSTM3 ACK".getBytes(StandardCharsets.US_ASCII));
            jdk.update(ByteBuffer.allocate(8).putLong(watermark).array());
            assertArrayEquals(Arrays.copyOf(jdk.doFinal(), ProtocolDescriptor.ACK_MAC_LENGTH), ours, "watermark " + watermark);
        }
    }

    @Test
    void anotherWatermarkOrAnotherSessionFailsVerification() {
        AckAuthenticator signer = new AckAuthenticator(key);
        ByteBuf frame = Unpooled.buffer();
        frame.writeLong(77);
        signer.sign(77, frame);
        assertTrue(new AckAuthenticator(key).verify(77, frame, 8));
        assertFalse(new AckAuthenticator(key).verify(78, frame, 8), "a changed watermark");
        byte[] otherKey = key.clone();
        otherKey[0] ^= 1;
        assertFalse(new AckAuthenticator(otherKey).verify(77, frame, 8), "another connection's key");
    }
}
