package io.jetstream.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JetStreamConfigTest {
    enum Mode { STRICT, RELAXED_ORDER }

    static final ConfigOption<Boolean> ENABLED =
            ConfigOption.booleanOption("demo.enabled", true, "Turns the demo on.");
    static final ConfigOption<Integer> ROUTES =
            ConfigOption.intOption("demo.routes", 1, 1, 16, "Parallel connections.");
    static final ConfigOption<Mode> MODE =
            ConfigOption.enumOption("demo.mode", Mode.class, Mode.STRICT, "Ordering.");
    static final ConfigOption<String> CONTEXT =
            ConfigOption.classOption("demo.context", "a.b.C", "x.IContext", "Delegate.");
    static final OptionGroup GROUP =
            new OptionGroup("Demo", "demo.", "For tests.", List.of(ENABLED, ROUTES, MODE, CONTEXT));

    @Test
    void defaultsApplyWhenKeysAreAbsent() {
        JetStreamConfig config = JetStreamConfig.load(ConfigScope.STORM, Map.of("other.key", 3), GROUP);
        assertEquals(true, config.get(ENABLED));
        assertEquals(1, config.get(ROUTES));
        assertEquals(Mode.STRICT, config.get(MODE));
        assertEquals("a.b.C", config.get(CONTEXT));
    }

    @Test
    void readsTypedAndStringValuesUnderTheEnginePrefix() {
        JetStreamConfig config = JetStreamConfig.load(
                ConfigScope.FLINK,
                Map.of(
                        "taskmanager.network.jetstream.demo.enabled", "FALSE",
                        "taskmanager.network.jetstream.demo.routes", 4L,
                        "taskmanager.network.jetstream.demo.mode", "relaxed-order"),
                GROUP);
        assertEquals(false, config.get(ENABLED));
        assertEquals(4, config.get(ROUTES));
        assertEquals(Mode.RELAXED_ORDER, config.get(MODE));
        assertEquals("taskmanager.network.jetstream.demo.routes", config.keyOf(ROUTES));
    }

    @Test
    void outOfRangeValueNamesKeyValueAndRange() {
        InvalidConfigurationException e = assertThrows(
                InvalidConfigurationException.class,
                () -> JetStreamConfig.load(ConfigScope.STORM, Map.of("jetstream.demo.routes", 17), GROUP));
        assertEquals("jetstream.demo.routes", e.key());
        assertTrue(e.getMessage().contains("'17'") && e.getMessage().contains("1 to 16"), e.getMessage());
    }

    @Test
    void malformedValuesAreRefused() {
        assertThrows(InvalidConfigurationException.class,
                () -> JetStreamConfig.load(ConfigScope.STORM, Map.of("jetstream.demo.enabled", "yes"), GROUP));
        assertThrows(InvalidConfigurationException.class,
                () -> JetStreamConfig.load(ConfigScope.STORM, Map.of("jetstream.demo.mode", "fast"), GROUP));
        assertThrows(InvalidConfigurationException.class,
                () -> JetStreamConfig.load(ConfigScope.STORM, Map.of("jetstream.demo.context", "not a class"), GROUP));
        assertThrows(InvalidConfigurationException.class,
                () -> JetStreamConfig.load(ConfigScope.STORM, Map.of("jetstream.demo.routes", "2.5"), GROUP));
    }

    @Test
    void unknownKeyUnderTheGroupPrefixIsATypo() {
        InvalidConfigurationException e = assertThrows(
                InvalidConfigurationException.class,
                () -> JetStreamConfig.load(ConfigScope.STORM, Map.of("jetstream.demo.route", 2), GROUP));
        assertEquals("jetstream.demo.route", e.key());
        assertTrue(e.getMessage().contains("jetstream.demo.routes"), e.getMessage());
    }

    @Test
    void aKeyUnderThePrefixOutsideEveryNamespaceIsATypo() {
        InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class,
                () -> JetStreamConfig.load(ConfigScope.STORM, Map.of("jetstream.transprt.window-bytes", 2), GROUP));
        assertEquals("jetstream.transprt.window-bytes", e.key());
        assertTrue(e.getMessage().contains("transport.") && e.getMessage().contains("a typo"), e.getMessage());
    }

    @Test
    void everyGroupOfEachScopeLoadsTogether() {
        // The core groups every adapter documents, read together: no clash, every documented key accepted.
        OptionGroup[] core = io.jetstream.core.api.TransportSettings.GROUPS;
        for (ConfigScope scope : ConfigScope.values()) {
            Map<String, Object> all = new java.util.HashMap<>();
            for (OptionGroup g : core) {
                assertTrue(scope.namespaces().contains(g.relativePrefix()), scope + " declares the namespace " + g.relativePrefix());
                for (ConfigOption<?> o : g.options()) {
                    if (o.defaultValue() != null && !o.defaultValueText().isEmpty()) {
                        all.put(scope.keyOf(o), o.defaultValueText());
                    }
                }
            }
            JetStreamConfig config = JetStreamConfig.load(scope, all, core);
            assertEquals(io.jetstream.core.api.TransportOptions.WINDOW_BYTES.defaultValue(),
                    config.get(io.jetstream.core.api.TransportOptions.WINDOW_BYTES));
        }
    }

    @Test
    void keysOfOtherGroupsAreLeftToThem() {
        JetStreamConfig config =
                JetStreamConfig.load(ConfigScope.STORM, Map.of("jetstream.scheduler.mode", "x"), GROUP);
        assertEquals(1, config.get(ROUTES));
    }

    /** An engine-free group and an engine's own group under one prefix: each accepts the other's keys. */
    @Test
    void groupsSharingAPrefixAreCheckedTogether() {
        ConfigOption<Integer> engineOnly = ConfigOption.intOption("demo.engine-threads", 2, 1, 8, "Engine only.");
        OptionGroup engine = new OptionGroup("Demo engine", "demo.", "For tests.", List.of(engineOnly));
        Map<String, Object> raw = Map.of("jetstream.demo.routes", 3, "jetstream.demo.engine-threads", 4);

        JetStreamConfig both = JetStreamConfig.load(ConfigScope.STORM, raw, GROUP, engine);
        assertEquals(3, both.get(ROUTES));
        assertEquals(4, both.get(engineOnly));

        InvalidConfigurationException alone = assertThrows(InvalidConfigurationException.class,
                () -> JetStreamConfig.load(ConfigScope.STORM, raw, GROUP));
        assertEquals("jetstream.demo.engine-threads", alone.key());
        InvalidConfigurationException typo = assertThrows(InvalidConfigurationException.class,
                () -> JetStreamConfig.load(ConfigScope.STORM, Map.of("jetstream.demo.engine-thread", 4), GROUP, engine));
        assertTrue(typo.getMessage().contains("jetstream.demo.routes")
                && typo.getMessage().contains("jetstream.demo.engine-threads"), typo.getMessage());
    }

    @Test
    void declarationsAreCheckedWhenTheyAreMade() {
        assertThrows(IllegalArgumentException.class,
                () -> ConfigOption.intOption("demo.bad", 0, 1, 2, "default out of range"));
        assertThrows(IllegalArgumentException.class,
                () -> ConfigOption.booleanOption("Demo_Key", true, "bad key"));
        assertThrows(IllegalArgumentException.class,
                () -> new OptionGroup("x", "other.", "d", List.of(ENABLED)));
        assertThrows(IllegalArgumentException.class,
                () -> new OptionGroup("x", "demo.", "d", List.of(ENABLED, ENABLED)));
    }

    @Test
    void rendersAMarkdownTableWithFullKeys() {
        String md = ConfigurationDocs.render(ConfigScope.STORM, "storm.yaml", GROUP);
        assertTrue(md.contains("| `jetstream.demo.routes` | int | `1` | 1 to 16 | Parallel connections. |"), md);
        assertTrue(md.contains("| `jetstream.demo.mode` | enum | `strict` | one of strict, relaxed-order | Ordering. |"), md);
    }

    /** A password given in the configuration never appears in its string form (which adapters log at start-up). */
    @Test
    void sensitiveValuesAreMaskedInTheStringForm() {
        ConfigOption<String> password = ConfigOption.sensitiveStringOption("demo.password", "A password.");
        OptionGroup group = new OptionGroup("Demo secrets", "demo.", "For tests.", List.of(password));
        JetStreamConfig config = JetStreamConfig.load(ConfigScope.STORM, Map.of("jetstream.demo.password", "hunter2-secret"), group);
        assertEquals("hunter2-secret", config.get(password));
        assertTrue(!config.toString().contains("hunter2-secret") && config.toString().contains("jetstream.demo.password=******"),
                config.toString());
    }
}
