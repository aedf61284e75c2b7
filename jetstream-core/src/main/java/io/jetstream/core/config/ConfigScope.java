package io.jetstream.core.config;

import java.util.List;

/**
 * Where JetStream's options live in an engine's configuration: the one prefix every JetStream key
 * carries there, and the namespaces under it — one per component that reads options in that engine
 * (core's transport, batching, ring and latency constraints; the engine adapter; the scheduler).
 * Core options are declared once with relative keys; each component reads them under its scope.
 *
 * <p>Every key under the prefix must belong to a namespace: a component validates the namespaces
 * of the groups it loads completely and leaves the other declared namespaces to their components,
 * so {@code jetstream.transprt.window-bytes} is refused by whoever reads the configuration first.
 */
public enum ConfigScope {
    /** Flink's {@code flink-conf.yaml} / {@code config.yaml}: hierarchical, under the network options. */
    FLINK("taskmanager.network.jetstream.", List.of("transport.", "batch.", "ring.", "qos.", "shuffle.", "flush.")),
    /** Storm's {@code storm.yaml} and topology configuration. */
    STORM("jetstream.", List.of("transport.", "batch.", "ring.", "qos.", "storm.", "scheduler.")),
    /** JStorm's {@code storm.yaml} and topology configuration. */
    JSTORM("jetstream.", List.of("transport.", "batch.", "ring.", "qos.", "jstorm.", "scheduler.")),
    /** JetStream's own processes: the relay and the perf tool (a properties file, or -D system properties). */
    STANDALONE("jetstream.", List.of("transport.", "batch.", "ring.", "qos.", "relay.", "landing.", "perf.")),
    /** Flink's cross-site sink and source (their builders' properties). */
    FLINK_CONNECTOR("jetstream.", List.of("transport.", "batch.", "ring.", "qos.", "crosssite."));

    private final String prefix;
    private final List<String> namespaces;

    ConfigScope(String prefix, List<String> namespaces) {
        this.prefix = prefix;
        this.namespaces = namespaces;
    }

    /** The prefix, ending in a dot. */
    public String prefix() {
        return prefix;
    }

    /** The relative prefixes (ending in a dot) of every JetStream component's options in this engine. */
    public List<String> namespaces() {
        return namespaces;
    }

    /** The key an option has in this engine's configuration. */
    public String keyOf(ConfigOption<?> option) {
        return prefix + option.key();
    }
}
