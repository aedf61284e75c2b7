package io.jetstream.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code bin/jetstream-relay}: finds the jar, refuses to start without a secret, closes cleanly on SIGTERM. */
@Timeout(60)
class RelayCommandITCase {
    @TempDir
    Path dir;

    private Process start(String... args) throws Exception {
        Path script = Path.of(System.getProperty("jetstream.root", "..")).resolve("bin/jetstream-relay");
        assertTrue(Files.isRegularFile(script), script + " exists");
        List<String> command = new ArrayList<>(List.of("sh", script.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(dir.resolve("relay.log").toFile());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        return pb.start();
    }

    @Test
    void withoutASecretTheRelayRefusesToStartNamingTheKey() throws Exception {
        Process p = start("--set", "jetstream.relay.port=0");
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "exits");
        assertNotEquals(0, p.exitValue());
        String log = Files.readString(dir.resolve("relay.log"));
        assertTrue(log.contains("jetstream.relay.auth.secret-file"), log);
    }

    @Test
    void sigtermClosesTheRelayCleanly() throws Exception {
        Path secret = Files.writeString(dir.resolve("relay.secret"), "the relays' secret of this site");
        Path config = Files.writeString(dir.resolve("relay.properties"), "jetstream.relay.auth.secret-file=" + secret + "\n"
                + "jetstream.relay.bind-address=127.0.0.1\njetstream.relay.port=0\n");
        Process p = start("--config", config.toString());
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String ready = out.readLine();
            assertTrue(ready != null && ready.startsWith("READY "), ready + "; log: " + Files.readString(dir.resolve("relay.log")));
            assertEquals("-1", ready.split(" ")[2], "no metrics endpoint by default");
            p.destroy(); // SIGTERM
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "exits on SIGTERM");
            String log = Files.readString(dir.resolve("relay.log"));
            assertTrue(log.contains("JetStream relay /127.0.0.1:" + ready.split(" ")[1] + " closed"), log);
        } finally {
            p.destroyForcibly();
        }
    }
}
