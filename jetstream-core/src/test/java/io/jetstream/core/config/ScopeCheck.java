package io.jetstream.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;

/**
 * The check each adapter runs on the groups it loads: every group lives in a namespace its scope
 * declares, every documented key of those groups (at its documented default) loads together with
 * them, a key of another component's namespace is left alone, and a typo anywhere under the prefix
 * is refused naming the key.
 */
public final class ScopeCheck {
    private ScopeCheck() {}

    /** @param foreignKey a key of a namespace the component does not load, or null when it loads every one */
    public static void check(ConfigScope scope, OptionGroup[] loaded, String foreignKey) {
        Map<String, Object> documented = new HashMap<>();
        for (OptionGroup g : loaded) {
            assertTrue(scope.namespaces().contains(g.relativePrefix()), scope + " declares namespace " + g.relativePrefix());
            for (ConfigOption<?> o : g.options()) {
                if (o.defaultValue() != null && !o.defaultValueText().isEmpty()) {
                    documented.put(scope.keyOf(o), o.defaultValueText());
                }
            }
        }
        if (foreignKey != null) {
            documented.put(foreignKey, "x");
        }
        JetStreamConfig.load(scope, documented, loaded);
        String typo = scope.prefix() + "transprt.window-bytes";
        InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class,
                () -> JetStreamConfig.load(scope, Map.of(typo, 1), loaded));
        assertEquals(typo, e.key());
    }
}
