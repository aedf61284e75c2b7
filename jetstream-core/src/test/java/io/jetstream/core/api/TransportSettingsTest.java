package io.jetstream.core.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.core.config.JetStreamConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Start-up validation of the transport options: every refusal names the key. */
class TransportSettingsTest {
    @TempDir
    Path dir;

    private static TransportSettings load(Map<String, ?> raw) {
        return TransportSettings.from(JetStreamConfig.load(ConfigScope.STORM, raw, TransportSettings.GROUPS));
    }

    @Test
    void defaults() {
        TransportSettings s = load(Map.of());
        assertEquals(TransportOptions.Reliability.BEST_EFFORT, s.reliability());
        assertEquals(8 << 20, s.maxFrameBytes());
        assertTrue(s.secret().isEmpty() && s.tls().isEmpty() && s.journalDir().isEmpty());
    }

    @Test
    void misspelledKeyIsRefused() {
        InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class,
                () -> load(Map.of("jetstream.transport.reliabilty", "acknowledged")));
        assertEquals("jetstream.transport.reliabilty", e.key());
    }

    @Test
    void backoffBoundsMustBeOrdered() {
        InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class, () -> load(Map.of(
                "jetstream.transport.reconnect.min-backoff-ms", 500, "jetstream.transport.reconnect.max-backoff-ms", 100)));
        assertEquals("jetstream.transport.reconnect.max-backoff-ms", e.key());
    }

    @Test
    void secretFileMustExistAndHoldEnoughBytes() throws Exception {
        InvalidConfigurationException missing = assertThrows(InvalidConfigurationException.class,
                () -> load(Map.of("jetstream.transport.auth.secret-file", dir.resolve("none").toString())));
        assertEquals("jetstream.transport.auth.secret-file", missing.key());
        Path shortSecret = Files.writeString(dir.resolve("short"), "abc");
        InvalidConfigurationException tooShort = assertThrows(InvalidConfigurationException.class,
                () -> load(Map.of("jetstream.transport.auth.secret-file", shortSecret.toString())));
        assertTrue(tooShort.getMessage().contains("at least 16"), tooShort.getMessage());
        Path good = Files.writeString(dir.resolve("good"), "0123456789abcdef0123");
        assertEquals(20, load(Map.of("jetstream.transport.auth.secret-file", good.toString())).secret().orElseThrow().length);
    }

    @Test
    void tlsNeedsAStore() {
        InvalidConfigurationException none = assertThrows(InvalidConfigurationException.class,
                () -> load(Map.of("jetstream.transport.tls.enabled", true)));
        assertEquals("jetstream.transport.tls.enabled", none.key());
        InvalidConfigurationException unreadable = assertThrows(InvalidConfigurationException.class, () -> load(Map.of(
                "jetstream.transport.tls.enabled", true, "jetstream.transport.tls.key-store", dir.resolve("nope.p12").toString())));
        assertEquals("jetstream.transport.tls.key-store", unreadable.key());
    }

    @Test
    void frameBoundIsChecked() {
        InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class,
                () -> load(Map.of("jetstream.transport.max-frame-bytes", 100)));
        assertEquals("jetstream.transport.max-frame-bytes", e.key());
    }
}
