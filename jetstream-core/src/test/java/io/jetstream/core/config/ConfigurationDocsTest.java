package io.jetstream.core.config;

import io.jetstream.core.api.BatchOptions;
import io.jetstream.core.api.QosOptions;
import io.jetstream.core.api.RelayOptions;
import io.jetstream.core.api.TransportOptions;
import io.jetstream.core.ring.RingOptions;
import org.junit.jupiter.api.Test;

/** docs/configuration.md lists exactly the options jetstream-core declares. */
class ConfigurationDocsTest {
    private static final String SCOPE_NOTE = "Storm and JStorm keys; Flink under its prefix";

    @Test
    void referenceMatchesTheCode() throws Exception {
        ConfigurationDocsCheck.checkSection(
                "core-ring", ConfigurationDocs.render(ConfigScope.STORM, SCOPE_NOTE, RingOptions.GROUP));
        ConfigurationDocsCheck.checkSection(
                "core-batch", ConfigurationDocs.render(ConfigScope.STORM, SCOPE_NOTE, BatchOptions.GROUP));
        ConfigurationDocsCheck.checkSection(
                "core-qos", ConfigurationDocs.render(ConfigScope.STORM, SCOPE_NOTE, QosOptions.GROUP));
        ConfigurationDocsCheck.checkSection(
                "core-transport", ConfigurationDocs.render(ConfigScope.STORM, SCOPE_NOTE, TransportOptions.GROUP));
        ConfigurationDocsCheck.checkSection(
                "core-relay", ConfigurationDocs.render(ConfigScope.STANDALONE, "the relay process (bin/jetstream-relay)",
                        RelayOptions.GROUP));
        ConfigurationDocsCheck.checkSection(
                "core-landing", ConfigurationDocs.render(ConfigScope.STANDALONE, "the landing process (bin/jetstream-landing)",
                        io.jetstream.core.api.LandingOptions.GROUP));
        ConfigurationDocsCheck.checkSection(
                "core-multicast", ConfigurationDocs.render(ConfigScope.STANDALONE, "a multicast stream; the sender's own keys",
                        io.jetstream.core.api.MulticastOptions.GROUP));
        ConfigurationDocsCheck.checkSection(
                "core-replicator", ConfigurationDocs.render(ConfigScope.STANDALONE, "the relay process (bin/jetstream-relay)",
                        io.jetstream.core.api.ReplicatorOptions.GROUP));
    }
}
