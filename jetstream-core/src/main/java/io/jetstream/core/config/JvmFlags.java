package io.jetstream.core.config;

import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * The JVM flags JetStream needs on Java 17 — Agrona's and Chronicle Queue's {@code --add-exports} and
 * {@code --add-opens}, Chronicle's {@code -Dchronicle.*} — as this JVM was started with them (the
 * build's {@code jetstream.jvm.flags}, README "Running on Java 17"), for the helper JVMs a test or a
 * benchmark starts: a child inherits them instead of a second copy of the list.
 */
public final class JvmFlags {
    private JvmFlags() {}

    /** This JVM's module-access and Chronicle flags, in the form {@code java} accepts them. */
    public static List<String> inherited() {
        return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("--add-exports=") || a.startsWith("--add-opens=") || a.startsWith("-Dchronicle."))
                .toList();
    }
}
