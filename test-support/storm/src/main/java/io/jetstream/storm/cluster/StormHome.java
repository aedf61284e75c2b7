package io.jetstream.storm.cluster;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A Storm 2.8 installation laid out from the Maven artifacts on this JVM's class path, the way the
 * Apache binary release lays out its own (that tarball is not on Maven Central):
 * <ul>
 *   <li>{@code lib/}: the daemons' class path, storm-server and everything it brings at run time;
 *   <li>{@code lib-worker/}: a worker's class path, storm-client and its run-time dependencies only
 *       (what the release ships there), so a worker sees no class of this build but the extlib jar;
 *   <li>{@code extlib/}: what an operator adds to every worker (JetStream's shaded transport jar, and
 *       the scheduler's for its traffic hook);
 *   <li>{@code extlib-daemon/}: what an operator adds to the daemons' class path (the scheduler's
 *       shaded jar, for Nimbus's {@code storm.scheduler}), as {@code bin/storm} adds it;
 *   <li>{@code conf/}, {@code log4j2/} ({@code cluster.xml} for the daemons, {@code worker.xml} for
 *       workers), {@code logs/}, {@code tmp/} (every JVM's {@code java.io.tmpdir}: RocksDB and Netty
 *       unpack native libraries there).
 * </ul>
 * The directories hold symbolic links to the jars in the local Maven repository, not copies.
 *
 * <p>Which artifacts a worker gets is the run-time closure of storm-client 2.8.3's POM, listed in
 * {@link #WORKER_ARTIFACTS}; the daemons get every jar on the class path except test tooling and
 * this build's own modules and their libraries ({@link #NOT_STORM_GROUPS}).
 *
 * <p>Immutable once laid out; safe to read from any thread.
 */
public final class StormHome {
    /** storm-client 2.8.3 and its run-time dependencies (its POM's compile-scope closure), by artifact id. */
    static final Set<String> WORKER_ARTIFACTS = Set.of(
            "storm-client", "storm-shaded-deps", "slf4j-api", "log4j-api", "log4j-core", "log4j-slf4j2-impl",
            "log4j-over-slf4j", "kryo", "minlog", "reflectasm", "objenesis", "asm", "metrics-core", "metrics-graphite",
            "metrics-jvm", "metrics-jmx", "amqp-client", "bcpkix-jdk18on", "bcprov-jdk18on", "bcutil-jdk18on",
            "jakarta.activation", "jakarta.activation-api", "jakarta.xml.bind-api", "javax.annotation-api");
    /** Maven groups on a test or benchmark class path that are not part of a Storm installation. */
    static final List<String> NOT_STORM_GROUPS = List.of(
            "org/junit/", "org/opentest4j/", "org/apiguardian/", "org/hamcrest/", "org/mockito/", "io/jetstream/",
            "org/agrona/", "io/netty/", "net/openhft/", "org/jspecify/", "org/openjdk/", "org/testcontainers/");

    private final Path root;

    private StormHome(Path root) {
        this.root = root;
    }

    /**
     * Lays out a Storm home in the empty directory {@code root} from this JVM's class path.
     *
     * @param extlib a jar for {@code extlib/}, or {@code null} for none
     */
    public static StormHome layOut(Path root, Path extlib) throws IOException {
        return layOut(root, extlib == null ? List.of() : List.of(extlib), List.of());
    }

    /**
     * Lays out a Storm home in the empty directory {@code root} from this JVM's class path, with
     * {@code extlib} jars for every worker and {@code daemonExtlib} jars for the daemons.
     */
    public static StormHome layOut(Path root, List<Path> extlib, List<Path> daemonExtlib) throws IOException {
        StormHome home = new StormHome(root.toAbsolutePath());
        for (String dir : List.of("lib", "lib-worker", "extlib", "extlib-daemon", "conf", "log4j2", "logs", "tmp")) {
            Files.createDirectories(home.root.resolve(dir));
        }
        List<Path> repositoryJars = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path jar = Path.of(entry).toAbsolutePath();
            if (entry.endsWith(".jar") && Files.isRegularFile(jar) && isStorm(jar)) {
                repositoryJars.add(jar);
            }
        }
        for (Path jar : repositoryJars) {
            Files.createSymbolicLink(home.lib().resolve(jar.getFileName()), jar);
            if (WORKER_ARTIFACTS.contains(artifactId(jar))) {
                Files.createSymbolicLink(home.libWorker().resolve(jar.getFileName()), jar);
            }
        }
        home.requireJar(home.lib(), "storm-server-");
        home.requireJar(home.libWorker(), "storm-client-");
        home.requireJar(home.libWorker(), "storm-shaded-deps-");
        for (Path jar : extlib) {
            home.link(home.extlib(), jar);
        }
        for (Path jar : daemonExtlib) {
            home.link(home.extlibDaemon(), jar);
        }
        home.writeLoggingConfigurations();
        return home;
    }

    public Path root() {
        return root;
    }

    public Path lib() {
        return root.resolve("lib");
    }

    public Path libWorker() {
        return root.resolve("lib-worker");
    }

    public Path extlib() {
        return root.resolve("extlib");
    }

    public Path extlibDaemon() {
        return root.resolve("extlib-daemon");
    }

    public Path conf() {
        return root.resolve("conf");
    }

    public Path logs() {
        return root.resolve("logs");
    }

    public Path tmp() {
        return root.resolve("tmp");
    }

    /** The log4j2 configuration of the daemons. */
    public Path clusterLogConfig() {
        return root.resolve("log4j2/cluster.xml");
    }

    /** The daemons' class path: {@code lib/*} and {@code extlib-daemon/*}, as {@code bin/storm} builds it. */
    public String daemonClassPath() {
        return lib() + File.separator + "*" + File.pathSeparator + extlibDaemon() + File.separator + "*";
    }

    private void link(Path dir, Path jar) throws IOException {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalArgumentException("no extlib jar at " + jar + " (build it with Maven's package phase)");
        }
        Files.createSymbolicLink(dir.resolve(jar.getFileName()), jar.toAbsolutePath());
    }

    private static boolean isStorm(Path jar) {
        String path = jar.toString().replace(File.separatorChar, '/');
        int repository = path.indexOf("/.m2/repository/");
        if (repository < 0) {
            return false; // this build's own modules (target/*.jar)
        }
        String coordinates = path.substring(repository + "/.m2/repository/".length());
        return NOT_STORM_GROUPS.stream().noneMatch(coordinates::startsWith);
    }

    /** The artifact id of a jar in the Maven repository layout: {@code group/path/artifact/version/artifact-version.jar}. */
    private static String artifactId(Path jar) {
        return jar.getParent().getParent().getFileName().toString();
    }

    private void requireJar(Path dir, String prefix) throws IOException {
        try (var files = Files.list(dir)) {
            if (files.noneMatch(f -> f.getFileName().toString().startsWith(prefix))) {
                throw new IllegalStateException("no " + prefix + "*.jar on this JVM's class path for " + dir
                        + "; class path: " + System.getProperty("java.class.path"));
            }
        }
    }

    private void writeLoggingConfigurations() throws IOException {
        String pattern = "%d{HH:mm:ss.SSS} %t %c{1.} [%p] %msg%n";
        Files.writeString(clusterLogConfig(), """
                <?xml version="1.0" encoding="UTF-8"?>
                <Configuration shutdownHook="disable">
                  <Appenders>
                    <File name="A1" fileName="${sys:storm.log.dir}/${sys:logfile.name}" append="true">
                      <PatternLayout pattern="%s"/>
                    </File>
                  </Appenders>
                  <Loggers>
                    <Root level="info"><AppenderRef ref="A1"/></Root>
                  </Loggers>
                </Configuration>
                """.formatted(pattern));
        // As Storm's own worker.xml: the worker's log, and its stdout/stderr as the LogWriter forwards them.
        String workerDir = "${sys:workers.artifacts}/${sys:storm.id}/${sys:worker.port}/${sys:logfile.name}";
        Files.writeString(root.resolve("log4j2/worker.xml"), """
                <?xml version="1.0" encoding="UTF-8"?>
                <Configuration shutdownHook="disable">
                  <Appenders>
                    <File name="A1" fileName="%1$s" append="true">
                      <PatternLayout pattern="%2$s"/>
                    </File>
                    <File name="STDERR" fileName="%1$s.err" append="true">
                      <PatternLayout pattern="%%msg%%n"/>
                    </File>
                  </Appenders>
                  <Loggers>
                    <Root level="info"><AppenderRef ref="A1"/></Root>
                    <Logger name="STDERR" level="info" additivity="false"><AppenderRef ref="STDERR"/></Logger>
                    <Logger name="STDOUT" level="info" additivity="false"><AppenderRef ref="STDERR"/></Logger>
                  </Loggers>
                </Configuration>
                """.formatted(workerDir, pattern));
    }
}
