package io.jetstream.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * jetstream-core's door: what the engine adapters, the test support and the benchmarks may use of it.
 * Its public API is {@code io.jetstream.core.api} (the transport, its streams and endpoints, flush control for engines
 * that own their buffers, the settings and options), {@code io.jetstream.core.config} (options,
 * declared once and validated), {@code io.jetstream.core.model} (JetStream's latency model, its oracle
 * and the loop that applies them to a stream) and {@code io.jetstream.core.ring} (the shared-memory
 * ring, for an engine that moves its own buffers between processes, as Flink's shuffle does).
 * Everything under {@code io.jetstream.core.internal} is the implementation. Checked on the compiled
 * main classes of every other module, read from their {@code target/classes}.
 */
class CoreApiTest {
    /** The modules whose main classes are checked, relative to the repository root. */
    private static final List<String> MODULES = List.of(
            "flink-connector", "flink-crosssite", "storm-transport/storm", "storm-transport/jstorm", "scheduler/core", "scheduler/storm",
            "scheduler/jstorm", "test-support/common", "test-support/flink", "test-support/storm", "test-support/jstorm",
            "benchmarks/jmh", "benchmarks/demo", "benchmarks/scheduler", "benchmarks/storm", "benchmarks/jstorm",
            "benchmarks/flink", "benchmarks/crosssite", "benchmarks/crosssite-flink", "perf", "relay", "landing");
    static final String[] CORE_API = {
        "io.jetstream.core.api..", "io.jetstream.core.config..", "io.jetstream.core.model..", "io.jetstream.core.ring.."
    };

    private static JavaClasses outsideCore;
    private static JavaClasses core;

    @BeforeAll
    static void importClasses() {
        Path root = Path.of(System.getProperty("jetstream.root", ".."));
        List<Path> dirs = MODULES.stream().map(m -> root.resolve(m).resolve("target/classes")).toList();
        for (Path dir : dirs) {
            assertTrue(Files.isDirectory(dir), dir + " missing: this test runs after the other modules are compiled");
        }
        outsideCore = new ClassFileImporter().importPaths(dirs);
        core = new ClassFileImporter().importPaths(root.resolve("jetstream-core/target/classes"));
    }

    @Test
    void adaptersAndBenchmarksUseOnlyTheCoresApi() {
        noClasses().that().resideInAPackage("io.jetstream..")
                .should().dependOnClassesThat(resideInAPackage("io.jetstream.core..").and(not(resideInAnyPackage(CORE_API))))
                .because("an adapter or benchmark that reaches past the core's API binds itself to its implementation")
                .check(outsideCore);
    }

    @Test
    void theCoresImplementationIsUnderInternal() {
        classes().that().resideInAPackage("io.jetstream.core..").and(not(resideInAnyPackage(CORE_API)))
                .should().resideInAPackage("io.jetstream.core.internal..")
                .because("a package that is neither the API nor internal leaves a reader guessing which it is")
                .check(core);
    }
}
