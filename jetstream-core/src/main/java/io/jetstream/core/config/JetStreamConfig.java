package io.jetstream.core.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A validated snapshot of JetStream's options read from an engine's configuration map. Built once
 * at start-up by {@link #load}; every option of the given groups is parsed and validated then, and
 * unknown keys under a group's prefix are refused, so a misconfiguration fails fast with a message
 * naming the key instead of surfacing on the data path.
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
     * Reads and validates the given groups from an engine configuration. A key under a group's prefix
     * is unknown when none of the given groups declares it: groups that share a prefix (an engine-free
     * group and an engine's own options under the same product prefix) are checked together.
     *
     * @param scope the engine whose prefix the keys carry
     * @param raw the engine's whole configuration (keys outside the groups are ignored)
     * @param groups the option groups this component reads
     * @throws InvalidConfigurationException for the first bad value or unknown key, in key order
     */
    public static JetStreamConfig load(ConfigScope scope, Map<String, ?> raw, OptionGroup... groups) {
        Map<String, ?> sorted = new TreeMap<>(raw == null ? Map.of() : nonNullKeys(raw));
        Map<ConfigOption<?>, Object> values = new IdentityHashMap<>();
        Set<String> declared = new HashSet<>();
        for (OptionGroup group : groups) {
            for (ConfigOption<?> option : group.options()) {
                String key = scope.keyOf(option);
                declared.add(key);
                values.put(option, option.parse(key, sorted.get(key)));
            }
        }
        for (OptionGroup group : groups) {
            String groupPrefix = scope.prefix() + group.relativePrefix();
            for (String key : sorted.keySet()) {
                if (key.startsWith(groupPrefix) && !declared.contains(key)) {
                    List<String> known = new ArrayList<>();
                    for (OptionGroup g : groups) {
                        if (g.relativePrefix().equals(group.relativePrefix())) {
                            g.options().forEach(o -> known.add(scope.keyOf(o)));
                        }
                    }
                    throw new InvalidConfigurationException(
                            key, "unknown " + group.title() + " option; known options are " + known);
                }
            }
        }
        return new JetStreamConfig(scope, Collections.unmodifiableMap(values));
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
        values.forEach((option, value) -> byKey.put(scope.keyOf(option), value));
        return "JetStreamConfig" + byKey;
    }
}
