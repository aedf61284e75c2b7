package io.jetstream.flink.shuffle;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.core.ring.RingSettings;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The ring options are validated at start-up, each error naming the key and the bad value. */
class RingOptionsValidationTest {
    @Test
    void aRingRecordTooSmallForOneNetworkBufferIsRefused() {
        JetStreamConfig config = JetStreamShuffleServiceFactory.loadConfig(
                Map.of("taskmanager.network.jetstream.ring.max-record-bytes", "16384"));
        InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class,
                () -> JetStreamShuffleServiceFactory.validateRing(config, RingSettings.from(config), 32 * 1024));
        assertTrue(e.getMessage().contains("taskmanager.network.jetstream.ring.max-record-bytes")
                && e.getMessage().contains("16384") && e.getMessage().contains("segment-size"), e.getMessage());
    }

    @Test
    void aTypoUnderTheRingPrefixIsRefused() {
        InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class,
                () -> JetStreamShuffleServiceFactory.loadConfig(Map.of("taskmanager.network.jetstream.ring.enabeld", "false")));
        assertTrue(e.getMessage().contains("ring.enabeld") && e.getMessage().contains("ring.enabled"), e.getMessage());
    }

    @Test
    void aBadConnectTimeoutIsRefused() {
        InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class,
                () -> JetStreamShuffleServiceFactory.loadConfig(Map.of("taskmanager.network.jetstream.ring.connect-timeout-ms", "0")));
        assertTrue(e.getMessage().contains("ring.connect-timeout-ms"), e.getMessage());
    }
}
