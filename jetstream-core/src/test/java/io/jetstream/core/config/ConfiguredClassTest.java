package io.jetstream.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfiguredClassTest {
    static final ConfigOption<String> IMPL =
            ConfigOption.classOption("x.impl", ArrayList.class.getName(), "java.util.List", "Implementation.");
    static final OptionGroup GROUP = new OptionGroup("X", "x.", "Test.", List.of(IMPL));

    private static List<?> create(String className, Class<?> forbidden) {
        JetStreamConfig config = JetStreamConfig.load(
                ConfigScope.STORM, className == null ? Map.of() : Map.of("jetstream.x.impl", className), GROUP);
        return ConfiguredClass.instantiate(config, IMPL, List.class, forbidden);
    }

    @Test
    void instantiatesTheDefaultAndTheConfiguredClass() {
        assertInstanceOf(ArrayList.class, create(null, null));
        assertInstanceOf(java.util.LinkedList.class, create("java.util.LinkedList", null));
    }

    @Test
    void everyRefusalNamesKeyAndClass() {
        for (String bad : new String[] {"org.example.Missing", "java.lang.String", "java.util.AbstractList"}) {
            InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class, () -> create(bad, null));
            assertEquals("jetstream.x.impl", e.key());
            assertTrue(e.getMessage().contains(bad), e.getMessage());
        }
        assertThrows(InvalidConfigurationException.class, () -> create("java.util.ArrayList", ArrayList.class));
    }
}
