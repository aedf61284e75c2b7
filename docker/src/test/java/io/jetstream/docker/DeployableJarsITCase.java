package io.jetstream.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The jars users drop into an engine's lib/ or extlib/ must not leak classes into the engine's
 * class path: every class is JetStream's own ({@code io/jetstream/}), bundled libraries (Netty,
 * Agrona) are relocated under {@code io/jetstream/shaded/}, and no engine class is bundled; and every
 * JetStream class the adapter's classes reach is bundled too.
 */
class DeployableJarsITCase {
    private static final Path ROOT = Path.of(System.getProperty("jetstream.root", "..")).toAbsolutePath().normalize();
    private static final String VERSION = System.getProperty("jetstream.version", "0.1.0-SNAPSHOT");

    @ParameterizedTest
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    @ValueSource(strings = {
        "flink-connector/target/jetstream-flink-connector-%s.jar",
        "storm-transport/storm/target/jetstream-storm-transport-%s.jar",
        "storm-transport/jstorm/target/jetstream-jstorm-transport-%s.jar",
        "scheduler/target/jetstream-scheduler-%s-shaded.jar"
    })
    void engineJarBundlesOnlyJetStreamAndRelocatedLibraries(String jarPattern) throws IOException {
        Path jar = ROOT.resolve(String.format(jarPattern, VERSION));
        assertTrue(Files.isRegularFile(jar), "missing " + jar);
        List<String> foreign = new ArrayList<>();
        Map<String, Set<String>> references = new HashMap<>();
        int core = 0;
        try (JarFile file = new JarFile(jar.toFile())) {
            for (JarEntry entry : java.util.Collections.list(file.entries())) {
                String name = entry.getName();
                if (!name.endsWith(".class") || name.equals("module-info.class") || name.startsWith("META-INF/")) {
                    continue;
                }
                if (name.startsWith("io/jetstream/core/")) {
                    core++;
                }
                if (!name.startsWith("io/jetstream/")) {
                    foreign.add(name);
                }
                try (InputStream in = file.getInputStream(entry)) {
                    references.put(name.substring(0, name.length() - ".class".length()),
                            ClassReferences.of(in.readAllBytes()));
                }
            }
        }
        Map<String, String> missing = missingFromWhatTheAdapterReaches(references);
        assertEquals(Map.of(), missing, jar.getFileName()
                + " leaves out JetStream classes that its adapter's classes reach (class -> first user found)");
        assertEquals(List.of(), foreign.subList(0, Math.min(20, foreign.size())),
                jar.getFileName() + " carries classes outside io/jetstream/ (unrelocated libraries or engine classes)");
        assertTrue(core > 0, jar.getFileName() + " must bundle jetstream-core");
    }

    /**
     * JetStream classes missing from the jar that its adapter's own classes (everything but the bundled
     * core and relocated libraries) reach through the references of the classes they use: those are a
     * {@code NoClassDefFoundError} waiting in the engine. Core classes the adapter never reaches (the
     * Netty transport in an adapter that does not use it) may refer to libraries the jar leaves out.
     */
    private static Map<String, String> missingFromWhatTheAdapterReaches(Map<String, Set<String>> references) {
        Map<String, String> missing = new TreeMap<>();
        Set<String> seen = new HashSet<>();
        ArrayDeque<String> queue = new ArrayDeque<>();
        for (String c : references.keySet()) {
            if (!c.startsWith("io/jetstream/core/") && !c.startsWith("io/jetstream/shaded/")) {
                seen.add(c);
                queue.add(c);
            }
        }
        while (!queue.isEmpty()) {
            String c = queue.poll();
            for (String used : references.get(c)) {
                if (!used.startsWith("io/jetstream/")) {
                    continue;
                }
                if (!references.containsKey(used)) {
                    missing.putIfAbsent(used, c);
                } else if (seen.add(used)) {
                    queue.add(used);
                }
            }
        }
        return missing;
    }
}
