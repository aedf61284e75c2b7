package io.jetstream.flink.crosssite;

import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.ConfigurationDocs;
import io.jetstream.core.config.ConfigurationDocsCheck;
import org.junit.jupiter.api.Test;

/** docs/configuration.md lists exactly the options this module declares. */
class ConfigurationDocsTest {
    @Test
    void referenceMatchesTheCode() throws Exception {
        ConfigurationDocsCheck.checkSection("flink-crosssite",
                ConfigurationDocs.render(ConfigScope.FLINK_CONNECTOR, "CrossSiteSink / CrossSiteSource properties",
                        CrossSiteOptions.GROUP));
    }
}
