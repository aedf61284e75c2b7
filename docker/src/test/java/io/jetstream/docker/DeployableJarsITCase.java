package io.jetstream.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
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
import org.junit.jupiter.api.Test;
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
        "scheduler/storm/target/jetstream-scheduler-%s-shaded.jar",
        "scheduler/jstorm/target/jetstream-scheduler-jstorm-%s-shaded.jar"
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
     * The Storm cluster of {@code docker/storm} (which no test runs without a Docker engine) is
     * configured as its daemons will read it: {@code conf/storm.yaml} through Storm's own reader, every
     * class it names found in the jars the compose file puts on the daemons' and workers' class path
     * and of the type Storm loads it as, and every {@code jetstream.*} option passing the validation
     * the scheduler, its hook and the transport run at start-up.
     */
    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void stormClusterConfigurationNamesClassesAndOptionsItsJarsAccept() throws Exception {
        Map<String, Object> conf = org.apache.storm.utils.Utils.findAndReadConfigFile(
                ROOT.resolve("docker/storm/conf/storm.yaml").toString(), true);
        String compose = Files.readString(ROOT.resolve("docker/storm/docker-compose.yml"));
        List<URL> extlib = new ArrayList<>();
        for (String jarPattern : List.of("storm-transport/storm/target/jetstream-storm-transport-%s.jar",
                "scheduler/storm/target/jetstream-scheduler-%s-shaded.jar")) {
            String relative = String.format(jarPattern, VERSION);
            assertTrue(compose.contains("../../" + relative + "}:/jetstream/extlib/"),
                    "docker/storm/docker-compose.yml must mount " + relative + " into extlib/ (daemons and workers)");
            Path jar = ROOT.resolve(relative);
            assertTrue(Files.isRegularFile(jar), "missing " + jar);
            extlib.add(jar.toUri().toURL());
        }
        try (URLClassLoader workers = new URLClassLoader(extlib.toArray(URL[]::new), getClass().getClassLoader())) {
            assertLoadsAs(org.apache.storm.scheduler.IScheduler.class, (String) conf.get("storm.scheduler"), workers);
            assertLoadsAs(org.apache.storm.messaging.IContext.class, (String) conf.get("storm.messaging.transport"), workers);
            @SuppressWarnings("unchecked")
            List<String> hooks = (List<String>) conf.get("topology.auto.task.hooks");
            assertTrue(hooks != null && !hooks.isEmpty(), "the scheduler runs online: the traffic hook must be registered");
            for (String hook : hooks) {
                assertLoadsAs(org.apache.storm.hooks.ITaskHook.class, hook, workers);
            }
            Class<?> scopes = workers.loadClass("io.jetstream.core.config.ConfigScope");
            Class<?> groupType = workers.loadClass("io.jetstream.core.config.OptionGroup");
            Object schedulerGroups = workers.loadClass("io.jetstream.scheduler.storm.JetStreamSchedulerOptions")
                    .getMethod("groups").invoke(null);
            int schedulerGroupCount = Array.getLength(schedulerGroups);
            Object groups = Array.newInstance(groupType, schedulerGroupCount + 1);
            System.arraycopy(schedulerGroups, 0, groups, 0, schedulerGroupCount);
            Array.set(groups, schedulerGroupCount,
                    workers.loadClass("io.jetstream.storm.transport.JetStreamTransportOptions").getField("GROUP").get(null));
            @SuppressWarnings({"unchecked", "rawtypes"})
            Object storm = Enum.valueOf((Class) scopes, "STORM");
            try {
                workers.loadClass("io.jetstream.core.config.JetStreamConfig")
                        .getMethod("load", scopes, Map.class, groups.getClass())
                        .invoke(null, storm, conf, groups);
            } catch (InvocationTargetException invalid) {
                throw new AssertionError("docker/storm/conf/storm.yaml: " + invalid.getCause().getMessage(), invalid.getCause());
            }
        }
    }

    private static void assertLoadsAs(Class<?> type, String className, ClassLoader loader) {
        assertTrue(className != null, "no class configured for " + type.getSimpleName());
        try {
            Class<?> named = Class.forName(className, false, loader);
            assertTrue(type.isAssignableFrom(named), className + " is not a " + type.getName());
        } catch (ClassNotFoundException e) {
            throw new AssertionError(className + " is in none of the jars mounted into extlib/", e);
        }
    }

    /**
     * JetStream classes missing from the jar that its adapter's own classes (everything but the bundled
     * core and relocated libraries) reach through the references of the classes they use: those are a
     * {@code NoClassDefFoundError} waiting in the engine. Core classes the adapter never reaches (the
     * Netty transport in an adapter that does not use it) may refer to libraries the jar leaves out.
     * One optional library is left out on purpose: Netty's native OpenSSL binding (netty-tcnative),
     * which relocated Netty reaches only after {@code OpenSsl.isAvailable()} found it; JetStream's
     * TLS runs on the JDK provider ({@code TlsContexts}).
     */
    private static final String OPTIONAL_NATIVE_OPENSSL = "io/jetstream/shaded/io/netty/internal/tcnative/";

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
                if (!used.startsWith("io/jetstream/") || used.startsWith(OPTIONAL_NATIVE_OPENSSL)) {
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
