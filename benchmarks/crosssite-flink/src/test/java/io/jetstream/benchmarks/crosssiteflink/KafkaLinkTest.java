package io.jetstream.benchmarks.crosssiteflink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;

/**
 * Flink's Kafka connector 5.0.0-2.2 (built on Flink 2.2) on the project's Flink 2.3: its sink and source
 * build and serialize (as a job graph ships them) in both guarantees; KafkaChainITCase runs them. And
 * the link's options are validated, naming the key.
 */
class KafkaLinkTest {
    private static final Map<String, String> OPTIONS = Map.of(KafkaLink.BOOTSTRAP_SERVERS, "127.0.0.1:1", KafkaLink.TOPIC, "t");

    @Test
    void theConnectorBuildsOnThisFlink() throws Exception {
        assertTrue(EnvironmentInformation.getVersion().startsWith("2.3"), () -> "Flink " + EnvironmentInformation.getVersion());
        CrossSiteLink link = CrossSiteLinks.create("kafka", OPTIONS);
        for (Guarantee g : Guarantee.values()) {
            InstantiationUtil.clone(link.sink(g));
            var source = link.source(g);
            InstantiationUtil.clone(source);
            assertEquals(Boundedness.CONTINUOUS_UNBOUNDED, source.getBoundedness());
        }
    }

    @Test
    void refusesBadOptionsNamingTheKey() {
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> CrossSiteLinks.create("kafka", Map.of(KafkaLink.BOOTSTRAP_SERVERS, "h:1", KafkaLink.TOPIC, "t", "linger.ms", "5")));
        assertTrue(unknown.getMessage().contains("'linger.ms'"), unknown.getMessage());
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                () -> CrossSiteLinks.create("kafka", Map.of(KafkaLink.TOPIC, "t")));
        assertTrue(missing.getMessage().contains("'bootstrap.servers'"), missing.getMessage());
        IllegalArgumentException range = assertThrows(IllegalArgumentException.class,
                () -> CrossSiteLinks.create("kafka", Map.of(KafkaLink.BOOTSTRAP_SERVERS, "h:1", KafkaLink.TOPIC, "t",
                        KafkaLink.TRANSACTION_TIMEOUT_MS, "3600000")));
        assertTrue(range.getMessage().contains("'transaction.timeout.ms'"), range.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CrossSiteLinks.create("carrier-pigeon", OPTIONS));
        assertEquals(Map.of("a", "1=2"), CrossSiteLinks.parse(List.of("a=1=2")));
        assertThrows(IllegalArgumentException.class, () -> CrossSiteLinks.parse(List.of("novalue")));
    }
}
