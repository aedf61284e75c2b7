package io.jetstream.core.config;

/**
 * A configuration value that JetStream refuses at start-up. The message always names the full key
 * as the user wrote it, the offending value and what was expected.
 */
public final class InvalidConfigurationException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String key;

    public InvalidConfigurationException(String key, Object value, String expectation) {
        super("Invalid value '" + value + "' for configuration key '" + key + "': " + expectation);
        this.key = key;
    }

    public InvalidConfigurationException(String key, String message) {
        super("Invalid configuration key '" + key + "': " + message);
        this.key = key;
    }

    /** The full key, with the engine prefix, that was refused. */
    public String key() {
        return key;
    }
}
