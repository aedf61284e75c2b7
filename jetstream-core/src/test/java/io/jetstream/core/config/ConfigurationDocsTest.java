package io.jetstream.core.config;

import io.jetstream.core.ring.RingOptions;
import org.junit.jupiter.api.Test;

/** docs/configuration.md lists exactly the options jetstream-core declares. */
class ConfigurationDocsTest {
    @Test
    void referenceMatchesTheCode() throws Exception {
        ConfigurationDocsCheck.checkSection(
                "core-ring", ConfigurationDocs.render(ConfigScope.STORM, "Storm and JStorm keys; Flink under its prefix", RingOptions.GROUP));
    }
}
