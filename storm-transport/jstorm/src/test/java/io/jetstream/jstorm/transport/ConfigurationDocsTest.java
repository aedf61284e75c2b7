package io.jetstream.jstorm.transport;

import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.ConfigurationDocs;
import io.jetstream.core.config.ConfigurationDocsCheck;
import org.junit.jupiter.api.Test;

/** docs/configuration.md lists exactly the options this module declares. */
class ConfigurationDocsTest {
    @Test
    void referenceMatchesTheCode() throws Exception {
        ConfigurationDocsCheck.checkSection(
                "jstorm-transport", ConfigurationDocs.render(ConfigScope.JSTORM, "JStorm worker configuration", JetStreamJStormOptions.GROUP));
    }
}
