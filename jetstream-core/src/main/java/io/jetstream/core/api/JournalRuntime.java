package io.jetstream.core.api;

import io.jetstream.core.config.InvalidConfigurationException;
import java.util.List;
import java.util.Optional;

/**
 * What the journal needs of the JVM, checked once when a transport's settings are read and before any
 * Chronicle Queue class is initialised: Chronicle Queue on the class path (the engine jars do not
 * bundle it) and, on Java 17, the three module flags it uses to map its files. Nothing else in
 * JetStream needs a JVM flag, so this is the only place that names one.
 *
 * <p>The flags were found by removing one flag at a time from Chronicle's documented list until its
 * journal failed (Chronicle Queue 2026.4 on Java 17): {@code sun.nio.ch} exported (its file mapping),
 * {@code java.lang.reflect} open (its reflection helper), {@code jdk.internal.ref} exported (the
 * cleaner that unmaps a finished journal file; without it Chronicle warns and leaves files mapped).
 * An {@code --add-opens} of a package also exports it, so Flink's default {@code --add-opens
 * java.base/sun.nio.ch} counts.
 */
public final class JournalRuntime {
    private static final String CHRONICLE_QUEUE = "net.openhft.chronicle.queue.ChronicleQueue";
    private static final String ANALYTICS_PROPERTY = "chronicle.analytics.disable";

    /** One module access Chronicle Queue needs, as the {@code java} launcher spells it. */
    public record ModuleAccess(String module, String packageName, boolean open) {
        /** The launcher flag that grants it to code on the class path. */
        public String flag() {
            return (open ? "--add-opens=" : "--add-exports=") + module + "/" + packageName + "=ALL-UNNAMED";
        }

        boolean grantedTo(Module target) {
            return ModuleLayer.boot().findModule(module)
                    .map(m -> open ? m.isOpen(packageName, target) : m.isExported(packageName, target))
                    .orElse(false);
        }
    }

    /** Every module access the journal needs on Java 17. */
    public static final List<ModuleAccess> REQUIRED = List.of(
            new ModuleAccess("java.base", "sun.nio.ch", false),
            new ModuleAccess("java.base", "jdk.internal.ref", false),
            new ModuleAccess("java.base", "java.lang.reflect", true));

    private JournalRuntime() {}

    /** The flags of {@link #REQUIRED}, one argument each, for a JVM that will run a journal (a test's or a benchmark's child). */
    public static List<String> launcherFlags() {
        return REQUIRED.stream().map(ModuleAccess::flag).toList();
    }

    /**
     * Refuses, naming {@code key} (the option that asked for a journal), when this JVM cannot run the
     * journal; otherwise turns Chronicle's usage analytics off (it would call an outside host) unless
     * the user set {@code chronicle.analytics.disable} themselves.
     *
     * @throws InvalidConfigurationException naming the missing library or every missing flag
     */
    public static void check(String key, Object value) {
        Optional<Class<?>> chronicle = chronicleQueue();
        if (chronicle.isEmpty()) {
            throw new InvalidConfigurationException(key, value,
                    "the journal needs Chronicle Queue on the class path, which the engine jars do not bundle: put "
                            + "chronicle-queue and its dependencies next to JetStream's jar (Storm/JStorm extlib/, Flink lib/), "
                            + "or leave the journal off");
        }
        List<String> missing = missingFlags(chronicle.get().getModule());
        if (!missing.isEmpty()) {
            throw new InvalidConfigurationException(key, value,
                    "the journal (Chronicle Queue) needs JVM flags this JVM was not started with: add "
                            + String.join(" ", missing)
                            + " to the process's JVM options (Flink env.java.opts.taskmanager, Storm and JStorm "
                            + "worker.childopts), or leave the journal off");
        }
        if (System.getProperty(ANALYTICS_PROPERTY) == null) {
            System.setProperty(ANALYTICS_PROPERTY, "true");
        }
    }

    /** The flags of {@link #REQUIRED} that {@code target} (the module Chronicle is loaded into) is not granted. */
    static List<String> missingFlags(Module target) {
        return REQUIRED.stream().filter(a -> !a.grantedTo(target)).map(ModuleAccess::flag).toList();
    }

    /** Chronicle Queue's entry class, loaded but not initialised, or empty when it is not on the class path. */
    private static Optional<Class<?>> chronicleQueue() {
        try {
            return Optional.of(Class.forName(CHRONICLE_QUEUE, false, JournalRuntime.class.getClassLoader()));
        } catch (ClassNotFoundException | LinkageError e) {
            return Optional.empty();
        }
    }
}
