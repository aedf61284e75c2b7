package io.jetstream.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The far end of a benchmark: a JVM started from this benchmark's class path running a main class
 * that prints {@code READY} once it serves, optionally under a command prefix (for example
 * {@code ip netns exec <ns>} to put it behind a shaped link). Both sides of a comparison start
 * their peers the same way, so they differ only in what is compared.
 */
public final class PeerProcess implements AutoCloseable {
    private final Process process;
    private final BufferedReader output;
    private String ready;

    private PeerProcess(Process process) {
        this.process = process;
        this.output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /** {@code main} in a new JVM on this machine. */
    public static PeerProcess start(Class<?> main, String... args) throws IOException {
        return start(List.of(), main, args);
    }

    /** {@code main} in a new JVM started under {@code prefix} (a command and its arguments). */
    public static PeerProcess start(List<String> prefix, Class<?> main, String... args) throws IOException {
        return start(prefix, List.of(), main, args);
    }

    /**
     * {@code main} in a new JVM started under {@code prefix} and given {@code jvmFlags} (none but
     * those: a peer that runs a journal names the journal's, {@code JournalRuntime.launcherFlags()}).
     */
    public static PeerProcess start(List<String> prefix, List<String> jvmFlags, Class<?> main, String... args)
            throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmFlags);
        command.add("-Xmx256m");
        command.add("-XX:+UseSerialGC");
        command.add("-Dio.netty.leakDetection.level=disabled");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        PeerProcess peer = new PeerProcess(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
        peer.awaitReady(Duration.ofSeconds(30));
        return peer;
    }

    /** The port the peer printed after {@code READY} (peers that listen on an ephemeral port). */
    public int readyPort() {
        String[] words = ready.split(" ");
        if (words.length < 2) {
            throw new IllegalStateException("peer printed no port: " + ready);
        }
        return Integer.parseInt(words[1]);
    }

    /** The whole READY line (peers that report several ports). */
    public String readyLine() {
        return ready;
    }

    /** The peer's next line of standard output, or null at its end. */
    public String readLine() throws IOException {
        return output.readLine();
    }

    private void awaitReady(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String line;
        while ((line = output.readLine()) != null) {
            if (line.startsWith("READY")) {
                ready = line;
                return;
            }
            if (System.nanoTime() > deadline) {
                break;
            }
        }
        process.destroyForcibly();
        throw new IllegalStateException("benchmark peer did not start: " + line);
    }

    /** SIGKILL: the peer dies without any cleanup, as a crash would. Waits until it is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }

    /** Waits up to {@code timeout} for the peer to exit by itself; its exit code, or -1 if it is still running. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** CPU time the peer has used so far. */
    public Duration cpu() {
        return process.toHandle().info().totalCpuDuration().orElseThrow(
                () -> new IllegalStateException("this platform reports no process CPU time"));
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
