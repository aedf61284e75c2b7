package io.jetstream.benchmarks.ipc;

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
 * A peer process of an IPC benchmark: a JVM started from this benchmark's class path running
 * {@link IpcPeerMain}, which prints {@code READY} once it serves. Both transports' peers are started
 * the same way, so the two sides of a comparison differ only in the transport.
 */
final class IpcPeer implements AutoCloseable {
    private final Process process;
    private final BufferedReader output;

    private IpcPeer(Process process) {
        this.process = process;
        this.output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    static IpcPeer start(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--add-exports");
        command.add("java.base/jdk.internal.misc=ALL-UNNAMED");
        command.add("-Xmx256m");
        command.add("-XX:+UseSerialGC");
        command.add("-Dio.netty.leakDetection.level=disabled");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(IpcPeerMain.class.getName());
        command.addAll(List.of(args));
        IpcPeer peer = new IpcPeer(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
        peer.awaitReady(Duration.ofSeconds(30));
        return peer;
    }

    private void awaitReady(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String line;
        while ((line = output.readLine()) != null) {
            if (line.startsWith("READY")) {
                return;
            }
            if (System.nanoTime() > deadline) {
                break;
            }
        }
        process.destroyForcibly();
        throw new IllegalStateException("benchmark peer did not start: " + line);
    }

    /** CPU time the peer has used so far. */
    Duration cpu() {
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
