package io.jetstream.core.config;

/**
 * Where JetStream's options live in an engine's configuration: the one prefix every JetStream key
 * carries there. Core options are declared once with relative keys; each engine adapter reads them
 * under its scope.
 */
public enum ConfigScope {
    /** Flink's {@code flink-conf.yaml} / {@code config.yaml}: hierarchical, under the network options. */
    FLINK("taskmanager.network.jetstream."),
    /** Storm's {@code storm.yaml} and topology configuration. */
    STORM("jetstream."),
    /** JStorm's {@code storm.yaml} and topology configuration. */
    JSTORM("jetstream.");

    private final String prefix;

    ConfigScope(String prefix) {
        this.prefix = prefix;
    }

    /** The prefix, ending in a dot. */
    public String prefix() {
        return prefix;
    }

    /** The key an option has in this engine's configuration. */
    public String keyOf(ConfigOption<?> option) {
        return prefix + option.key();
    }
}
