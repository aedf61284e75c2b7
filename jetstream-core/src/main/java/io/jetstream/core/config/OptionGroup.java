package io.jetstream.core.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The options of one concern (for example the Storm transport), all sharing one relative key
 * prefix. Any key under that prefix that is not one of the group's options is rejected at start-up,
 * so that a typo does not silently fall back to a default.
 *
 * <p>Immutable and thread-safe.
 */
public final class OptionGroup {
    private final String title;
    private final String relativePrefix;
    private final String description;
    private final List<ConfigOption<?>> options;

    /**
     * @param title human-readable heading used in docs/configuration.md
     * @param relativePrefix prefix shared by every option key of this group, ending in a dot
     * @param description one paragraph: which component reads these options and when
     * @param options the options; each key must start with {@code relativePrefix}
     */
    public OptionGroup(String title, String relativePrefix, String description, List<ConfigOption<?>> options) {
        if (!relativePrefix.endsWith(".")) {
            throw new IllegalArgumentException("group prefix must end with '.': " + relativePrefix);
        }
        Set<String> seen = new HashSet<>();
        for (ConfigOption<?> option : options) {
            if (!option.key().startsWith(relativePrefix)) {
                throw new IllegalArgumentException(
                        "option '" + option.key() + "' is outside its group prefix '" + relativePrefix + "'");
            }
            if (!seen.add(option.key())) {
                throw new IllegalArgumentException("option '" + option.key() + "' declared twice");
            }
        }
        this.title = title;
        this.relativePrefix = relativePrefix;
        this.description = description;
        this.options = List.copyOf(new ArrayList<>(options));
    }

    public String title() {
        return title;
    }

    public String relativePrefix() {
        return relativePrefix;
    }

    public String description() {
        return description;
    }

    public List<ConfigOption<?>> options() {
        return options;
    }
}
