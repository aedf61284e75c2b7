package io.jetstream.core.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A validated snapshot of JetStream's options read from an engine's configuration map. Built once
 * at start-up by {@link #load}; every option of the given groups is parsed and validated then, and
 * every key under the engine's JetStream prefix must be an option of a known namespace, so a
 * misconfiguration fails fast with a message naming the key instead of surfacing on the data path.
 *
 * <p>Immutable and thread-safe once built.
 */
public final class JetStreamConfig {
    private final ConfigScope scope;
    private final Map<ConfigOption<?>, Object> values;

    private JetStreamConfig(ConfigScope scope, Map<ConfigOption<?>, Object> values) {
        this.scope = scope;
        this.values = values;
    }

    /**
     * Reads and validates the given groups from an engine configuration. Every key under the scope's
     * prefix is checked: a key in the namespace of a loaded group must be one of its options; a key
     * in another of the scope's namespaces ({@link ConfigScope#namespaces()}) is left to the
     * component that loads it; any other key under the prefix is refused.
     *
     * @param scope the engine whose prefix the keys carry
     * @param raw the engine's whole configuration (keys outside the prefix are ignored)
     * @param groups the option groups this component reads
     * @throws InvalidConfigurationException for the first bad value or unknown key, in key order
     */
    public static JetStreamConfig load(ConfigScope scope, Map<String, ?> raw, OptionGroup... groups) {
        Map<String, ?> sorted = new TreeMap<>(raw == null ? Map.of() : nonNullKeys(raw));
        Map<ConfigOption<?>, Object> values = new IdentityHashMap<>();
        Map<String, List<String>> knownByNamespace = new TreeMap<>();
        for (OptionGroup group : groups) {
            List<String> known = knownByNamespace.computeIfAbsent(group.relativePrefix(), k -> new ArrayList<>());
            for (ConfigOption<?> option : group.options()) {
                String key = scope.keyOf(option);
                known.add(key);
                values.put(option, option.parse(key, sorted.get(key)));
            }
        }
        for (String key : sorted.keySet()) {
            if (!key.startsWith(scope.prefix())) {
                continue;
            }
            String relative = key.substring(scope.prefix().length());
            String namespace = namespaceOf(relative, knownByNamespace.keySet());
            if (namespace != null) {
                if (!knownByNamespace.get(namespace).contains(key)) {
                    throw new InvalidConfigurationException(key, "unknown option; the options under " + scope.prefix() + namespace
                            + " are " + knownByNamespace.get(namespace));
                }
            } else if (namespaceOf(relative, scope.namespaces()) == null) {
                throw new InvalidConfigurationException(key, "unknown JetStream option: keys under " + scope.prefix()
                        + " start with one of " + scope.namespaces() + " (a typo?)");
            }
        }
        return new JetStreamConfig(scope, Collections.unmodifiableMap(values));
    }

    private static String namespaceOf(String relativeKey, java.util.Collection<String> namespaces) {
        for (String namespace : namespaces) {
            if (relativeKey.startsWith(namespace)) {
                return namespace;
            }
        }
        return null;
    }

    private static Map<String, Object> nonNullKeys(Map<String, ?> raw) {
        Map<String, Object> copy = new TreeMap<>();
        raw.forEach((k, v) -> {
            if (k != null) {
                copy.put(k, v);
            }
        });
        return copy;
    }

    /** The validated value of an option of one of the groups this config was loaded with. */
    public <T> T get(ConfigOption<T> option) {
        if (!values.containsKey(option)) {
            throw new IllegalArgumentException(
                    "option '" + option.key() + "' was not declared in the groups this configuration was loaded with");
        }
        @SuppressWarnings("unchecked")
        T value = (T) values.get(option);
        return value;
    }

    /** The full key of an option in this engine's configuration, for log and error messages. */
    public String keyOf(ConfigOption<?> option) {
        return scope.keyOf(option);
    }

    @Override
    public String toString() {
        Map<String, Object> byKey = new TreeMap<>();
        values.forEach((option, value) -> byKey.put(scope.keyOf(option),
                option.sensitive() && !String.valueOf(value).isEmpty() ? "******" : value));
        return "JetStreamConfig" + byKey;
    }
}
