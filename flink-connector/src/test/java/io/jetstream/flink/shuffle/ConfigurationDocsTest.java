package io.jetstream.flink.shuffle;

import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.ConfigurationDocs;
import io.jetstream.core.config.ConfigurationDocsCheck;
import io.jetstream.flink.flush.FlushOptions;
import io.jetstream.flink.ring.RingShuffleOptions;
import org.junit.jupiter.api.Test;

/** docs/configuration.md lists exactly the options this module declares. */
class ConfigurationDocsTest {
    @Test
    void referenceMatchesTheCode() throws Exception {
        ConfigurationDocsCheck.checkSection(
                "flink-shuffle", ConfigurationDocs.render(ConfigScope.FLINK, "Flink config.yaml", JetStreamShuffleOptions.GROUP));
        ConfigurationDocsCheck.checkSection(
                "flink-flush", ConfigurationDocs.render(ConfigScope.FLINK, "Flink config.yaml", FlushOptions.GROUP));
        ConfigurationDocsCheck.checkSection(
                "flink-ring", ConfigurationDocs.render(ConfigScope.FLINK, "Flink config.yaml", RingShuffleOptions.GROUP));
    }
}
