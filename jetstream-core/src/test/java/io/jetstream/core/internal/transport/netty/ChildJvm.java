package io.jetstream.core.internal.transport.netty;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A test's helper process: a JVM running a main class of the test class path with no JVM flag
 * but those a caller names (a journal's, {@link io.jetstream.core.api.JournalRuntime}),
 * whose output goes to a log file once it has printed its READY line. Killed with SIGKILL by the
 * tests that need a crash.
 */
final class ChildJvm {
    final Process process;
    /** What the child printed on its READY line after "READY ". */
    final String ready;
    private final Path log;

    private ChildJvm(Process process, String ready, Path log) {
        this.process = process;
        this.ready = ready;
        this.log = log;
    }

    /** Starts {@code main} with {@code args} and waits (at most 30 s) for its line starting with READY. */
    static ChildJvm start(Class<?> main, Path log, List<String> args) throws Exception {
        return start(List.of(), main, log, args);
    }

    /** As {@link #start(Class, Path, List)}, the JVM also given {@code jvmFlags}. */
    static ChildJvm start(List<String> jvmFlags, Class<?> main, Path log, List<String> args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmFlags);
        command.add("-Xmx256m");
        command.add("-Dio.netty.leakDetection.level=paranoid");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(args);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.PIPE).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        StringBuilder seen = new StringBuilder();
        String line;
        while ((line = out.readLine()) != null) {
            seen.append(line).append('\n');
            if (line.startsWith("READY")) {
                break;
            }
            assertTrue(System.nanoTime() < deadline, main.getSimpleName() + " did not start:\n" + seen);
        }
        assertTrue(line != null, main.getSimpleName() + " exited:\n" + seen);
        Files.writeString(log, seen, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        Thread drain = new Thread(() -> {
            try (var w = Files.newBufferedWriter(log, StandardOpenOption.APPEND)) {
                out.transferTo(w);
            } catch (Exception ignored) {
                // the process was killed
            }
        }, "drain-" + log.getFileName());
        drain.setDaemon(true);
        drain.start();
        return new ChildJvm(p, line.substring("READY".length()).trim(), log);
    }

    /** SIGKILL, and wait for it to be gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }

    /** Waits for a normal exit; returns its code, or fails naming the log after {@code seconds}. */
    int awaitExit(long seconds) throws Exception {
        assertTrue(process.waitFor(seconds, TimeUnit.SECONDS), "still running after " + seconds + " s; see " + log);
        return process.exitValue();
    }

    String log() throws Exception {
        return Files.readString(log);
    }
}
