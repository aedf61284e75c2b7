package io.jetstream.storm.transport.contract;

import io.jetstream.storm.transport.JetStreamContext;
import java.util.Map;
import org.junit.jupiter.api.Nested;

/**
 * The contract against JetStream's Storm context on its own data path (the default,
 * {@code jetstream.storm.data-path: jetstream}): once with the shared-memory ring that workers on one
 * host use by default, once forced to TCP ({@code jetstream.transport.ring.enabled: false}), as
 * workers on different hosts talk.
 */
class JetStreamContextContractTest {
    @Nested
    class OverTheRing extends StormTransportContract {
        @Override
        protected String contextClassName() {
            return JetStreamContext.class.getName();
        }
    }

    @Nested
    class OverTcp extends StormTransportContract {
        @Override
        protected String contextClassName() {
            return JetStreamContext.class.getName();
        }

        @Override
        protected Map<String, Object> extraConf() {
            return Map.of("jetstream.transport.ring.enabled", false);
        }
    }
}
