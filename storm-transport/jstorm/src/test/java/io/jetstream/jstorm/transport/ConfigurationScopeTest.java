package io.jetstream.jstorm.transport;

import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.ScopeCheck;
import org.junit.jupiter.api.Test;

/** Every group this adapter reads loads together under its engine's prefix; typos are refused. */
class ConfigurationScopeTest {
    @Test
    void everyDocumentedKeyLoadsTogetherAndTyposAreRefused() {
        ScopeCheck.check(ConfigScope.JSTORM, JetStreamJStormOptions.GROUPS, "jetstream.scheduler.mode");
    }
}
