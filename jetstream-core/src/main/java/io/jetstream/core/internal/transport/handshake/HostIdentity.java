package io.jetstream.core.internal.transport.handshake;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * The token peers exchange in the handshake to learn whether they share a host (and so could use
 * the shared-memory ring): SHA-256 of the kernel's boot id and the host name, truncated to 16
 * bytes. Two JVMs on one host compute the same token; a container with its own /proc still shares
 * the kernel's boot id but usually not the host name, which is the conservative answer.
 */
public final class HostIdentity {
    private HostIdentity() {}

    public static final byte[] THIS_HOST = compute();

    private static byte[] compute() {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            Path bootId = Path.of("/proc/sys/kernel/random/boot_id");
            if (Files.isReadable(bootId)) {
                sha.update(Files.readAllBytes(bootId));
            } else {
                byte[] random = new byte[16];
                new SecureRandom().nextBytes(random); // unknown boot: never claim to share a host
                sha.update(random);
            }
            sha.update(InetAddress.getLocalHost().getHostName().getBytes(StandardCharsets.UTF_8));
            return Arrays.copyOf(sha.digest(), 16);
        } catch (NoSuchAlgorithmException | java.io.IOException e) {
            byte[] random = new byte[16];
            new SecureRandom().nextBytes(random);
            return random;
        }
    }
}
