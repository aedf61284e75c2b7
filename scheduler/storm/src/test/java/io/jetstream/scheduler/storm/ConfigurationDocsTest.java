package io.jetstream.scheduler.storm;

import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.ConfigurationDocs;
import io.jetstream.core.config.ConfigurationDocsCheck;
import org.junit.jupiter.api.Test;

/** docs/configuration.md lists exactly the options this module declares. */
class ConfigurationDocsTest {
    @Test
    void referenceMatchesTheCode() throws Exception {
        ConfigurationDocsCheck.checkSection(
                "storm-scheduler", ConfigurationDocs.render(ConfigScope.STORM, "Nimbus storm.yaml", JetStreamSchedulerOptions.GROUP));
    }
}
