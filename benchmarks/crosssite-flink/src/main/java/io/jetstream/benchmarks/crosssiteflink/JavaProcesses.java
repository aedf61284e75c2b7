package io.jetstream.benchmarks.crosssiteflink;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;

/**
 * The JVMs the benchmark starts (brokers, MirrorMaker 2, the jobs): this JVM's {@code java} with this
 * module's class path (surefire's test class path in a test, else {@code java.class.path}; see
 * {@link #classPath}) and this module's log configuration, waiting for a
 * line in a process's log, and stopping a process (SIGTERM, then SIGKILL; its descendants too).
 *
 * <p>Stateless; thread-safe.
 */
public final class JavaProcesses {
    /**
     * System property: JVM flags added to every child's (space-separated), after its own; the loopback
     * test sets {@code -XX:TieredStopAtLevel=1} (short runs on a busy machine: C2's compilations cost more
     * than they save).
     */
    public static final String EXTRA_FLAGS_PROPERTY = "jetstream.crosssite.child-jvm-flags";
    /** The children's log4j2 configuration, a resource of this module. */
    static final String CHILD_LOG_CONFIGURATION = "jetstream-crosssite-child-log4j2.properties";
    /** The file name of the shuffle service's shaded jar (its artifact id): see {@link #classPath}. */
    private static final String SHUFFLE_SERVICE_JAR = "jetstream-flink-connector-";

    private JavaProcesses() {
    }

    /** This JVM's java executable. */
    public static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * The class path the children run on: everything this JVM was given, except the Flink shuffle service's
     * jar ({@code jetstream-flink-connector-*.jar}). That jar bundles its own copy of the core with Agrona
     * relocated, for Flink's {@code lib/}; a job JVM that loaded the core's classes from it would fail in
     * {@code CrossSiteSource}, compiled against the plain core, with an {@code AbstractMethodError}. A
     * module that runs both (the demo) has it on its own class path.
     */
    public static String classPath() {
        String surefire = System.getProperty("surefire.test.class.path");
        String all = surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
        StringJoiner kept = new StringJoiner(File.pathSeparator);
        for (String entry : all.split(File.pathSeparator)) {
            String name = Path.of(entry).getFileName() == null ? entry : Path.of(entry).getFileName().toString();
            if (!(name.startsWith(SHUFFLE_SERVICE_JAR) && name.endsWith(".jar"))) {
                kept.add(entry);
            }
        }
        return kept.toString();
    }

    /** {@code java <jvmFlags> -cp <class path> <mainClass> <args>}. */
    public static List<String> command(List<String> jvmFlags, String mainClass, List<String> args) {
        List<String> c = new ArrayList<>();
        c.add(java());
        c.addAll(jvmFlags);
        String extra = System.getProperty(EXTRA_FLAGS_PROPERTY, "").trim();
        if (!extra.isEmpty()) {
            c.addAll(List.of(extra.split("\\s+")));
        }
        c.add("-Djava.net.preferIPv4Stack=true");
        // Logs to standard output (the process's log file), not to whatever log4j2 configuration comes first on the class path.
        c.add("-Dlog4j2.configurationFile=" + CHILD_LOG_CONFIGURATION);
        c.add("-cp");
        c.add(classPath());
        c.add(mainClass);
        c.addAll(args);
        return c;
    }

    /**
     * Waits until {@code log} contains {@code marker}.
     *
     * @throws IllegalStateException if {@code p} exits first or {@code seconds} pass, naming the log
     */
    public static void awaitLine(Process p, Path log, String marker, long seconds) throws IOException, InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < until) {
            if (Files.exists(log) && Files.readString(log).contains(marker)) {
                return;
            }
            if (!p.isAlive()) {
                throw new IllegalStateException("exited " + p.exitValue() + " before saying '" + marker + "'; see " + log + tail(log));
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("no '" + marker + "' within " + seconds + " s; see " + log + tail(log));
    }

    /**
     * Waits for {@code p} to exit with 0.
     *
     * @throws IllegalStateException otherwise, naming the log
     */
    public static void awaitSuccess(Process p, Path log, long seconds) throws IOException, InterruptedException {
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            stop(p);
            throw new IllegalStateException("did not finish within " + seconds + " s; see " + log + tail(log));
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException("exited " + p.exitValue() + "; see " + log + tail(log));
        }
    }

    /** The last lines of {@code log}, for an error message. */
    public static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return ":\n  " + String.join("\n  ", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "";
        }
    }

    /** SIGTERM to {@code p}, SIGKILL after 15 s (and to whatever it started). */
    public static void stop(Process p) throws InterruptedException {
        if (p == null) {
            return;
        }
        List<ProcessHandle> descendants = p.descendants().toList();
        if (p.isAlive()) {
            p.destroy();
            if (!p.waitFor(15, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        for (ProcessHandle d : descendants) {
            d.destroyForcibly();
        }
    }

    /** CPU seconds {@code p} has used so far (from /proc), or NaN. */
    public static double cpuSeconds(Process p) {
        return p.info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(Double.NaN);
    }
}
