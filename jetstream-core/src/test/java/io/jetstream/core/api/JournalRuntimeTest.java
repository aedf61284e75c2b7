package io.jetstream.core.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.core.config.JetStreamConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal is the one feature that needs JVM flags: without them a stream that asks for a journal
 * is refused when its settings are read, naming the option and every flag to add; with them (the
 * "journal" test JVM) it starts. The untagged cases run in the build's ordinary test JVM, which is
 * given no module flag, as an engine's worker or TaskManager is not.
 */
class JournalRuntimeTest {
    @TempDir
    Path dir;

    private TransportSettings durable() {
        return TransportSettings.from(JetStreamConfig.load(ConfigScope.STORM,
                Map.of("jetstream.transport.reliability", "durable", "jetstream.transport.journal.dir", dir.toString()),
                TransportSettings.GROUPS));
    }

    @Test
    void aJournalWithoutItsFlagsIsRefusedAtStartNamingTheOptionAndEveryFlag() {
        InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class, this::durable);
        assertEquals("jetstream.transport.journal.dir", e.key());
        for (JournalRuntime.ModuleAccess access : JournalRuntime.REQUIRED) {
            assertTrue(e.getMessage().contains(access.flag()), e.getMessage());
        }
        assertTrue(e.getMessage().contains("worker.childopts") && e.getMessage().contains("env.java.opts.taskmanager"),
                e.getMessage());
    }

    @Test
    void anOpenPackageCountsAsExported() {
        JournalRuntime.ModuleAccess exported = new JournalRuntime.ModuleAccess("java.base", "java.lang", false);
        assertTrue(exported.grantedTo(getClass().getModule()), "java.lang is exported to everyone");
        JournalRuntime.ModuleAccess open = new JournalRuntime.ModuleAccess("java.base", "java.lang", true);
        assertEquals("--add-opens=java.base/java.lang=ALL-UNNAMED", open.flag());
        JournalRuntime.ModuleAccess missingModule = new JournalRuntime.ModuleAccess("no.such.module", "p", false);
        assertTrue(!missingModule.grantedTo(getClass().getModule()), "a module the JVM lacks grants nothing");
    }

    @Test
    @Tag("journal")
    void withItsFlagsAJournalStartsAndChronicleAnalyticsAreTurnedOff() {
        String analytics = System.clearProperty("chronicle.analytics.disable");
        try {
            assertEquals(dir, durable().journalDir().orElseThrow());
            assertEquals(List.of(), JournalRuntime.missingFlags(getClass().getModule()));
            assertEquals("true", System.getProperty("chronicle.analytics.disable"), "Chronicle must not call its analytics host");
        } finally {
            if (analytics != null) {
                System.setProperty("chronicle.analytics.disable", analytics);
            }
        }
    }
}
