package io.jetstream.benchmarks.storm;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * What the build fixed for the Storm benchmarks (resource {@code jetstream-storm-benchmarks.properties},
 * filtered by Maven): the shaded transport and scheduler jars for the workers' {@code extlib/} and
 * Nimbus's {@code extlib-daemon/}. Workers get no JVM flag of JetStream's (none is needed).
 *
 * <p>Immutable; thread-safe.
 */
final class BenchmarkEnvironment {
    private final Properties properties = new Properties();

    BenchmarkEnvironment() {
        try (InputStream in = BenchmarkEnvironment.class.getResourceAsStream("/jetstream-storm-benchmarks.properties")) {
            if (in == null) {
                throw new IllegalStateException("jetstream-storm-benchmarks.properties missing: build with Maven");
            }
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** JetStream's shaded Storm transport jar; fails with the command that builds it if missing. */
    Path transportJar() {
        Path jar = Path.of(System.getProperty("storm.transport.jar", properties.getProperty("storm.transport.jar"))).normalize();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " missing: ./mvnw -q -DskipTests package -pl storm-transport/storm -am");
        }
        return jar;
    }

    /** JetStream's shaded scheduler jar (Nimbus's {@code extlib-daemon/}); fails with the command that builds it if missing. */
    Path schedulerJar() {
        Path jar = Path.of(System.getProperty("scheduler.jar", properties.getProperty("scheduler.jar"))).normalize();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " missing: ./mvnw -q -DskipTests package -pl scheduler/storm -am");
        }
        return jar;
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
